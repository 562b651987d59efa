import { normalisePackPath } from '../../core/pack/pack-path.js';
import { isObject } from '../../core/text/yaml.js';

// A marketplace (`.claude-plugin/marketplace.json`) lists its plugins; one whose `source`
// is a path (`"./plugins/kit"`, from the folder holding `.claude-plugin/`) is a folder of
// the repository, and Claude Code loads it as a plugin even without a plugin.json of its
// own: its entry is then its manifest (its `name`, its `agents` beside its `agents/`
// folder). Such a folder is a plugin here too. An entry's `agents` are the plugin's beside
// those its plugin.json gives, where it has one.

/**
 * The folders a marketplace.json lists as local plugins that hold no
 * `.claude-plugin/plugin.json`, each with its entry ('' for the pack root).
 */
export function marketPlugins(
  paths: readonly string[],
  textOf: (path: string) => string | undefined,
): Map<string, Record<string, unknown>> {
  return marketEntries(paths, textOf, false);
}

/** The entries of local plugins that hold a `.claude-plugin/plugin.json`, by folder. */
export function marketEntriesOfPlugins(
  paths: readonly string[],
  textOf: (path: string) => string | undefined,
): Map<string, Record<string, unknown>> {
  return marketEntries(paths, textOf, true);
}

/** Whether a path is a marketplace's manifest. */
export function isMarketplace(path: string): boolean {
  return path === MARKETPLACE_JSON || path.endsWith(`/${MARKETPLACE_JSON}`);
}

// --- internal ---

const MARKETPLACE_JSON = '.claude-plugin/marketplace.json';
const PLUGIN_JSON = '.claude-plugin/plugin.json';

/** Local plugins' entries, by folder: those whose folder holds a plugin.json (`withManifest`), or those whose does not. */
function marketEntries(
  paths: readonly string[],
  textOf: (path: string) => string | undefined,
  withManifest: boolean,
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const markets = paths.filter(isMarketplace);
  if (markets.length === 0) return out;
  const manifests = new Set(paths.filter((p) => p === PLUGIN_JSON || p.endsWith(`/${PLUGIN_JSON}`)));
  for (const market of markets) {
    let plugins: unknown;
    try {
      plugins = (JSON.parse(textOf(market) ?? '{}') as { plugins?: unknown }).plugins;
    } catch {
      // A marketplace.json that does not parse lists no plugin (Claude Code adds no such marketplace).
      continue;
    }
    if (!Array.isArray(plugins)) continue;
    const base = market.slice(0, -MARKETPLACE_JSON.length);
    for (const entry of plugins) {
      if (!isObject(entry) || typeof entry.source !== 'string') continue;
      const folder = normalisePackPath(`${base}${entry.source}`);
      if (folder === undefined || out.has(folder)) continue;
      if (manifests.has(folder === '' ? PLUGIN_JSON : `${folder}/${PLUGIN_JSON}`) !== withManifest) continue;
      out.set(folder, entry);
    }
  }
  return out;
}
