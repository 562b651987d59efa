import type { Layouts } from '../layout.js';
import { compileGlob } from '../pack/glob.js';
import { type Manifest, resolveManifest } from '../pack/manifest.js';
import type { ManifestPart } from '../pack/manifest-part.js';
import type { Diagnostic } from '../text/diagnostics.js';
import { isReadmeLike } from './roles.js';

// Which layout a pack without a manifest is, and what the layouts a build knows read.

/**
 * Which preset a pack without a manifest looks like (docs/pack-format.md, opening
 * paragraph): the first layout, in detection order, whose preset's `detect:` holds — a
 * file matching one of its globs (and, with `keys`, carrying those keys: a prompt file in
 * its frontmatter, a YAML file in a top-level record); otherwise the last layout (the
 * fallback; an empty pack too, which it answers with its fallback text), unless a layout's
 * `detectAlso` globs match a file (carrying its `detect:` keys, when it names some).
 * `probe` gives a file's keys.
 */
export function detectPreset(
  layouts: Layouts,
  paths: readonly string[],
  probe: (path: string) => ReadonlySet<string>[] = () => [],
): string {
  for (const name of layouts.names) if (detectHolds(layouts, name, paths, probe)) return name;
  // Files a layout keeps anywhere in a tree (`detectAlso`; carrying its `detect:` keys when
  // it has some), when no layout's own files are there.
  for (const name of layouts.names) {
    const also = layouts.get(name)?.detectAlso ?? [];
    if (also.length > 0 && matchesWithKeys(also, presetPart(layouts, name, []).detect?.keys, paths, probe))
      return name;
  }
  const fallback = layouts.names.at(-1) ?? '';
  const claimed = (layouts.get(fallback)?.fallbackFiles ?? []).map(compileGlob);
  // A pack holding a layout's own files (its detection globs but catch-alls), none of
  // them usable, and nothing the fallback reads, is that layout: its files' problems are
  // then said (a byte order mark before the frontmatter, a record without a field), where
  // the fallback would compose its fallback text and say nothing of them.
  for (const name of layouts.names) {
    const own = layoutFiles(layouts, name, paths);
    if (own.length > 0 && !paths.some((p) => !own.includes(p) && claimed.some((g) => g(p)))) return name;
  }
  return fallback;
}

/**
 * The other layouts (the fallback aside) the folder also is, in detection order: those
 * after `chosen` whose `detect:` holds, then those whose `detectAlso` does (a crew in a
 * folder of any depth) — for a folder detected as a layout without roles that holds
 * layouts with roles.
 */
export function alsoDetected(
  layouts: Layouts,
  chosen: string,
  paths: readonly string[],
  probe: (path: string) => ReadonlySet<string>[],
): string[] {
  const others = layouts.names.slice(0, -1).filter((name) => name !== chosen);
  const after = layouts.names.slice(layouts.names.indexOf(chosen) + 1, -1);
  const found = after.filter((name) => detectHolds(layouts, name, paths, probe));
  for (const name of others) {
    const also = layouts.get(name)?.detectAlso ?? [];
    if (found.includes(name) || also.length === 0) continue;
    if (matchesWithKeys(also, presetPart(layouts, name, []).detect?.keys, paths, probe)) found.push(name);
  }
  return found;
}

/**
 * Hidden folder names some layout's preset reads (`hidden:`): readers walk into these
 * (never into `..`-prefixed ConfigMap folders); a snapshot keeps their files only when its
 * manifest opts in with `hidden:`.
 */
export function presetHiddenFolders(layouts: Layouts): string[] {
  return [...new Set(layouts.names.flatMap((name) => presetPart(layouts, name, []).hidden ?? []))];
}

/**
 * Every glob some layout's `detect:` (or `detectAlso`) looks at, and the files the fallback layout reads:
 * the files that decide which preset a pack without a manifest is.
 */
export function presetDetectFiles(layouts: Layouts): string[] {
  const fallback = layouts.get(layouts.names.at(-1) ?? '')?.fallbackFiles ?? [];
  return [
    ...new Set([
      ...layouts.names.flatMap((name) => presetPart(layouts, name, []).detect?.files ?? []),
      ...layouts.names.flatMap((name) => layouts.get(name)?.detectAlso ?? []),
      ...fallback,
    ]),
  ];
}

/** A layout's preset as a manifest, as a pack that is only that preset has it (undefined: no such layout). */
export function presetManifest(layouts: Layouts, name: string): Manifest | undefined {
  if (!layouts.get(name)) return undefined;
  const byPreset = (target: string) =>
    layouts.get(target)
      ? { key: `preset:${target}`, part: presetPart(layouts, target, []), diagnostics: [] }
      : undefined;
  return resolveManifest(presetPart(layouts, name, []), `preset:${name}`, byPreset, layouts.names).manifest;
}

/** A layout's preset as a manifest part (its problems added to `diagnostics`). */
export function presetPart(layouts: Layouts, name: string, diagnostics: Diagnostic[]): ManifestPart {
  const parsed = layouts.part(name)!;
  diagnostics.push(...parsed.diagnostics);
  return parsed.part;
}

/** Whether a manifest reads no roles (no registry files, no discovery): a layout without roles. */
export function withoutRoles(manifest: Manifest): boolean {
  const { registry } = manifest;
  return registry.files.length === 0 && !registry.discover && !registry.discoverFiles;
}

// --- internal ---

/** Whether a layout's `detect:` holds for these paths. */
function detectHolds(
  layouts: Layouts,
  name: string,
  paths: readonly string[],
  probe: (path: string) => ReadonlySet<string>[],
): boolean {
  const detect = presetPart(layouts, name, []).detect;
  return detect !== undefined && matchesWithKeys(detect.files, detect.keys, paths, probe);
}

/** Whether a path matches one of the globs `files` (and, with `keys`, the file carries them all in one record). */
function matchesWithKeys(
  files: readonly string[],
  keys: readonly string[] | undefined,
  paths: readonly string[],
  probe: (path: string) => ReadonlySet<string>[],
): boolean {
  const globs = files.map(compileGlob);
  return paths.some(
    (p) =>
      globs.some((g) => g(p)) && (!keys?.length || probe(p).some((k) => keys.every((key) => k.has(key)))),
  );
}

/**
 * The files of a layout detected by keys that sit where only that layout keeps them (its
 * detection globs but catch-alls such as `**\/*.md`; README-like files aside).
 */
function layoutFiles(layouts: Layouts, name: string, paths: readonly string[]): string[] {
  const detect = presetPart(layouts, name, []).detect;
  if (!detect?.keys?.length) return [];
  const globs = detect.files.filter((g) => !g.startsWith('**/')).map(compileGlob);
  return paths.filter((p) => globs.some((g) => g(p)) && !isReadmeLike(p));
}
