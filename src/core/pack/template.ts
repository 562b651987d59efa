import { ownValue } from '../text/own.js';
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
/**
 * `{name}` in a role record's value: anywhere, `{{name}}` too (its inner `{name}` is
 * filled and the outer braces kept). Record values take only inputs.
 */
const RECORD_SINGLE_RE = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;

/** The values a text template may read. */
export interface TemplateValues {
  settings: Readonly<Record<string, SettingValue>>;
  /** The value of an input, or undefined when the request gives none and it has no default. */
  input(name: string): string | undefined;
  /** Whether a name is an input (declared, or any name when inputs are open). */
  isInput(name: string): boolean;
  /** A field of the requested role's record, already filled with inputs. */
  field?(
    name: string,
  ): { value: string } | { missing: 'role' | 'field' | 'input'; name: string } | { tooLarge: true };
}

/**
 * A filled template, the first value it lacks, or `tooLarge` when filling it grew past the
 * length it was allowed (it stopped there).
 */
export type FillOutcome =
  | { text: string }
  | { missing: 'role' | 'field' | 'input'; name: string }
  | { tooLarge: true };

export function pathPlaceholders(template: string): string[] {
  return [...template.matchAll(PATH_RE)].map((m) => m[1]!);
}

export function textPlaceholders(template: string): string[] {
  return [...template.matchAll(TEXT_RE)].map((m) => m[1]!);
}

/** Each `{{name}}` placeholder's name with the text it is written as (`{{ name }}`). */
export function textPlaceholdersWritten(template: string): Array<[name: string, written: string]> {
  return [...template.matchAll(TEXT_RE)].map((m) => [m[1]!, m[0]]);
}

/**
 * Fills a path template. Returns the path, or the first placeholder without a value
 * (the layer is then skipped with reason `no-value`).
 */
export function fillPath(
  template: string,
  values: Readonly<Partial<Record<PathPlaceholder, string>>>,
): { path: string } | { missing: string } {
  return fillSplitPath(splitPath(template), values);
}

/** A path template split into literals (even indexes) and placeholder names (odd ones). */
export function splitPath(template: string): string[] {
  return template.split(PATH_RE);
}

/** Fills a path template split by {@link splitPath}, as {@link fillPath} does. */
export function fillSplitPath(
  parts: readonly string[],
  values: Readonly<Partial<Record<PathPlaceholder, string>>>,
): { path: string } | { missing: string } {
  let path = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const v = values[parts[i] as PathPlaceholder];
    if (v === undefined || v === '') return { missing: parts[i]! };
    path += v + parts[i + 1]!;
  }
  return { path };
}

/**
 * Fills `{{setting}}` placeholders with setting values (an unknown name is empty).
 * Undefined when the text grows past `maxLength` characters (it stops there).
 */
export function fillText(
  template: string,
  settings: Readonly<Record<string, SettingValue>>,
  maxLength = Number.POSITIVE_INFINITY,
): string | undefined {
  let text = '';
  let last = 0;
  for (const m of template.matchAll(TEXT_RE)) {
    text += template.slice(last, m.index) + String(ownValue(settings, m[1]!) ?? '');
    if (text.length > maxLength) return undefined;
    last = m.index + m[0].length;
  }
  text += template.slice(last);
  return text.length > maxLength ? undefined : text;
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
  maxLength = Number.POSITIVE_INFINITY,
): FillOutcome {
  return fillCompiled(compileTemplate(template, syntax), values, maxLength);
}

/** A text template split once into literals and placeholders (see {@link fillCompiled}). */
export interface CompiledTemplate {
  syntax: '{name}' | '{{name}}';
  /** Literal text at even indexes; placeholders at odd ones. */
  parts: ReadonlyArray<string | TemplatePlaceholder>;
  /** How many `{{role.FIELD}}` placeholders it has, and their fields, each once, joined by `, `. */
  fields?: { count: number; names: string };
}

/** One placeholder of a compiled template: `{{double}}` or `{single}`, as written. */
export interface TemplatePlaceholder {
  all: string;
  double?: string;
  single?: string;
  /** The role field a `{{role.FIELD}}` names (`FIELD`), made once with the template. */
  field?: string;
}

/** Splits a text template into literals and placeholders, for filling many times. */
export function compileTemplate(template: string, syntax: '{name}' | '{{name}}'): CompiledTemplate {
  const parts: Array<string | TemplatePlaceholder> = [];
  let last = 0;
  for (const m of template.matchAll(syntax === '{name}' ? BOTH_RE : TEXT_RE)) {
    parts.push(template.slice(last, m.index));
    const p: TemplatePlaceholder = { all: m[0] };
    if (m[1] !== undefined) {
      p.double = m[1];
      if (m[1].startsWith('role.')) p.field = m[1].slice(5);
    } else p.single = m[2];
    parts.push(p);
    last = m.index + m[0].length;
  }
  parts.push(template.slice(last));
  const fields = parts.flatMap((p) => (typeof p === 'string' || p.field === undefined ? [] : [p.field]));
  if (fields.length === 0) return { syntax, parts };
  return { syntax, parts, fields: { count: fields.length, names: [...new Set(fields)].join(', ') } };
}

