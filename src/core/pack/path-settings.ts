import type { Manifest } from './manifest.js';
import { normalisePackPath } from './pack-path.js';

// Path settings: string settings a layer's `path_setting:` names (a file of
// shared defaults an operator points elsewhere). Only the operator sets them — env var, manifest default,
// `serve --set`, CLI `--set` — and then they may name a file outside the pack, which
// the loader reads into the snapshot. A request never sets one.

/** Where an operator-set path points. */
export type OperatorPath =
  | { pack: string }
  | { external: string }
  /** Leaves the pack, and the pack has no directory to resolve it against. */
  | { outside: true };

/** The names of the settings some layer uses as `path_setting`. */
export function pathSettingNames(manifest: Manifest): Set<string> {
  const names = new Set<string>();
  for (const layer of manifest.layers) {
    const sources = [layer.source, ...(layer.variants ?? []).map((v) => v.source)];
    for (const s of sources) if (s?.kind === 'file' && s.pathSetting !== undefined) names.add(s.pathSetting);
  }
  return names;
}

/**
 * Resolves an operator-set path: relative paths are relative to the pack root; a path
 * inside the pack is a pack file, anything else an absolute path outside it.
 *
 * @example
 * operatorPath('/srv/pack', 'defaults.md');            // { pack: 'defaults.md' }
 * operatorPath('/srv/pack', '/etc/org/defaults.md');   // { external: '/etc/org/defaults.md' }
 */
export function operatorPath(root: string | undefined, value: string): OperatorPath {
  if (value.startsWith('/')) {
    const abs = normaliseAbsolute(value);
    if (root && (abs === root || abs.startsWith(`${root}/`))) {
      const rel = normalisePackPath(abs.slice(root.length));
      if (rel !== undefined) return { pack: rel };
    }
    return { external: abs };
  }
  const rel = normalisePackPath(value);
  if (rel !== undefined) return { pack: rel };
  return root ? { external: normaliseAbsolute(`${root}/${value}`) } : { outside: true };
}

// --- internal ---

/** `/a/./b/../c` → `/a/c` (`..` above the root stays at the root). */
function normaliseAbsolute(path: string): string {
  const parts: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
}
