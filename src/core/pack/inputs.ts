import type { Snapshot } from '../build/snapshot.js';
import type { InputFormat } from '../layout.js';
import { type Diagnostic, error } from '../text/diagnostics.js';
import { ownValue, setOwn } from '../text/own.js';
import { closestNames, didYouMean, knownList, LISTED_NAMES } from '../text/suggest.js';
import { shownValue } from '../text/value-shown.js';
import type { InputDef, Manifest } from './manifest.js';
import { parseSettingValue, type SettingDef, type SettingValue } from './settings.js';
import { inputPlaceholders, recordInputPlaceholders } from './template.js';

// Request inputs (`--var KEY=VALUE`, API `vars`, query `var.KEY`): declared in the manifest
// under `inputs:`, typed and checked like settings, never read from the environment. An
// input without a default is required wherever a placeholder names it.

export type InputSource = 'default' | 'request';

export interface ResolvedInputs {
  /**
   * Values given by the request, or defaults, parsed by type; a formatted input's value is
   * the text its format writes it as.
   */
  values: Record<string, SettingValue>;
  /** Each value as templates write it (by the input's `format`). */
  texts: Record<string, string>;
  sources: Record<string, InputSource>;
}

/** Whether a manifest takes request inputs at all. */
export function takesInputs(manifest: Pick<Manifest, 'inputs' | 'openInputs'>): boolean {
  return manifest.inputs.length > 0 || manifest.openInputs !== undefined;
}

/**
 * Checks a request's vars against the manifest's inputs: unknown names (UNKNOWN_INPUT,
 * listing the known ones; the first dozen each, the rest counted in one more), values of the wrong type (INVALID_INPUT, saying what is
 * accepted). Defaults fill the inputs the request leaves out.
 */
export function resolveInputs(
  manifest: Pick<Manifest, 'inputs' | 'openInputs'>,
  vars: Readonly<Record<string, unknown>> | undefined,
  formats: ReadonlyMap<string, InputFormat>,
): { inputs: ResolvedInputs; diagnostics: Diagnostic[] } {
  const values: Record<string, SettingValue> = {};
  const texts: Record<string, string> = {};
  const sources: Record<string, InputSource> = {};
  const diagnostics: Diagnostic[] = [];
  for (const def of manifest.inputs) {
    if (def.default === undefined) continue;
    const format = def.format === undefined ? undefined : formats.get(def.format);
    const text = textOf(def.default, format);
    setOwn(texts, def.name, text);
    setOwn(values, def.name, format ? text : def.default);
    setOwn(sources, def.name, 'default');
  }
  if (vars === undefined) return { inputs: { values, texts, sources }, diagnostics };
  let unknown = 0;
  for (const name of Object.keys(vars)) {
    const raw = ownValue(vars, name);
    // As everywhere in a request: an undefined value is an absent one.
    if (raw === undefined) continue;
    const def = inputDef(manifest, name);
    if (!def) {
      // A dozen named, each with its closest inputs; the rest counted (as unknown settings).
      if (++unknown > LISTED_NAMES) continue;
      const names = manifest.inputs.map((i) => i.name);
      const suggestions = closestNames(name, names);
      const d = error(
        'UNKNOWN_INPUT',
        `unknown input ${JSON.stringify(name)}${didYouMean(suggestions)}; known inputs: ${knownList(names)}`,
      );
      diagnostics.push(suggestions.length > 0 ? { ...d, suggestions } : d);
      continue;
    }
    const format = def.format === undefined ? undefined : formats.get(def.format);
    if (format) {
      const written = format.write(raw);
      if ('problem' in written) {
        diagnostics.push(
          error('INVALID_INPUT', `input ${name}: value ${shownValue(raw)} is invalid; ${written.problem}`),
        );
        continue;
      }
      setOwn(values, name, written.text);
      setOwn(texts, name, written.text);
      setOwn(sources, name, 'request');
      continue;
    }
    const parsed = parseSettingValue(asSetting(def, name), raw);
    if ('problem' in parsed) {
      diagnostics.push(
        error('INVALID_INPUT', `input ${name}: value ${shownValue(raw)} is invalid; ${parsed.problem}`),
      );
      continue;
    }
    setOwn(values, name, parsed.value);
    setOwn(texts, name, String(parsed.value));
    setOwn(sources, name, 'request');
  }
  if (unknown > LISTED_NAMES)
    diagnostics.push(
      error(
        'UNKNOWN_INPUT',
        `${unknown - LISTED_NAMES} more unknown inputs (${unknown} in all); known inputs: ${knownList(manifest.inputs.map((i) => i.name))}`,
      ),
    );
  return { inputs: { values, texts, sources }, diagnostics };
}

