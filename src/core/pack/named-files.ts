import type { Where } from '../text/diagnostics.js';
import type { LayerPatch, LayerSource, ManifestPart, NamedKey } from './manifest-part.js';
import { pathPlaceholders } from './template.js';

// Files a pack's own manifest names (its fleet file, its role files, its layers' files):
// part of the pack whatever `files:` selects, so a `files:` selection taken from a preset
// (one that reads only Markdown) cannot leave them out without a word.

/** A file, or the files a glob matches, that a pack's own manifest names. */
export interface NamedFile {
  /** A glob over pack-relative paths (a path without `*` or `?` is the file itself). */
  glob: string;
  /** The manifest key that names it: `fleet.file`, `registry.files`, `layers[developer]`, … */
  by: string;
  /** Where the manifest names it. */
  at: Where;
  /** One file the pack must hold (`fleet.file`): its absence is an error. */
  exact?: boolean;
}

/**
 * Collects the files named by the parts of an `extends` chain, merged parent first as the
 * manifest is: a part that sets a key replaces what its parents named under it. Presets
 * name nothing here (their `files:` already selects what they read).
 */
export class NamedFiles {
  readonly #byKey = new Map<string, NamedFile[]>();

  /** Records what `part`'s `fleet:` and `registry:` keys name. */
  part(part: ManifestPart): void {
    const own = !part.file.startsWith('preset:');
    const set = (key: NamedKey, globs: readonly (string | undefined)[], exact = false) => {
      const at = part.namedAt?.[key] ?? { file: part.file };
      const named = own
        ? globs.filter((g): g is string => g !== undefined && g !== '').map((glob) => ({ glob, by: key, at }))
        : [];
      this.#byKey.set(key, exact ? named.map((n) => ({ ...n, exact: true })) : named);
    };
    if (part.fleet?.file !== undefined) set('fleet.file', [part.fleet.file], true);
    if (part.fleet?.identities !== undefined) set('fleet.identities', [templateGlob(part.fleet.identities)]);
    if (part.registry?.files !== undefined) set('registry.files', part.registry.files);
    if (part.registry?.discover !== undefined)
      set('registry.discover', [templateGlob(part.registry.discover)]);
    if (part.registry?.discoverFiles !== undefined)
      set('registry.discover', part.registry.discoverFiles.files);
  }

  /** Records the files a layer patch's source or variants name (`own`: not a preset's). */
  layer(patch: LayerPatch, own: boolean): void {
    const key = `layers[${patch.id}]`;
    if (patch.remove) {
      this.#byKey.delete(key);
      return;
    }
    if (patch.source === undefined && patch.variants === undefined) return;
    const sources = patch.source ? [patch.source] : (patch.variants ?? []).map((v) => v.source);
    const globs = own ? sources.flatMap(sourceGlobs) : [];
    this.#byKey.set(
      key,
      globs.map((glob) => ({ glob, by: key, at: patch.at })),
    );
  }

  /** Everything named, in the order the keys were first set. */
  list(): NamedFile[] {
    return [...this.#byKey.values()].flat();
  }
}

/**
 * The glob of the files a path template can name: each placeholder one path segment's
 * worth of characters (`roles/{role}.md` → `roles/*.md`). Undefined for a template whose
 * placeholder is itself a found file's path (`{role_source}`, `{role_file}`).
 */
export function templateGlob(template: string): string | undefined {
  const names = pathPlaceholders(template);
  if (names.includes('role_source') || names.includes('role_file')) return undefined;
  return template.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, '*');
}

// --- internal ---

function sourceGlobs(source: LayerSource): string[] {
  if (source.kind === 'file') return source.paths.flatMap((p) => templateGlob(p) ?? []);
  // A chain reads its file names in every folder from its start up to the root.
  if (source.kind === 'chain') return source.files.map((f) => `**/${f}`);
  return [];
}
