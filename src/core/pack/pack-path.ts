// Pack-relative paths: always `/`-separated, never leaving the pack.

const NEEDS_NORMALISING = /(^|\/)\.{1,2}(\/|$)|\/\/|^\/|\/$/;

/** Normalises a pack-relative path (`a/./b/../c` → `a/c`); undefined when it would leave the pack. */
export function normalisePackPath(path: string): string | undefined {
  if (!NEEDS_NORMALISING.test(path)) return path;
  const parts: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

/** Resolves `target` against the folder of pack file `from`; undefined when it leaves the pack. */
export function resolvePackPath(from: string, target: string): string | undefined {
  const folder = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : '';
  return normalisePackPath(`${folder}${target}`);
}
