/**
 * Every command of `strata`, in the order `strata --help` lists them: its name, its one
 * line of help and the module that registers it (`commands/<module>.ts`). `run` loads a
 * command's module only when that command runs or its own help is asked for, so
 * `strata --help` and `strata --version` load no command at all, and `strata compose`
 * loads neither the service nor the tokenizer. A new command is its module and one line
 * here (and one in `run.ts`'s loaders if the module is new).
 */
export const COMMANDS = [
  {
    name: 'init',
    module: 'init',
    summary: 'write a small, commented starter pack of a layout into a folder',
  },
  {
    name: 'compose',
    module: 'compose',
    summary: 'print the composed prompt (exactly its bytes) for a role, team and agent',
  },
  {
    name: 'explain',
    module: 'compose',
    summary: 'show every layer of the pipeline: included or why not, source, bytes',
  },
  { name: 'roles', module: 'roles', summary: 'list the role ids of the registry, one a line' },
  { name: 'fleet', module: 'roles', summary: 'list the agents of the fleet with their role and team' },
  {
    name: 'serve',
    module: 'serve',
    summary: 'serve composed prompts over HTTP (and MCP at /mcp), reloading the pack when it changes',
  },
  {
    name: 'mcp',
    module: 'mcp',
    summary:
      "serve the pack's prompts over MCP on stdin/stdout (an MCP client starts it), reloading the pack when it changes",
  },
  {
    name: 'validate',
    module: 'validate',
    summary:
      'lint the whole pack: load errors, json blocks, UCXL addresses, orphan files, every member composes',
  },
  {
    name: 'diff',
    module: 'diff',
    summary:
      'the impact of a change: every member whose composed prompt differs from the base, with a unified diff',
  },
  {
    name: 'snapshot',
    module: 'snapshot',
    summary: "write a lock file of every member's prompt hash and text, or check the pack against one",
  },
  {
    name: 'generate',
    module: 'generate',
    summary: 'render lifecycle-<role>.md and <role>.md verb fragments from a verbs registry',
  },
  {
    name: 'config',
    module: 'config',
    summary:
      "an agent's config (model, capabilities, max_tasks, …) merged from agent_defaults, the role and the fleet entry",
  },
  {
    name: 'export',
    module: 'export',
    summary: 'write the composed prompt as CLAUDE.md, AGENTS.md, GEMINI.md or a plain file, atomically',
  },
  {
    name: 'bundle',
    module: 'bundle',
    summary: 'write the pack as one file (a gzip’d tar) to serve or ship in a ConfigMap',
  },
] as const;

/** The name of a command. */
export type CommandName = (typeof COMMANDS)[number]['name'];
/** The name of a module of `commands/`. */
export type CommandModule = (typeof COMMANDS)[number]['module'];

/** A command's one line of help (its `.description`). */
export function summary(name: CommandName): string {
  return COMMANDS.find((c) => c.name === name)!.summary;
}