/** The MISSING_INPUT error for an input a placeholder needs and the request does not give. */
export function missingInput(name: string, where: string, file?: string): Diagnostic {
  return error(
    'MISSING_INPUT',
    `input ${name} has no value: ${where} uses it; ${giveOnCommandLine(name)}`,
    file === undefined ? {} : { file },
  );
}

/**
 * A diagnostic as a library caller is told it: a MISSING_INPUT (from {@link missingInput})
 * says to give the input in the request's `vars`, not with `--var`; any other is unchanged.
 */
export function inLibraryWords(d: Diagnostic): Diagnostic {
  const name = missingInputName(d);
  const said = name === undefined ? '' : giveOnCommandLine(name);
  if (name === undefined || !d.message.endsWith(said)) return d;
  return { ...d, message: `${d.message.slice(0, -said.length)}${giveInRequest(name)}` };
}

/** The input a MISSING_INPUT diagnostic (from {@link missingInput}) names, else undefined. */
export function missingInputName(d: Diagnostic): string | undefined {
  if (d.code !== 'MISSING_INPUT') return undefined;
  return /^input (\S+) has no value:/.exec(d.message)?.[1];
}

/** An input as tools list it: its definition, and whether a request must give it. */
export interface ListedInput extends InputDef {
  required: boolean;
}

/**
 * The inputs a pack takes, for `explain`, the inspector and `/api/settings`: the declared
 * ones, then (with open inputs) every other name a placeholder uses in a role record's
 * string fields or a layer's text, sorted.
 */
export function listInputs(snapshot: Snapshot): ListedInput[] {
  const { manifest } = snapshot;
  const out: ListedInput[] = manifest.inputs.map((i) => ({ ...i, required: i.default === undefined }));
  if (!manifest.openInputs) return out;
  const seen = new Set([...out.map((i) => i.name), ...manifest.settings.map((s) => s.name)]);
  const used = new Set<string>();
  const scan = (text: string, record = false) => {
    const names = record
      ? recordInputPlaceholders(text, manifest.inputSyntax)
      : inputPlaceholders(text, manifest.inputSyntax);
    for (const name of names) if (!seen.has(name) && !name.includes('.')) used.add(name);
  };
  for (const role of snapshot.roles.values())
    for (const value of Object.values(role.fields)) if (typeof value === 'string') scan(value, true);
  for (const layer of manifest.layers)
    for (const s of [layer.source, ...(layer.variants ?? []).map((v) => v.source)])
      if (s?.kind === 'text') scan(s.text);
  const shape = manifest.openInputs;
  for (const name of [...used].sort()) out.push({ ...shape, name, required: shape.default === undefined });
  return out;
}

// --- internal ---

/** How the CLI and the HTTP API say to give a missing input. */
function giveOnCommandLine(name: string): string {
  return `give --var ${name}=VALUE (API: vars.${name})`;
}

/** How a library caller is told to give a missing input: a key of the request's `vars`. */
function giveInRequest(name: string): string {
  const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
  return `give it in the request: vars: { ${key}: … }`;
}

/** The definition of input `name`: a declared one, else the open inputs' shape. */
function inputDef(
  manifest: Pick<Manifest, 'inputs' | 'openInputs'>,
  name: string,
): Omit<InputDef, 'name'> | undefined {
  return manifest.inputs.find((i) => i.name === name) ?? manifest.openInputs;
}

/**
 * An input's definition as a setting's, for parsing a request's value of it by type (its
 * `format`, which no setting has, is carried along unread: a spread is much cheaper than
 * a rest pattern leaving it out).
 */
function asSetting(def: Omit<InputDef, 'name'>, name: string): SettingDef {
  return { ...def, name, default: def.default ?? '' };
}

/** A default (a scalar) as templates write it. */
function textOf(value: SettingValue, format: InputFormat | undefined): string {
  const written = format?.write(value);
  return written && 'text' in written ? written.text : String(value);
}
