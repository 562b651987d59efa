import type { Layouts } from '../layout.js';
import { compileGlob, globHoldsBelow } from '../pack/glob.js';
import type { Manifest } from '../pack/manifest.js';
import { byteOrder } from '../text/text.js';
import { presetDetectFiles } from './detect.js';
import { MANIFEST_FILE } from './snapshot.js';

// Which files of a folder a read must bring for a pack: a project root read for a few
// notes files need not read (or count against the limits) its build output.

/**
 * The files a read of a pack's folder must bring so that the build gives what a read of
 * every file gives. `key` names it: two scopes with the same key hold the same paths.
 */
export interface ReadScope {
  readonly key: string;
  has(path: string): boolean;
  /** Whether a path inside the folder `folder` can be one `has` takes. */
  holdsBelow(folder: string): boolean;
}

/**
 * The read scope of a pack whose manifest is `manifest`: its `files:` selection, the files
 * its manifest is made of (strata.yaml, the `extends:` chain) or names (`named`: its fleet
 * file, role files, layer files, and the YAML files beside a YAML file it names, for the
 * closest names when it is missing), and every file preset detection looks at — so that a
 * strata.yaml added or removed, or a file that makes the folder another layout, is read and
 * the build can tell. Undefined when the manifest selects every file (no `files:`): then
 * every file is read.
 *
 * A build from a scoped read gives the snapshot a full read gives as long as the pack's
 * manifest is still `manifest`; a reader that finds it changed reads again (see
 * `source/open.ts`).
 */
export function readScopeOf(
  manifest: Pick<Manifest, 'files' | 'chain' | 'named'>,
  layouts: Layouts,
): ReadScope | undefined {
  if (manifest.files === undefined) return undefined;
  const exact = [...new Set([MANIFEST_FILE, ...manifest.chain.filter((k) => !k.startsWith('preset:'))])].sort(
    byteOrder,
  );
  const named = manifest.named.flatMap((n) => [n.glob, ...(/[*?]/.test(n.glob) ? [] : yamlBeside(n.glob))]);
  const globs = [...new Set([...manifest.files, ...named, ...presetDetectFiles(layouts)])].sort(byteOrder);
  const exactSet = new Set(exact);
  const matchers = globs.map(compileGlob);
  const below = globs.map(globHoldsBelow);
  return {
    key: JSON.stringify([exact, globs]),
    has: (path) => exactSet.has(path) || matchers.some((m) => m(path)),
    holdsBelow: (folder) => exact.some((p) => p.startsWith(`${folder}/`)) || below.some((m) => m(folder)),
  };
}

/**
 * The files that decide what a folder's pack is, when nothing else is known: strata.yaml
 * and every file preset detection looks at. A build of these alone gives the pack's
 * manifest, and so its {@link readScopeOf}, for a pack whose manifest stands alone.
 */
export function detectionScope(layouts: Layouts): ReadScope {
  const globs = presetDetectFiles(layouts).sort(byteOrder);
  const matchers = globs.map(compileGlob);
  const below = globs.map(globHoldsBelow);
  return {
    key: JSON.stringify([[MANIFEST_FILE], globs, 'detection']),
    has: (path) => path === MANIFEST_FILE || matchers.some((m) => m(path)),
    holdsBelow: (folder) => below.some((m) => m(folder)),
  };
}

// --- internal ---

/** The globs of the YAML files in the folder of a named YAML file (none for another file): the closest names when it is missing. */
function yamlBeside(path: string): string[] {
  if (!/\.ya?ml$/i.test(path)) return [];
  const folder = path.slice(0, path.lastIndexOf('/') + 1);
  return [`${folder}*.yaml`, `${folder}*.yml`];
}
