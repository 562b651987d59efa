import { type Diagnostic, error } from '../text/diagnostics.js';
import { closestNames, didYouMean, knownList, LISTED_NAMES } from '../text/suggest.js';
import { shownValue } from '../text/value-shown.js';

// Typed knobs of a pack (docs/pack-format.md, "The manifest"): request over env var over
// manifest default.

export const SETTING_TYPES = ['boolean', 'enum', 'string', 'integer'] as const;
export type SettingType = (typeof SETTING_TYPES)[number];
export type SettingValue = boolean | string | number;

export interface SettingDef {
  name: string;
  type: SettingType;
  default: SettingValue;
  env?: string;
  /** Accepted values of an enum. */
  values?: string[];
  min?: number;
  max?: number;
  description?: string;
}

/** Where a setting's value came from: the manifest, an env var, the operator (`serve --set`, CLI `--set` of a path setting) or the request. */
export const SETTING_SOURCES = ['default', 'env', 'operator', 'request'] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];

export interface ResolvedSettings {
  values: Record<string, SettingValue>;
  sources: Record<string, SettingSource>;
}

const TRUE: readonly string[] = ['true', '1', 'yes', 'on'];
const FALSE: readonly string[] = ['false', '0', 'no', 'off'];

/**
 * Parses a raw value (a string from env, `--set` or a query, or a typed JSON value) into
 * the setting's type. Returns the value, or a message saying what is accepted.
 */
export function parseSettingValue(
  def: SettingDef,
  raw: unknown,
): { value: SettingValue } | { problem: string } {
  switch (def.type) {
    case 'boolean': {
      if (typeof raw === 'boolean') return { value: raw };
      if (typeof raw === 'number' && (raw === 0 || raw === 1)) return { value: raw === 1 };
      if (typeof raw === 'string') {
        const lower = raw.trim().toLowerCase();
        if (TRUE.includes(lower)) return { value: true };
        if (FALSE.includes(lower)) return { value: false };
      }
      return { problem: 'accepted values: true/false/1/0/yes/no/on/off' };
    }
    case 'enum': {
      const values = def.values ?? [];
      if (typeof raw === 'string' && values.includes(raw)) return { value: raw };
      // A dozen named, as every list of known names: an enum of thousands of values was
      // listed whole in each refusal, once per setting a request got wrong.
      const shown =
        values.length <= LISTED_NAMES
          ? values.join('|')
          : `${values.slice(0, LISTED_NAMES).join('|')}|… (${values.length} in all)`;
      return { problem: `accepted values: ${shown}` };
    }
    case 'integer': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : Number.NaN;
      if (!Number.isSafeInteger(n)) return { problem: 'accepted values: an integer' };
      if (def.min !== undefined && n < def.min)
        return { problem: `accepted values: an integer >= ${def.min}` };
      if (def.max !== undefined && n > def.max)
        return { problem: `accepted values: an integer <= ${def.max}` };
      return { value: n };
    }
    case 'string':
      if (typeof raw === 'string') return { value: raw };
      // A number has the text JSON writes for it; one JSON has no form for (YAML's .inf,
      // .nan) is not turned into "Infinity" or "NaN".
      if (typeof raw === 'number' && !Number.isFinite(raw))
        return { problem: 'accepted values: a string (quote it to mean the text)' };
      if (typeof raw === 'number' || typeof raw === 'boolean') return { value: String(raw) };
      return { problem: 'accepted values: a string' };
  }
}

/**
 * Resolves the env layer of every setting once, at load. Invalid env values are errors
 * naming the setting, the env var, the value and the accepted values.
 */
export function resolveEnvSettings(
  defs: readonly SettingDef[],
  env: Readonly<Record<string, string | undefined>>,
): { settings: ResolvedSettings; diagnostics: Diagnostic[] } {
  const values: Record<string, SettingValue> = {};
  const sources: Record<string, SettingSource> = {};
  const diagnostics: Diagnostic[] = [];
  for (const def of defs) {
    values[def.name] = def.default;
    sources[def.name] = 'default';
    const raw = def.env ? env[def.env] : undefined;
    if (raw === undefined || def.env === undefined) continue;
    const parsed = parseSettingValue(def, raw);
    if ('problem' in parsed) {
      diagnostics.push(
        error(
          'INVALID_SETTING',
          `setting ${def.name}: env ${def.env}=${JSON.stringify(raw)} is invalid; ${parsed.problem}`,
        ),
      );
      continue;
    }
    values[def.name] = parsed.value;
    sources[def.name] = 'env';
  }
  return { settings: { values, sources }, diagnostics };
}

/**
 * Applies request overrides (`--set`, query `set.KEY`, body `settings`) over resolved
 * settings. Unknown keys are errors listing the known settings (the first dozen unknown
 * keys each, with their closest names; the rest counted in one more).
 */
export function applyOverrides(
  defs: readonly SettingDef[],
  base: ResolvedSettings,
  overrides: Readonly<Record<string, unknown>> | undefined,
  source: SettingSource = 'request',
  ignoreUnknown = false,
): { settings: ResolvedSettings; diagnostics: Diagnostic[] } {
  if (!overrides || Object.keys(overrides).length === 0) return { settings: base, diagnostics: [] };
  const values = { ...base.values };
  const sources = { ...base.sources };
  const diagnostics: Diagnostic[] = [];
  const byName = new Map(defs.map((d) => [d.name, d]));
  let unknown = 0;
  for (const [key, raw] of Object.entries(overrides)) {
    const def = byName.get(key);
    if (!def && ignoreUnknown) continue;
    if (!def) {
      // A request naming thousands of unknown settings gets a dozen named, not a
      // diagnostic listing every known setting for each (a 58 KB body once made 115 MB).
      if (++unknown > LISTED_NAMES) continue;
      const names = defs.map((d) => d.name);
      const suggestions = closestNames(key, names);
      const d = error(
        'UNKNOWN_SETTING',
        `unknown setting ${JSON.stringify(key)}${didYouMean(suggestions)}; known settings: ${knownList(names)}`,
      );
      if (suggestions.length > 0) d.suggestions = suggestions;
      diagnostics.push(d);
      continue;
    }
    const parsed = parseSettingValue(def, raw);
    if ('problem' in parsed) {
      diagnostics.push(
        error('INVALID_SETTING', `setting ${key}: value ${shownValue(raw)} is invalid; ${parsed.problem}`),
      );
      continue;
    }
    values[key] = parsed.value;
    sources[key] = source;
  }
  if (unknown > LISTED_NAMES)
    diagnostics.push(
      error(
        'UNKNOWN_SETTING',
        `${unknown - LISTED_NAMES} more unknown settings (${unknown} in all); known settings: ${knownList(defs.map((d) => d.name))}`,
      ),
    );
  return { settings: { values, sources }, diagnostics };
}

/** Parses `KEY=VALUE` pairs (as given to `--set`) into an overrides object. */
export function parseSetPairs(pairs: readonly string[]): {
  overrides: Record<string, string>;
  bad: string[];
} {
  // Prototype-free: `__proto__=x` is an (unknown) setting name, not a change of prototype.
  const overrides: Record<string, string> = Object.create(null);
  const bad: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) bad.push(pair);
    else overrides[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return { overrides, bad };
}

export function isTruthy(value: SettingValue | undefined): boolean {
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0;
  return value === true;
}
