import type { DiscoveryRule } from '../../core/layout.js';
import { normalisePackPath } from '../../core/pack/pack-path.js';
import { type Diagnostic, warning } from '../../core/text/diagnostics.js';
import { isObject } from '../../core/text/yaml.js';
import { isMarketplace, marketEntriesOfPlugins, marketPlugins } from './market-plugins.js';

// Claude Code plugins (`registry.discover.plugins: true`): a folder holding
// `.claude-plugin/plugin.json` is a plugin. A file in its `agents/` folder (at any depth) whose
// frontmatter is missing, does not parse or lacks the id or a required field is still an
// agent, as Claude Code registers it: the id falls back to the file's name, a missing
// `description` to `Agent from <plugin> plugin`. Claude Code calls a plugin's agent
// `<plugin>:<name>`: an agent of the same name outside any plugin (a user's
// `~/.claude/agents/`) is the one `<name>` means. A plugin.json may list agent files
// elsewhere in the plugin (`"agents": ["./reviewer.md"]`), which replace those of its
// `agents/` folder (Claude Code reads that folder only for a plugin.json without
// `"agents"`); in a tree of plugins, the catch-all takes only their agents, and elsewhere
// it takes no command file. A folder a marketplace.json lists as a local plugin is one
// without a plugin.json too, its entry its manifest (`market-plugins.ts`).

/** The discovery rule of Claude Code plugins. */
export const plugins: DiscoveryRule = {
  forPaths(paths, textOf) {
    const market = marketPlugins(paths, textOf);
    const folders = pluginFolders(paths, market);
    const listed = listedAgents(folders, market, marketEntriesOfPlugins(paths, textOf), textOf);
    return {
      diagnostics: [...listed.problems, ...replacedSaid(paths, listed)],
      fields(path, meta, id, require) {
        const plugin = pluginOf(path, folders, listed);
        if (plugin === undefined) return meta;
        return pluginFallbacks(meta, path, id, require, () => pluginName(plugin, market, textOf));
      },
      // Claude Code calls a plugin's agent `<plugin>:<name>`; `:` is no role-name
      // character, so where a name is given twice, a plugin's is `<plugin>.<name>`.
      qualify(path, id) {
        const plugin = pluginOf(path, folders, listed);
        return plugin === undefined ? undefined : `${pluginName(plugin, market, textOf)}.${id}`;
      },
      // Found by the catch-all: in a tree of plugins, only their agents are agents (Claude
      // Code loads no other); elsewhere, a command file is none.
      isRole(path, meta) {
        if (folders.size > 0)
          return pluginOf(path, folders, listed) !== undefined || inAgentsFolder(path, folders);
        return !isCommand(path, meta, textOf);
      },
      // A plugin whose plugin.json lists its agents has no others: its `agents/` folder's
      // files are agents only where listed.
      passedOver: (path) => replaced(path, listed),
      // Where plugins' agents are read (their `agents/` folders), the agents their
      // plugin.json files list elsewhere are too.
      alsoFound(found) {
        if (!found.some((path) => withinPlugin(path, folders))) return [];
        return paths.filter((path) => isListed(path, listed));
      },
    };
  },
  reads: (path) => path === PLUGIN_JSON || path.endsWith(`/${PLUGIN_JSON}`) || isMarketplace(path),
};

// --- internal ---

const PLUGIN_JSON = '.claude-plugin/plugin.json';

/**
 * Folders holding `.claude-plugin/plugin.json`, and those a marketplace lists without one
 * (a plugin's root; '' for the pack root).
 */
function pluginFolders(allPaths: readonly string[], market: ReadonlyMap<string, unknown>): Set<string> {
  const out = new Set<string>(market.keys());
  for (const path of allPaths) {
    if (path === PLUGIN_JSON) out.add('');
    else if (path.endsWith(`/${PLUGIN_JSON}`)) out.add(path.slice(0, -PLUGIN_JSON.length - 1));
  }
  return out;
}

/** Whether a file lies in a plugin (a folder holding `.claude-plugin/plugin.json`). */
function withinPlugin(path: string, plugins: ReadonlySet<string>): boolean {
  if (plugins.size === 0) return false;
  if (plugins.has('')) return true;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1))
    if (plugins.has(path.slice(0, i))) return true;
  return false;
}

