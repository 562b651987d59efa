import { derived, pathSubstitutions } from '../build/derived.js';
import type { PackFile } from '../build/pack-file.js';
import type { Snapshot } from '../build/snapshot-types.js';
import type { RecordField, Substitution } from '../layout.js';
import { describeGate, evaluateGate, type Gate } from '../pack/gates.js';
import { missingInput } from '../pack/inputs.js';
import type { LayerDef, LayerSource, VariantDef } from '../pack/manifest.js';
import { normalisePackPath } from '../pack/pack-path.js';
import { operatorPath } from '../pack/path-settings.js';
import type { SettingValue } from '../pack/settings.js';
import {
  type CompiledTemplate,
  compileInputs,
  compileTemplate,
  type FillOutcome,
  fillCompiled,
  fillCompiledInputs,
  fillText,
  pathPlaceholders,
  type TemplatePlaceholder,
  type TemplateValues,
} from '../pack/template.js';
import { type Diagnostic, error, type Where, warning } from '../text/diagnostics.js';
import { ownValue } from '../text/own.js';
import { didYouMean, knownList } from '../text/suggest.js';
import { isBlank } from '../text/text.js';
import { resolveChain } from './chain.js';
import { closestFiles } from './closest-files.js';
import { fileAt, type LayerEnv, pathParts, placeholderValue } from './env.js';
import { promptTooLarge } from './prompt-limit.js';
import { attachSegments } from './segments.js';
import { budgetOf, cutToBudget, type RawFile, trimText } from './text-cut.js';
import type { LayerResult } from './types.js';

/**
 * Resolves one layer of the pipeline: returns its provenance, and leaves its text
 * (undefined when the layer is left out), byte length and file in `env`.
 */
export function resolveLayer(env: LayerEnv, layer: LayerDef): LayerResult {
  env.text = undefined;
  env.bytes = undefined;
  env.file = undefined;
  if (layer.when && !evaluateGate(layer.when, env)) return gated(layer, describeGate(layer.when));
  let chosen: VariantDef | undefined;
  let variant: number | undefined;
  if (layer.variants) {
    variant = layer.variants.findIndex((v) => !v.when || evaluateGate(v.when, env));
    if (variant === -1) return gated(layer, noVariantText(layer.variants));
    chosen = layer.variants[variant]!;
  }
  const source = chosen ? chosen.source : layer.source!;
  const append = chosen ? chosen.append : layer.append;
  const base: LayerResult = { id: layer.id, included: false, kind: source.kind };
  if (variant !== undefined) base.variant = variant;
  const budget = budgetOf(layer, env);
  if (source.kind === 'chain') return resolveChain(env, layer, source, base, budget);
  const resolved = sourceText(env, layer, source, base);
  if (resolved === undefined) return base;
  let { text } = resolved;
  let { bytes, raw, file } = resolved;
  if (!text) {
    base.reason = 'empty';
    return base;
  }
  if (append !== undefined) {
    base.appended = true;
    const tail = fillText(append, env.settings, env.maxBytes);
    if (tail === undefined) return tooLarge(env, layer, base, 'its appended text');
    text = `${text}\n\n${tail}`;
    bytes = undefined;
    raw = undefined;
    file = undefined;
  }
  if (budget !== undefined) {
    const cut = cutToBudget(text, bytes, raw, budget);
    if (isBlank(cut.text)) {
      base.reason = 'empty';
      return base;
    }
    if (cut.truncatedFrom !== undefined) {
      base.truncatedFrom = cut.truncatedFrom;
      env.kept ??= new Map();
      env.kept.set(base, cut.used);
      file = undefined;
    }
    env.text = cut.text;
    env.bytes = cut.bytes;
    env.file = file;
    return base;
  }
  if (layer.trim !== 'both' && isBlank(text)) {
    base.reason = 'empty';
    return base;
  }
  env.text = text;
  env.bytes = bytes;
  env.file = file;
  return base;
}

// --- internal ---

/**
 * The text of a layer's source (not a chain), trimmed as the layer says, with its UTF-8
 * length when known, the raw bytes it is the lossy decoding of (a raw file's), and the file
 * whose prompt it is as it stands. Undefined when the layer is left out (`base` says why).
 */
