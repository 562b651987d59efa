import { ByteCache } from './byte-cache.js';
import type { SettingValue } from './settings.js';

// Small, strict template forms:
// - path templates, `roles/{role}.md`, with the request's role, team, agent, role_file,
//   role_source and declared inputs;
// - text templates, `Intensity: {{ponytail_intensity}}`, with setting values, role record
//   fields (`{{role.goal}}`) and request inputs in the manifest's input syntax
//   (`{{name}}`, or `{name}`).
// Unknown names are found at load; nothing is evaluated.

export const PATH_PLACEHOLDERS = ['role', 'team', 'agent', 'role_file', 'role_source'] as const;
export type PathPlaceholder = (typeof PATH_PLACEHOLDERS)[number];

const PATH_RE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const TEXT_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)?)\s*\}\}/g;
/** `{name}` not inside `{{…}}`: the single-brace input form (names may hold `-`). */
const SINGLE_RE = /(?<!\{)\{([A-Za-z_][A-Za-z0-9_-]*)\}(?!\})/g;
const BOTH_RE = new RegExp(`${TEXT_RE.source}|${SINGLE_RE.source}`, 'g');

/** The values a text template may read. */
export interface TemplateValues {
  settings: Readonly<Record<string, SettingValue>>;
  /** The value of an input, or undefined when the request gives none and it has no default. */
  input(name: string): string | undefined;
  /** Whether a name is an input (declared, or any name when inputs are open). */
  isInput(name: string): boolean;
  /** A field of the requested role's record, already filled with inputs. */
  field?(name: string): { value: string } | { missing: 'role' | 'field' | 'input'; name: string };
}

export type FillOutcome = { text: string } | { missing: 'role' | 'field' | 'input'; name: string };

export function pathPlaceholders(template: string): string[] {
  return [...template.matchAll(PATH_RE)].map((m) => m[1]!);
}

export function textPlaceholders(template: string): string[] {
  return [...template.matchAll(TEXT_RE)].map((m) => m[1]!);
}

/**
 * Fills a path template. Returns the path, or the first placeholder without a value
 * (the layer is then skipped with reason `no-value`).
 */
export function fillPath(
  template: string,
  values: Readonly<Partial<Record<PathPlaceholder, string>>>,
): { path: string } | { missing: string } {
  const parts = compiled(template);
  let path = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const v = values[parts[i] as PathPlaceholder];
    if (v === undefined || v === '') return { missing: parts[i]! };
    path += v + parts[i + 1]!;
  }
  return { path };
}

export function fillText(template: string, settings: Readonly<Record<string, SettingValue>>): string {
  return template.replace(TEXT_RE, (_, name: string) => String(settings[name] ?? ''));
}

/** Input names a template writes in the given syntax. */
export function inputPlaceholders(template: string, syntax: '{name}' | '{{name}}'): string[] {
  const re = syntax === '{name}' ? SINGLE_RE : TEXT_RE;
  return [...template.matchAll(re)].map((m) => m[1]!);
}

/**
 * Fills a text template in one pass: `{{setting}}`, `{{role.FIELD}}`, and inputs in the
 * manifest's syntax. The first value that is missing is returned instead of a text.
 */
export function fillTemplate(
  template: string,
  syntax: '{name}' | '{{name}}',
  values: TemplateValues,
): FillOutcome {
  let missing: { missing: 'role' | 'field' | 'input'; name: string } | undefined;
  const text = template.replace(
    syntax === '{name}' ? BOTH_RE : TEXT_RE,
    (all, double?: string, single?: string) => {
      if (missing) return all;
      if (double !== undefined) {
        if (double.startsWith('role.') && values.field) {
          const f = values.field(double.slice(5));
          if ('value' in f) return f.value;
          missing = f;
          return all;
        }
        if (Object.hasOwn(values.settings, double)) return String(values.settings[double]);
        if (syntax === '{name}' || !values.isInput(double)) return '';
        single = double;
      }
      const v = values.input(single!);
      if (v === undefined) missing = { missing: 'input', name: single! };
      return v ?? all;
    },
  );
  return missing ?? { text };
}

/**
 * Fills the input placeholders of a record value (CrewAI fills `{topic}` in role, goal and
 * backstory from the run's inputs). Text that is not an input placeholder is kept as is.
 */
export function fillInputs(
  value: string,
  syntax: '{name}' | '{{name}}',
  values: Pick<TemplateValues, 'input' | 'isInput'>,
): FillOutcome {
  let missing: { missing: 'input'; name: string } | undefined;
  const text = value.replace(syntax === '{name}' ? SINGLE_RE : TEXT_RE, (all, name: string) => {
    if (missing || !values.isInput(name)) return all;
    const v = values.input(name);
    if (v === undefined) missing = { missing: 'input', name };
    return v ?? all;
  });
  return missing ?? { text };
}

// --- internal ---

/** Split templates, across every manifest the process has seen: bounded by bytes. */
const compiledPaths = new ByteCache<string[]>(1024 * 1024);

/** `a/{role}.md` → ['a/', 'role', '.md']: literals at even indexes, names at odd ones. */
function compiled(template: string): string[] {
  let parts = compiledPaths.get(template);
  if (!parts) {
    parts = template.split(PATH_RE);
    compiledPaths.set(template, parts, template.length * 4 + parts.length * 64 + 96);
  }
  return parts;
}
