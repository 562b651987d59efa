import { parse } from 'yaml';

// Claude Code's own rules for a subagent file, written from its source (the npm package's
// cli.js, 2.1.x): the frontmatter pattern and parse with its quoted-values retry (Oj, NF_),
// a plugin agent's name and prompt (XP4: `String(name)` or the file's name, the body
// trimmed, then ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} replaced, qd, then for a
// plugin whose manifest declares `userConfig` each ${user_config.KEY}), a project
// agent's (EP4: a string name and description, the body trimmed; a project's
// `.claude/agents` and a user's `~/.claude/agents` alike, every `*.md` below them as
// `rg --files --hidden --follow` lists it), and its tools (j46: absent is every tool,
// written without a value is none; cb: split at commas and spaces outside parentheses). A prompt as Claude Code gives it with auto memory off
// (CLAUDE_CODE_DISABLE_AUTO_MEMORY=1): with it on, an agent with `memory: user|project|local`
// has its memory instructions and MEMORY.md, read where Claude Code runs, after the body.
// An independent check of strata's claude-agents layout, used by its tests and by
// bench/real-layouts.

/** A subagent file as Claude Code reads it. */
export interface ClaudeAgent {
  /** The agent's name; undefined when Claude Code registers no agent for the file. */
  name: string | undefined;
  /** The system prompt. */
  prompt: string;
  /** Its tools: undefined for every tool. */
  tools: string[] | undefined;
}

/** Where a plugin is installed and keeps its data (what ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} become). */
export interface PluginPlace {
  root: string;
  data: string;
  /**
   * The plugin manifest's `userConfig` (its declared options), and the values the user
   * saved for them: `${user_config.KEY}` then becomes a sensitive option's placeholder, a
   * saved value, or stays as written (substituteUserConfigInContent).
   */
  userConfig?: {
    schema: Record<string, { sensitive?: boolean; [field: string]: unknown }>;
    saved: Record<string, unknown>;
  };
}

/** A file read as Claude Code reads it: a plugin's agent when `plugin` is given, else a project's. */
export function claudeAgent(text: string, fileName: string, plugin?: PluginPlace): ClaudeAgent {
  const { frontmatter: fm, content } = frontmatterOf(text);
  const body = content.trim();
  if (plugin) {
    const name = (fm.name != null ? String(fm.name) : undefined) || fileName.replace(/\.md$/, '');
    let prompt = body
      .replace(/\$\{CLAUDE_PLUGIN_ROOT\}/g, () => plugin.root)
      .replace(/\$\{CLAUDE_PLUGIN_DATA\}/g, () => plugin.data);
    const options = plugin.userConfig;
    if (options)
      prompt = prompt.replace(/\$\{user_config\.([^}]+)\}/g, (match, key: string) => {
        if (options.schema[key]?.sensitive === true)
          return `[sensitive option '${key}' not available in skill content]`;
        const value = options.saved[key];
        return value === undefined ? match : String(value);
      });
    return { name, prompt, tools: toolsOf(fm.tools) };
  }
  const ok =
    typeof fm.name === 'string' &&
    fm.name !== '' &&
    typeof fm.description === 'string' &&
    fm.description !== '';
  return { name: ok ? (fm.name as string) : undefined, prompt: body, tools: toolsOf(fm.tools) };
}

// --- internal ---

function frontmatterOf(text: string): { frontmatter: Record<string, unknown>; content: string } {
  const m = /^---\s*\n([\s\S]*?)---\s*\n?/.exec(text);
  if (!m) return { frontmatter: {}, content: text };
  const content = text.slice(m[0].length);
  for (const yaml of [m[1] ?? '', quoteValues(m[1] ?? '')]) {
    try {
      const v: unknown = parse(yaml);
      return {
        frontmatter: v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {},
        content,
      };
    } catch {
      // Claude Code tries once more with values quoted, then goes on without frontmatter.
    }
  }
  return { frontmatter: {}, content };
}

/** NF_: a `key: value` line whose value holds one of YAML's special characters, quoted. */
function quoteValues(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const m = /^([a-zA-Z_-]+):\s+(.+)$/.exec(line);
      if (!m) return line;
      const key = m[1]!;
      const value = m[2]!;
      if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))
        return line;
      if (!/[{}[\]*&#!|>%@`]|: /.test(value)) return line;
      return `${key}: "${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
    })
    .join('\n');
}

/** j46 over Cz4: undefined is every tool, null or an empty value none, `*` every tool. */
function toolsOf(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === null || !value) return [];
  const items =
    typeof value === 'string'
      ? [value]
      : Array.isArray(value)
        ? value.filter((v) => typeof v === 'string')
        : [];
  if (items.length === 0) return [];
  const split = splitTools(items);
  return split.includes('*') ? undefined : split;
}

/**
 * cb: each item split at a comma or a space outside parentheses, trimmed, empty parts
 * dropped (`Bash(git add:*), Agent(a, b) Read` is three tools).
 */
function splitTools(items: readonly string[]): string[] {
  const out: string[] = [];
  for (const item of items) {
    if (!item) continue;
    let part = '';
    let inside = false;
    for (const c of item) {
      if (c === '(') inside = true;
      else if (c === ')') inside = false;
      else if ((c === ',' || c === ' ') && !inside) {
        if (part.trim()) out.push(part.trim());
        part = '';
        continue;
      }
      part += c;
    }
    if (part.trim()) out.push(part.trim());
  }
  return out;
}