function sourceText(
  env: LayerEnv,
  layer: LayerDef,
  source: Exclude<LayerSource, { kind: 'chain' }>,
  base: LayerResult,
): { text: string; bytes?: number; raw?: RawFile; file?: PackFile } | undefined {
  switch (source.kind) {
    case 'file': {
      const found = findFile(env, source, layer);
      if (typeof found === 'string') {
        base.reason = 'no-value';
        base.placeholder = found;
        return undefined;
      }
      if ('missing' in found) {
        if (!found.reported && layer.missing !== 'skip') {
          const names = source.paths.flatMap(pathPlaceholders).map((p) => (p === 'role_file' ? 'role' : p));
          const suggestions = closestFiles(env.snapshot, found.missing);
          missingLayer(
            env,
            layer,
            `${found.missing} is missing${didYouMean(suggestions)}`,
            { file: found.missing },
            names,
            suggestions,
          );
        }
        base.reason = 'missing';
        base.source = found.missing;
        return undefined;
      }
      base.source = found.path;
      if (found.frontmatterRetried) base.frontmatterRetried = true;
      const text = fileText(found, layer);
      const subs = substitutionsOf(env, found.path);
      return subs.length === 0 ? text : substituted(env, layer, base, found.path, text, subs);
    }
    case 'input': {
      if (env.request.ambient === undefined) {
        base.reason = 'no-value';
        base.placeholder = 'ambient';
        return undefined;
      }
      return { text: trimText(env.request.ambient, layer.trim) };
    }
    case 'role_field': {
      base.field = source.field;
      if (env.role === undefined) {
        base.reason = 'no-value';
        base.placeholder = 'role';
        if (layer.missing === 'error') env.diagnostics.push(noRole(env, layer));
        return undefined;
      }
      const record = env.record;
      base.source = record?.source;
      const value = record && ownValue(record.fields, source.field);
      if (typeof value !== 'string') {
        const where = record?.source === undefined ? {} : { file: record.source };
        missingLayer(env, layer, `role ${env.role} has no ${source.field}`, where, ['role']);
        base.reason = 'missing';
        return undefined;
      }
      const filled = fillRecordValue(env, value, undefined, source.field);
      if ('tooLarge' in filled) {
        tooLarge(env, layer, base, `role ${env.role}'s ${source.field} filled with the request's inputs`);
        return undefined;
      }
      if (!('text' in filled)) {
        env.diagnostics.push(missingInput(filled.name, `role ${env.role}'s ${source.field}`, record?.source));
        base.reason = 'no-value';
        base.placeholder = filled.name;
        return undefined;
      }
      return { text: trimText(filled.text, layer.trim) };
    }
    case 'text': {
      const used: string[] = [];
      const compiled = compiledText(env.snapshot, source.text);
      if (compiled.parts.length === 1) return { text: trimText(source.text, layer.trim) };
      const values = new LayerValues(env, used);
      // A template of a role's fields only, filled by the engine's quicker way when it has one.
      const onlyFields =
        compiled.fields !== undefined && compiled.fields.count * 2 + 1 === compiled.parts.length;
      const flat = onlyFields ? env.hooks?.fillFields?.(env, compiled) : undefined;
      if (flat !== undefined && compiled.fields !== undefined) {
        base.field = compiled.fields.names;
        base.source = env.record?.source;
        const text = trimText(flat, layer.trim);
        attachSegments(base, env, compiled, () => fieldPieces(compiled, values), values, flat, text);
        return { text };
      }
      const pieces: string[] = [];
      const filled = fillCompiled(compiled, values, env.maxBytes, pieces);
      if (used.length > 0) {
        // Every role field of the template was read, in order, unless one was missing.
        base.field =
          used.length === compiled.fields?.count ? compiled.fields.names : [...new Set(used)].join(', ');
        base.source = env.record?.source;
      }
      if ('tooLarge' in filled) {
        tooLarge(env, layer, base, 'its text filled with settings, role fields and inputs');
        return undefined;
      }
      if (!('text' in filled)) {
        missingValue(env, layer, base, filled);
        return undefined;
      }
      const text = trimText(filled.text, layer.trim);
      // Each piece's own range: the template's text, each field, setting and input.
      attachSegments(base, env, compiled, pieces, values, filled.text, text);
      return { text };
    }
  }
}

