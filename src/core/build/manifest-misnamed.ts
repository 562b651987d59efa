import { type Diagnostic, error } from '../text/diagnostics.js';
import type { ParsedYaml } from '../text/yaml.js';
import { MANIFEST_FILE } from './snapshot-types.js';

// A pack's manifest is read only as `strata.yaml`. One saved as `strata.yml` (or in another
// letter case) was passed over without a word: the pack was built from the layout its
// other files look like, not from the layers the operator wrote.

/**
 * BAD_MANIFEST for a file at the pack's root named like the manifest in another spelling
 * (`strata.yml`, `Strata.yaml`) whose YAML holds a manifest's keys (`layers`, `extends`,
 * …), when the pack has no `strata.yaml`; undefined otherwise (a role file
 * `strata.yml` holding only `roles:` is one).
 *
 * @example
 * misnamedManifest(['base.md', 'strata.yml'], yamlOf)?.file; // 'strata.yml'
 */
export function misnamedManifest(
  paths: readonly string[],
  yamlOf: (path: string) => ParsedYaml | undefined,
): Diagnostic | undefined {
  for (const path of paths) {
    if (path === MANIFEST_FILE || path.includes('/') || !MANIFEST_SPELLINGS.test(path)) continue;
    const value = yamlOf(path)?.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const keys = Object.keys(value).filter((k) => MANIFEST_ONLY_KEYS.includes(k));
    if (keys.length === 0) continue;
    return error(
      'BAD_MANIFEST',
      `${path} holds a manifest (${keys.join(', ')}) under a name strata does not read: the pack's manifest is ${MANIFEST_FILE}; rename it to ${MANIFEST_FILE}`,
      { file: path, line: 1, col: 1 },
    );
  }
  return undefined;
}

// --- internal ---

/** `strata.yaml` or `strata.yml` in any letter case. */
const MANIFEST_SPELLINGS = /^strata\.ya?ml$/i;

/** Keys only a manifest has (a role file of a registry keyed `roles:` has that key, and may have a name). */
const MANIFEST_ONLY_KEYS: readonly string[] = [
  'extends',
  'layers',
  'settings',
  'separator',
  'fallback',
  'registry',
  'fleet',
  'inputs',
  'input_syntax',
];
