import { Command, CommanderError, Option } from 'commander';
import { formatDiagnostic, PromptError } from '../core/text/diagnostics.js';
import { VERSION } from '../source/version.js';
import { COMMANDS, type CommandModule } from './commands/list.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, EXIT_USAGE, type Exit, UsageError } from './io.js';
import { refuseRepeatedOptions } from './option-repeats.js';

export type { Exit } from './io.js';

/** A command module: it registers its commands on the program. */
interface CommandRegistrar {
  register(program: Command, io: CliIO, exit: Exit): void;
}

/** Each module of `commands/`, loaded when one of its commands runs (or shows its help). */
const MODULES: Record<CommandModule, () => Promise<CommandRegistrar>> = {
  init: () => import('./commands/init.js'),
  compose: () => import('./commands/compose.js'),
  roles: () => import('./commands/roles.js'),
  serve: () => import('./commands/serve.js'),
  mcp: () => import('./commands/mcp.js'),
  validate: () => import('./commands/validate.js'),
  diff: () => import('./commands/diff.js'),
  snapshot: () => import('./commands/snapshot.js'),
  generate: () => import('./commands/generate.js'),
  config: () => import('./commands/config.js'),
  export: () => import('./commands/export.js'),
  bundle: () => import('./commands/bundle.js'),
};

/**
 * Runs the strata CLI. Exit status: 0 success (warnings allowed), 1 an error in the pack
 * or the request, 2 a usage error.
 *
 * @example
 * const code = await run(['compose', '--dir', 'examples/roboco', '--agent', 'ada'], {
 *   stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s),
 *   env: process.env, cwd: process.cwd(),
 * });
 */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  let code: number = EXIT_OK;
  const exit: Exit = (c) => {
    code = c;
  };
  const program = new Command('strata')
    .description("Compose every agent's system prompt from layered, ops-tunable files.")
    .version(VERSION, '-V, --version')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  program.addHelpText(
    'after',
    '\nExit status: 0 success (warnings allowed), 1 an error in the pack or the request, 2 a usage error.',
  );
  await registerCommands(program, argv, io, exit);
  for (const cmd of program.commands)
    cmd.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  refuseRepeatedOptions(program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === 'commander.helpDisplayed' ||
        e.code === 'commander.version' ||
        e.code === 'commander.help'
      )
        return EXIT_OK;
      return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (e instanceof UsageError) {
      io.stderr(`error USAGE: ${e.message}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof PromptError) {
      for (const d of e.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
      return EXIT_FAIL;
    }
    io.stderr(`error INTERNAL: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT_FAIL;
  }
}

// --- internal ---

/**
 * Registers the command `argv` names (or whose help `strata help NAME` asks for) from its
 * module, and every other command as a stub that only lists it in `strata --help` (its
 * name, `[options]` and its line of help, as the real command would print them). A
 * command nobody names loads nothing.
 */
async function registerCommands(
  program: Command,
  argv: readonly string[],
  io: CliIO,
  exit: Exit,
): Promise<void> {
  const named = argv[0] === 'help' ? argv[1] : argv[0];
  const wanted = COMMANDS.find((c) => c.name === named)?.module;
  const registered = new Map<string, Command>();
  if (wanted) {
    (await MODULES[wanted]()).register(program, io, exit);
    for (const cmd of program.commands) registered.set(cmd.name(), cmd);
  }
  // The commands, in the list's order: the real ones, stubs for the rest.
  const ordered = COMMANDS.map(
    (c) => registered.get(c.name) ?? new Command(c.name).description(c.summary).addOption(STUB_OPTION),
  );
  (program.commands as Command[]).length = 0; // commander keeps them in a plain array
  for (const cmd of ordered) program.addCommand(cmd);
}

/** What makes a stub's help line say `[options]`, as every real command has options; never shown. */
const STUB_OPTION = new Option('--options').hideHelp();