/** Says a layer's text grew past the prompt's byte limit, and stops the compose there. */
function tooLarge(env: LayerEnv, layer: LayerDef, base: LayerResult, what: string): LayerResult {
  env.tooLarge = true;
  env.diagnostics.push(promptTooLarge(env.maxBytes, `layer ${layer.id}: ${what}`));
  return base;
}

/** NO_ROLE for a required layer made of a role's fields, composed without a role. */
function noRole(env: LayerEnv, layer: LayerDef): Diagnostic {
  const roles = [...env.snapshot.roles.keys()];
  return error(
    'NO_ROLE',
    `layer ${layer.id} is required and is made of a role's fields: give a role${roles.length > 0 ? ` (roles: ${knownList(roles)})` : ''}`,
  );
}

/** A file layer's text, trimmed as the layer says, with its length and bytes when known. */
function fileText(
  found: PackFile,
  layer: LayerDef,
): { text: string; bytes?: number; raw?: RawFile; file?: PackFile } {
  if (layer.trim === 'both') return { text: found.prompt, bytes: found.promptBytes, file: found };
  // A raw file's text is the lossy decoding of its bytes.
  if (layer.trim === 'none' && found.isRaw && found.bodyOffset === 0)
    return { text: found.text, bytes: found.textBytes, raw: found };
  return { text: trimText(found.text.slice(found.bodyOffset), layer.trim) };
}

/** The layout's substitutions in a file (`Layout.substitutions`; the rule made with the snapshot). */
function substitutionsOf(env: LayerEnv, path: string): readonly Substitution[] {
  return pathSubstitutions(env.snapshot)?.(path) ?? NO_SUBSTITUTIONS;
}

const NO_SUBSTITUTIONS: readonly Substitution[] = [];

/**
 * A file's text with each substitution's text replaced by its input's value or its runtime's
 * own text, a text kept as written said (PLACEHOLDER_KEPT); undefined when the text holds
 * one whose input has none (MISSING_INPUT, the layer without a value) or the text would
 * grow past the prompt's byte limit (PROMPT_TOO_LARGE).
 */
function substituted(
  env: LayerEnv,
  layer: LayerDef,
  base: LayerResult,
  path: string,
  found: { text: string },
  subs: readonly Substitution[],
): { text: string } | undefined {
  let text = found.text;
  for (const sub of subs) {
    if (!text.includes(sub.text)) continue;
    if ('kept' in sub) {
      env.diagnostics.push(
        warning(
          'PLACEHOLDER_KEPT',
          `${sub.text}: its runtime writes ${sub.kept} here, which strata cannot know: the text is kept as written`,
          placeWritten(env.snapshot.files.get(path), path, sub.text),
        ),
      );
      continue;
    }
    let value: string;
    if ('replacement' in sub) value = sub.replacement;
    else {
      const given = ownValue(env.inputs, sub.input);
      if (given === undefined) {
        env.diagnostics.push(
          missingInput(
            sub.input,
            `${path} writes ${sub.text} (${sub.means}, which strata cannot know) and`,
            path,
          ),
        );
        base.reason = 'no-value';
        base.placeholder = sub.input;
        return undefined;
      }
      value = given;
    }
    // Measured before it is made: a long value written many times is refused, not built.
    const pieces = text.split(sub.text);
    if (text.length + (pieces.length - 1) * (value.length - sub.text.length) > env.maxBytes) {
      const by = 'input' in sub ? `input ${sub.input}` : "its runtime's text";
      tooLarge(env, layer, base, `${path} with ${sub.text} replaced by ${by}`);
      return undefined;
    }
    text = pieces.join(value);
  }
  return text === found.text ? found : { text };
}

/** Where a file's body first writes `text` (line and column in the file), else the file. */
function placeWritten(file: PackFile | undefined, path: string, text: string): Where {
  const at = file ? file.text.indexOf(text, file.bodyOffset) : -1;
  if (!file || at === -1) return { file: path };
  const lineStart = file.text.lastIndexOf('\n', at - 1) + 1;
  let line = 1;
  for (let i = file.text.indexOf('\n'); i !== -1 && i < at; i = file.text.indexOf('\n', i + 1)) line++;
  return { file: path, line, col: at - lineStart + 1 };
}

