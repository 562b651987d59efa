import type { DiscoveryRule } from '../../core/layout.js';
import { isObject } from '../../core/text/yaml.js';

// Claude Code plugins (`registry.discover.plugins: true`): a folder holding
// `.claude-plugin/plugin.json` is a plugin. A file straight in its `agents/` folder whose
// frontmatter is missing, does not parse or lacks the id or a required field is still an
// agent, as Claude Code registers it: the id falls back to the file's name, a missing
// `description` to `Agent from <plugin> plugin`. Claude Code calls a plugin's agent
// `<plugin>:<name>`: an agent of the same name outside any plugin (a user's
// `~/.claude/agents/`) is the one `<name>` means.

/** The discovery rule of Claude Code plugins. */
export const plugins: DiscoveryRule = {
  forPaths(paths, textOf) {
    const folders = pluginFolders(paths);
    return {
      fields(path, meta, id, require) {
        const plugin = pluginOf(path, folders);
        return plugin === undefined ? meta : pluginFallbacks(meta, path, plugin, id, require, textOf);
      },
      keepEarlier(path, earlier, id) {
        if (!withinPlugin(path, folders) || withinPlugin(earlier, folders)) return undefined;
        return `role ${id} is defined in ${earlier} and again here, in a plugin: the one outside plugins is kept (Claude Code names this one <plugin>:${id})`;
      },
    };
  },
  reads: (path) => path === PLUGIN_JSON || path.endsWith(`/${PLUGIN_JSON}`),
};

// --- internal ---

const PLUGIN_JSON = '.claude-plugin/plugin.json';

/** Folders holding `.claude-plugin/plugin.json` (a plugin's root; '' for the pack root). */
function pluginFolders(allPaths: readonly string[]): Set<string> {
  const out = new Set<string>();
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

/** The plugin folder of a file straight in its `agents/` folder (`<plugin>/agents/x.md`), if any. */
function pluginOf(path: string, plugins: ReadonlySet<string>): string | undefined {
  const slash = path.lastIndexOf('/');
  const folder = slash === -1 ? '' : path.slice(0, slash);
  if (folder !== 'agents' && !folder.endsWith('/agents')) return undefined;
  const root = folder === 'agents' ? '' : folder.slice(0, -'/agents'.length);
  return plugins.has(root) ? root : undefined;
}

/**
 * A plugin agent's frontmatter with Claude Code's fallbacks: the file's name for a
 * missing id, `Agent from <plugin> plugin` for a missing description (the plugin's name
 * from its plugin.json, else its folder's).
 */
function pluginFallbacks(
  meta: Record<string, unknown>,
  path: string,
  plugin: string,
  id: string,
  require: readonly string[],
  textOf: (path: string) => string | undefined,
): Record<string, unknown> {
  const missing = (k: string) => typeof meta[k] !== 'string' || meta[k] === '';
  if (!missing(id) && !require.some(missing)) return meta;
  const out = { ...meta };
  if (missing(id)) out[id] = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  if (require.includes('description') && missing('description'))
    out.description = `Agent from ${pluginName(plugin, textOf)} plugin`;
  return out;
}

/** A plugin's name: its plugin.json's `name`, else its folder's. */
function pluginName(plugin: string, textOf: (path: string) => string | undefined): string {
  const text = textOf(plugin === '' ? PLUGIN_JSON : `${plugin}/${PLUGIN_JSON}`);
  try {
    const parsed: unknown = text === undefined ? undefined : JSON.parse(text);
    if (isObject(parsed) && typeof parsed.name === 'string' && parsed.name !== '') return parsed.name;
  } catch {
    // A plugin.json that does not parse: the folder's name.
  }
  return plugin.slice(plugin.lastIndexOf('/') + 1) || 'unnamed';
}