/**
 * The agent files plugin.json files list (`"agents": ["./reviewer.md", "./more/"]`: a
 * file, or a folder whose Markdown files are agents), each with its plugin's folder.
 */
function listedAgents(
  plugins: ReadonlySet<string>,
  market: ReadonlyMap<string, Record<string, unknown>>,
  entries: ReadonlyMap<string, Record<string, unknown>>,
  textOf: (path: string) => string | undefined,
): {
  files: Map<string, string>;
  folders: Map<string, string>;
  replacing: Set<string>;
  problems: Diagnostic[];
} {
  const files = new Map<string, string>();
  const replacing = new Set<string>();
  const folders = new Map<string, string>();
  const problems: Diagnostic[] = [];
  for (const plugin of plugins) {
    const file = plugin === '' ? PLUGIN_JSON : `${plugin}/${PLUGIN_JSON}`;
    const entry = market.get(plugin);
    let agents: unknown;
    try {
      agents = entry ? entry.agents : (JSON.parse(textOf(file) ?? '{}') as { agents?: unknown }).agents;
    } catch (e) {
      // A plugin.json that does not parse lists nothing, as Claude Code loads no such plugin: said.
      const why = e instanceof Error ? e.message : String(e);
      problems.push(
        warning('BAD_ROLE', `plugin.json is no JSON (${why}): the agents it lists are not read`, { file }),
      );
      continue;
    }
    // Claude Code reads a plugin's `agents/` folder only when its plugin.json gives no
    // `"agents"` (any value but an empty string, false or null replaces it); a marketplace
    // entry's are beside the folder's.
    if (agents && !entry) replacing.add(plugin);
    const own = [agents].flat();
    if (!entry && agents !== undefined && own.some((item) => typeof item !== 'string'))
      problems.push(
        warning(
          'BAD_ROLE',
          `plugin.json: "agents" is a path or a list of paths (strings); what is not one is not read`,
          { file },
        ),
      );
    // A marketplace entry's "agents" are the plugin's beside its plugin.json's, as Claude
    // Code merges a strict entry's (the default; one `"strict": false` beside a plugin.json
    // is a conflict for which it loads no plugin, not told apart here).
    const more = entries.get(plugin)?.agents;
    for (const item of more === undefined ? own : [...own, ...[more].flat()]) {
      if (typeof item !== 'string') continue;
      const path = normalisePackPath(plugin === '' ? item : `${plugin}/${item}`);
      if (path === undefined || path === '') continue;
      if (path.toLowerCase().endsWith('.md')) files.set(path, plugin);
      else folders.set(path, plugin);
    }
  }
  return { files, folders, replacing, problems };
}

/** Whether a file lies in the `agents/` folder of a plugin whose plugin.json lists its agents elsewhere. */
function replaced(path: string, listed: ReturnType<typeof listedAgents>): boolean {
  if (listed.replacing.size === 0 || isListed(path, listed)) return false;
  for (const plugin of listed.replacing)
    if (path.startsWith(plugin === '' ? 'agents/' : `${plugin}/agents/`)) return true;
  return false;
}

/** One warning for each plugin whose `agents/` folder holds Markdown its plugin.json's list passes over. */
function replacedSaid(paths: readonly string[], listed: ReturnType<typeof listedAgents>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const plugin of listed.replacing) {
    const passed = paths.filter(
      (p) =>
        p.toLowerCase().endsWith('.md') &&
        p.startsWith(plugin === '' ? 'agents/' : `${plugin}/agents/`) &&
        !isListed(p, listed),
    );
    if (passed.length === 0) continue;
    const file = plugin === '' ? PLUGIN_JSON : `${plugin}/${PLUGIN_JSON}`;
    out.push(
      warning(
        'BAD_ROLE',
        `plugin.json lists its agents ("agents"), which replaces its agents/ folder: ${passed.length} file${passed.length === 1 ? '' : 's'} there (${passed[0]}${passed.length > 1 ? ', …' : ''}) ${passed.length === 1 ? 'is no agent' : 'are no agents'}, as for Claude Code`,
        { file },
      ),
    );
  }
  return out;
}

