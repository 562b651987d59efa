import type { Manifest } from '../pack/manifest.js';
import type { Where } from '../text/diagnostics.js';
import { Stamped } from '../text/stamped.js';
import { type PackFile, splitOf } from './pack-file.js';

/**
 * Where a key of a file's frontmatter is written: `file` at once, `line` and `col` (own,
 * enumerable) found by reading the frontmatter again when first read. A fleet of identity
 * files keeps one per agent, most never read.
 */
export function frontmatterWhere(
  path: string,
  key: string,
  file: PackFile | undefined,
  mode: Manifest['frontmatter'],
): Where {
  if (!file || file.bodyOffset === 0 || /\.ya?ml$/i.test(path)) return { file: path };
  const where: Where = { file: path };
  new KeySpot(where, { path, key, file, mode });
  Object.defineProperty(where, 'line', LINE_PROPERTY);
  Object.defineProperty(where, 'col', COL_PROPERTY);
  return where;
}

// --- internal ---

interface Spot {
  path: string;
  key: string;
  file: PackFile;
  mode: Manifest['frontmatter'];
}

/** The key a where object points at, and where it was found once looked for. */
class KeySpot extends Stamped {
  #spot: Spot | undefined;
  #found: Where | undefined;
  constructor(target: Where, spot: Spot) {
    super(target);
    this.#spot = spot;
  }
  static found(target: object): Where {
    const spot = target as KeySpot;
    if (spot.#found === undefined) {
      const { path, key, file, mode } = spot.#spot!;
      spot.#found = splitOf(file.text, path, mode)?.yaml?.locate([key]) ?? { file: path };
      spot.#spot = undefined;
    }
    return spot.#found;
  }
}

// One getter each, shared by every where object (a getter per object: a shape per object).
const LINE_PROPERTY: PropertyDescriptor = Object.freeze({
  enumerable: true,
  get(this: object) {
    return KeySpot.found(this).line;
  },
});

const COL_PROPERTY: PropertyDescriptor = Object.freeze({
  enumerable: true,
  get(this: object) {
    return KeySpot.found(this).col;
  },
});