/**
 * Fills a compiled template, as {@link fillTemplate} does: `{{role.FIELD}}` from the
 * role's record, `{{setting}}` from settings, inputs; the first missing value is returned,
 * and `tooLarge` as soon as the text grows past `maxLength` characters.
 */
export function fillCompiled(
  template: CompiledTemplate,
  values: TemplateValues,
  maxLength = Number.POSITIVE_INFINITY,
  /** Given: each placeholder's value, in order (for provenance). */
  pieces?: string[],
): FillOutcome {
  const { parts, syntax } = template;
  let text = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const p = parts[i] as TemplatePlaceholder;
    let single = p.single;
    const double = p.double;
    let value: string | undefined;
    if (double !== undefined) {
      if (values.field && p.field !== undefined) {
        const f = values.field(p.field);
        if (!('value' in f)) return f;
        value = f.value;
      } else if (Object.hasOwn(values.settings, double)) value = String(values.settings[double]);
      else if (syntax === '{name}' || !values.isInput(double)) value = '';
      else single = double;
    }
    if (value === undefined) {
      value = values.input(single!);
      if (value === undefined) return { missing: 'input', name: single! };
    }
    pieces?.push(value);
    text += value + (parts[i + 1] as string);
    if (text.length > maxLength) return { tooLarge: true };
  }
  return { text };
}

/** Input names a role record's value writes in the given syntax (see {@link fillInputs}). */
export function recordInputPlaceholders(value: string, syntax: '{name}' | '{{name}}'): string[] {
  return [...value.matchAll(syntax === '{name}' ? RECORD_SINGLE_RE : TEXT_RE)].map((m) => m[1]!);
}

/**
 * Fills the input placeholders of a record value, in one pass: `{topic}` from the
 * request's inputs (in the `{name}` syntax a `{{topic}}` is filled inside its outer
 * braces). Text that is not an input placeholder is kept as is, and an input's value is
 * not read again for placeholders (a layout may fill otherwise: `Layout.fillRecord`).
 */
export function fillInputs(
  value: string,
  syntax: '{name}' | '{{name}}',
  values: Pick<TemplateValues, 'input' | 'isInput'>,
  maxLength = Number.POSITIVE_INFINITY,
): FillOutcome {
  if (!value.includes('{')) return { text: value };
  return fillCompiledInputs(compileInputs(value, syntax), values, maxLength);
}

/** Splits a record value into literals and its input placeholders (see {@link fillCompiledInputs}). */
export function compileInputs(value: string, syntax: '{name}' | '{{name}}'): CompiledTemplate {
  if (syntax === '{name}') return compileSingle(value);
  const parts: Array<string | TemplatePlaceholder> = [];
  let last = 0;
  for (const m of value.matchAll(TEXT_RE)) {
    parts.push(value.slice(last, m.index), { all: m[0], single: m[1]! });
    last = m.index + m[0].length;
  }
  parts.push(value.slice(last));
  return { syntax, parts };
}

/** Fills a value compiled by {@link compileInputs}, as {@link fillInputs} does. */
export function fillCompiledInputs(
  compiled: CompiledTemplate,
  values: Pick<TemplateValues, 'input' | 'isInput'>,
  maxLength = Number.POSITIVE_INFINITY,
  /** Given: each placeholder's value, in order (its text as written when it is no input). */
  pieces?: string[],
): FillOutcome {
  const parts = compiled.parts;
  let text = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const p = parts[i] as TemplatePlaceholder;
    const name = p.single!;
    let value = p.all;
    if (values.isInput(name)) {
      const v = values.input(name);
      if (v === undefined) return { missing: 'input', name };
      value = v;
    }
    pieces?.push(value);
    text += value + (parts[i + 1] as string);
    if (text.length > maxLength) return { tooLarge: true };
  }
  return { text };
}

/**
 * {@link compileInputs} in the `{name}` syntax: the matches of {@link RECORD_SINGLE_RE},
 * found by a scan rather than the regular expression (a record's first compose on a new
 * pack version compiles each of its fields: a long backstory's iterator and match objects
 * were a quarter of that compose).
 */
function compileSingle(value: string): CompiledTemplate {
  const parts: Array<string | TemplatePlaceholder> = [];
  let last = 0;
  let open = value.indexOf('{');
  while (open !== -1) {
    let end = open + 1;
    if (end < value.length && isNameStart(value.charCodeAt(end))) {
      end++;
      while (end < value.length && isNamePart(value.charCodeAt(end))) end++;
      if (value.charCodeAt(end) === CLOSE) {
        parts.push(value.slice(last, open), {
          all: value.slice(open, end + 1),
          single: value.slice(open + 1, end),
        });
        last = end + 1;
        open = value.indexOf('{', last);
        continue;
      }
    }
    // No placeholder opens here: the next `{` may start one (it may be the one that ended this try).
    open = value.indexOf('{', open + 1);
  }
  parts.push(value.slice(last));
  return { syntax: '{name}', parts };
}

const CLOSE = 0x7d;

/** `[A-Za-z_]` */
function isNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

/** `[A-Za-z0-9_-]` */
function isNamePart(c: number): boolean {
  return isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d;
}