/** Whether a plugin.json lists a Markdown file: itself, or a folder it lies in (at any depth). */
function isListed(path: string, listed: ReturnType<typeof listedAgents>): boolean {
  if (listed.files.has(path)) return true;
  if (!path.toLowerCase().endsWith('.md')) return false;
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1))
    if (listed.folders.has(path.slice(0, i))) return true;
  return false;
}

/** Whether a file lies in the `agents/` folder of a plugin (at any depth below it). */
function inAgentsFolder(path: string, plugins: ReadonlySet<string>): boolean {
  for (const plugin of plugins)
    if (path.startsWith(plugin === '' ? 'agents/' : `${plugin}/agents/`)) return true;
  return false;
}

/**
 * Whether a file is a command (a slash command's Markdown, which may also carry a name and
 * a description): it lies in a `commands/` folder, its frontmatter has a command's fields
 * (`argument-hint`, `allowed-tools`), or its body takes the command's `$ARGUMENTS`.
 */
function isCommand(
  path: string,
  meta: Record<string, unknown>,
  textOf: (path: string) => string | undefined,
): boolean {
  if (path.startsWith('commands/') || path.includes('/commands/')) return true;
  if ('argument-hint' in meta || 'allowed-tools' in meta) return true;
  return textOf(path)?.includes('$ARGUMENTS') ?? false;
}

/**
 * The plugin folder of one of its agents: a file in its `agents/` folder, at any depth
 * (`<plugin>/agents/x.md`, `<plugin>/agents/team/x.md`: Claude Code reads the folder
 * recursively), or one its plugin.json lists (a file, or one in a listed folder at any
 * depth); undefined for any other file.
 */
function pluginOf(
  path: string,
  plugins: ReadonlySet<string>,
  listed: ReturnType<typeof listedAgents>,
): string | undefined {
  const named = listed.files.get(path);
  if (named !== undefined) return named;
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
    const folder = path.slice(0, i);
    const plugin = listed.folders.get(folder);
    if (plugin !== undefined) return plugin;
    if (folder !== 'agents' && !folder.endsWith('/agents')) continue;
    const root = folder === 'agents' ? '' : folder.slice(0, -'/agents'.length);
    if (plugins.has(root)) return root;
  }
  return undefined;
}

/**
 * A plugin agent's frontmatter with Claude Code's fallbacks: the file's name for a
 * missing id, `Agent from <plugin> plugin` for a missing description (the plugin's name
 * from its plugin.json, else its folder's).
 */
function pluginFallbacks(
  meta: Record<string, unknown>,
  path: string,
  id: string,
  require: readonly string[],
  name: () => string,
): Record<string, unknown> {
  const missing = (k: string) => typeof meta[k] !== 'string' || meta[k] === '';
  if (!missing(id) && !require.some(missing)) return meta;
  const out = { ...meta };
  // Claude Code writes a name that is no string as text (`name: 42` is the agent 42), and
  // a number or boolean description too.
  if (out[id] !== undefined && out[id] !== null && typeof out[id] !== 'string') out[id] = String(out[id]);
  if (typeof out.description === 'number' || typeof out.description === 'boolean')
    out.description = String(out.description);
  const still = (k: string) => typeof out[k] !== 'string' || out[k] === '';
  if (still(id)) out[id] = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  if (require.includes('description') && still('description'))
    out.description = `Agent from ${name()} plugin`;
  return out;
}

/** A plugin's name: its plugin.json's `name` (its marketplace entry's, without one), else its folder's. */
function pluginName(
  plugin: string,
  market: ReadonlyMap<string, Record<string, unknown>>,
  textOf: (path: string) => string | undefined,
): string {
  const entry = market.get(plugin)?.name;
  if (typeof entry === 'string' && entry !== '') return entry;
  const text = textOf(plugin === '' ? PLUGIN_JSON : `${plugin}/${PLUGIN_JSON}`);
  try {
    const parsed: unknown = text === undefined ? undefined : JSON.parse(text);
    if (isObject(parsed) && typeof parsed.name === 'string' && parsed.name !== '') return parsed.name;
  } catch {
    // A plugin.json that does not parse: the folder's name.
  }
  return plugin.slice(plugin.lastIndexOf('/') + 1) || 'unnamed';
}