/** The result of a layer left out by its gate (or by all its variants' gates). */
function gated(layer: LayerDef, gate: string): LayerResult {
  return { id: layer.id, included: false, reason: 'gated', kind: 'none', gate };
}

/** The reason of a layer none of whose variants holds. */
function noVariantText(variants: readonly { when?: Gate }[]): string {
  return `no variant holds: ${variants.map((v) => (v.when ? describeGate(v.when) : 'always')).join(' | ')}`;
}

/** What a text template reads: settings, inputs, and fields of the requested role (noted in `used`). */
class LayerValues implements TemplateValues {
  readonly settings: Readonly<Record<string, SettingValue>>;
  constructor(
    private readonly env: LayerEnv,
    private readonly used: string[],
  ) {
    this.settings = env.settings;
  }
  input(name: string): string | undefined {
    return ownValue(this.env.inputs, name);
  }
  isInput(name: string): boolean {
    const { manifest } = this.env.snapshot;
    return manifest.openInputs !== undefined || manifest.inputs.some((i) => i.name === name);
  }
  field(name: string): { value: string } | Exclude<FillOutcome, { text: string }> {
    const { env } = this;
    if (env.role === undefined) return { missing: 'role', name: 'role' };
    const value = env.record && ownValue(env.record.fields, name);
    if (value === undefined || value === null || typeof value === 'object') return { missing: 'field', name };
    this.used.push(name);
    const filled = fillRecordValue(env, String(value), this, name);
    return 'text' in filled ? { value: filled.text } : filled;
  }
}

/** Each placeholder's value of a template of role fields only, filled as `fillCompiled` fills them. */
function fieldPieces(compiled: CompiledTemplate, values: LayerValues): string[] {
  const pieces: string[] = [];
  for (let i = 1; i < compiled.parts.length; i += 2) {
    const f = values.field((compiled.parts[i] as TemplatePlaceholder).field!);
    pieces.push('value' in f ? f.value : '');
  }
  return pieces;
}

/**
 * A role record value with its input placeholders filled (`values`: the layer's, when it
 * has some; `field`: the field of the composed role it is, for a layout's own rule).
 */
function fillRecordValue(env: LayerEnv, value: string, values?: TemplateValues, field?: string): FillOutcome {
  if (!env.takesInputs || !value.includes('{')) return { text: value };
  const { snapshot } = env;
  const compiled = compiledRecordValue(snapshot, value);
  if (compiled.parts.length === 1) return { text: value };
  // The layout's own rule, if it has one (a preset's way of filling record values).
  const own = snapshot.preset ? snapshot.layouts?.get(snapshot.preset)?.fillRecord : undefined;
  if (!own) return fillCompiledInputs(compiled, values ?? new LayerValues(env, []), env.maxBytes);
  return own(
    compiled,
    values ?? new LayerValues(env, []),
    env.maxBytes,
    field ? recordField(env, field) : undefined,
  );
}

/** A field of the composed role's record, with its other fields as {@link fillRecordValue} fills them. */
function recordField(env: LayerEnv, name: string): RecordField {
  return {
    name,
    other(other) {
      const value = env.record && ownValue(env.record.fields, other);
      if (value === undefined || value === null || typeof value === 'object') return undefined;
      return fillRecordValue(env, String(value));
    },
  };
}

/** A role record value, split into literals and its input placeholders once per snapshot. */
function compiledRecordValue(snapshot: Snapshot, value: string): CompiledTemplate {
  const compiled = derived(snapshot, 'compiled-record-values', () => new Map<string, CompiledTemplate>());
  let found = compiled.get(value);
  if (!found) {
    found = compileInputs(value, snapshot.manifest.inputSyntax);
    compiled.set(value, found);
  }
  return found;
}

/** A layer's text template, split into literals and placeholders once per snapshot. */
function compiledText(snapshot: Snapshot, text: string): CompiledTemplate {
  const compiled = derived(snapshot, 'compiled-texts', () => new Map<string, CompiledTemplate>());
  let found = compiled.get(text);
  if (!found) {
    found = compileTemplate(text, snapshot.manifest.inputSyntax);
    compiled.set(text, found);
  }
  return found;
}

/** A template value that is missing: no role (skip), no field (as the layer's `missing:` says), no input (error). */
function missingValue(
  env: LayerEnv,
  layer: LayerDef,
  base: LayerResult,
  missing: Exclude<FillOutcome, { text: string } | { tooLarge: true }>,
): void {
  const role = env.role;
  const record = env.record;
  if (missing.missing === 'role') {
    base.reason = 'no-value';
    base.placeholder = 'role';
    // A required layer made of a role's fields has nothing to be without one: no prompt
    // of this layout is composed without a role.
    if (layer.missing === 'error') env.diagnostics.push(noRole(env, layer));
  } else if (missing.missing === 'input') {
    env.diagnostics.push(
      missingInput(missing.name, `layer ${layer.id}${role ? ` (role ${role})` : ''}`, record?.source),
    );
    base.reason = 'no-value';
    base.placeholder = missing.name;
  } else {
    const where = record?.source === undefined ? {} : { file: record.source };
    missingLayer(env, layer, `role ${role} has no ${missing.name}`, where, ['role']);
    base.reason = 'missing';
    base.field = missing.name;
  }
}

/** The file of a file layer, a missing path, or (a string) the placeholder without a value. */
function findFile(
  env: LayerEnv,
  source: Extract<LayerSource, { kind: 'file' }>,
  layer: LayerDef,
): PackFile | { missing: string; reported?: boolean } | string {
  const { snapshot } = env;
  // A path named by an operator-set setting must exist; outside the pack, the loader read
  // it into the snapshot.
  if (source.pathSetting !== undefined) {
    const named = env.settings[source.pathSetting];
    if (typeof named === 'string' && named !== '') {
      const where = operatorPath(snapshot.root, named);
      const file =
        'pack' in where
          ? fileAt(env, where.pack)
          : 'external' in where
            ? snapshot.external?.get(where.external)
            : undefined;
      if (file) return file;
      const def = snapshot.manifest.settings.find((s) => s.name === source.pathSetting);
      const origin = def?.env && snapshot.settings.sources[def.name] === 'env' ? ` (env ${def.env})` : '';
      env.diagnostics.push(
        error(
          'outside' in where ? 'PATH_OUTSIDE_PACK' : 'REQUIRED_MISSING',
          `layer ${layer.id}: setting ${source.pathSetting}${origin} names ${JSON.stringify(named)}, which ${'outside' in where ? 'is outside the pack, and the pack has no directory to resolve it against' : 'does not exist'}`,
        ),
      );
      return { missing: named, reported: true };
    }
  }
  let noValue: string | undefined;
  let first: string | undefined;
  for (const template of source.paths) {
    const parts = pathParts(env, template);
    let path = parts[0]!;
    let missing: string | undefined;
    for (let i = 1; i < parts.length; i += 2) {
      const v = placeholderValue(env, parts[i]!);
      if (v === undefined || v === '') {
        missing = parts[i]!;
        break;
      }
      path += v + parts[i + 1]!;
    }
    if (missing !== undefined) {
      noValue ??= missing;
      continue;
    }
    const normal = normalisePackPath(path);
    first ??= normal;
    const file = normal === undefined ? undefined : fileAt(env, normal);
    if (file) return file;
  }
  if (first === undefined) return noValue ?? 'path';
  return { missing: first };
}

/**
 * Reports a layer whose file or role field is missing, as its `missing:` policy says:
 * `error` → REQUIRED_MISSING; `warn` → LAYER_MISSING, unless the request named something
 * unknown that the layer depends on (that was already said, with suggestions).
 */
function missingLayer(
  env: LayerEnv,
  layer: LayerDef,
  what: string,
  where: { file?: string },
  dependsOn: readonly string[],
  suggestions: readonly string[] = [],
): void {
  const withSuggestions = (d: Diagnostic): Diagnostic =>
    suggestions.length > 0 ? { ...d, suggestions: [...suggestions] } : d;
  if (layer.missing === 'error') {
    env.diagnostics.push(
      withSuggestions(error('REQUIRED_MISSING', `layer ${layer.id} is required: ${what}`, where)),
    );
  } else if (layer.missing === 'warn' && !dependsOn.some((n) => env.unknown.has(n))) {
    env.diagnostics.push(
      withSuggestions(warning('LAYER_MISSING', `layer ${layer.id} is left out: ${what}`, where)),
    );
  }
}
