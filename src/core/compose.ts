import { outcomeBytes } from './compose-bytes.js';
import { memoCompose } from './compose-memo.js';
import { type Diagnostic, error, PromptError, warning } from './diagnostics.js';
import { describeGate, evaluateGate, type GateContext } from './gates.js';
import { type InputSource, missingInput, resolveInputs, takesInputs } from './inputs.js';
import type { LayerDef, LayerSource, VariantDef } from './manifest.js';
import { isValidName } from './names.js';
import { normalisePackPath } from './pack-path.js';
import { operatorPath, pathSettingNames } from './path-settings.js';
import { checkRequestNames, closestRoles } from './request-names.js';
import { applyOverrides, type SettingSource, type SettingValue } from './settings.js';
import type { PackFile, Snapshot } from './snapshot.js';
import { snapshotCache } from './snapshot-cache.js';
import { didYouMean } from './suggest.js';
import {
  type FillOutcome,
  fillInputs,
  fillPath,
  fillTemplate,
  fillText,
  pathPlaceholders,
  type TemplateValues,
} from './template.js';
import { decodeLossy, isBlank, sha256, toBytes, utf8Length } from './text.js';

/** What to compose for. */
export interface ComposeRequest {
  role?: string;
  team?: string;
  agent?: string;
  /** Text for the `ambient` input layer. */
  ambient?: string;
  /** Setting overrides (`--set`, query `set.KEY`, body `settings`); strings are parsed by type. */
  settings?: Readonly<Record<string, unknown>>;
  /** Request inputs the manifest declares (`--var`, query `var.KEY`, body `vars`); parsed by type. */
  vars?: Readonly<Record<string, unknown>>;
}

/** Why a layer was left out of a prompt (the closed set). */
export const SKIP_REASONS = ['gated', 'missing', 'empty', 'no-value'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** One file of a multi-file layer (a chain), with its place in the result text. */
export interface LayerPart {
  /** Pack-relative file. */
  source: string;
  included: boolean;
  /** Why the file is not in the text: blank, or no budget left. */
  reason?: 'empty' | 'budget';
  start?: number;
  end?: number;
  bytes?: number;
  sha256?: string;
  /** Set when the text was cut to the layer's byte budget: the bytes before the cut. */
  truncatedFrom?: number;
}

/** One layer of the pipeline in a result: included or not, why, and from where. */
export interface LayerResult {
  id: string;
  included: boolean;
  /** Why the layer is not in the text. */
  reason?: SkipReason;
  /** The gate that was false (reason `gated`), in readable form. */
  gate?: string;
  /** The placeholder without a value (reason `no-value`). */
  placeholder?: string;
  kind: LayerSource['kind'] | 'none';
  /** Pack-relative file the text came from (for role fields: the role file). */
  source?: string;
  /** The role record field (kind `role_field`). */
  field?: string;
  /** Index of the variant taken, for layers with variants. */
  variant?: number;
  /** Whether an `append` template was added to the text. */
  appended?: boolean;
  /** Files of a chain layer, root first, each with its range. */
  parts?: LayerPart[];
  /** Set when the layer's text was cut to its byte budget: the bytes before the cut. */
  truncatedFrom?: number;
  /** Set when a file's frontmatter parsed only with its values quoted (lenient frontmatter). */
  frontmatterRetried?: true;
  /** Byte range [start, end) of the layer's text in the result text (UTF-8). */
  start?: number;
  end?: number;
  bytes?: number;
  sha256?: string;
}

/** A composed prompt with its provenance. */
export interface ComposeResult {
  version: string;
  text: string;
  sha256: string;
  bytes: number;
  role?: string;
  team?: string;
  agent?: string;
  settings: Record<string, SettingValue>;
  settingSources: Record<string, SettingSource>;
  /** Request inputs, for packs that declare them. */
  inputs?: Record<string, SettingValue>;
  inputSources?: Record<string, InputSource>;
  layers: LayerResult[];
  /** True when no layer was included and the manifest's fallback is the text. */
  fallback: boolean;
  /** Warnings of this compose (FALLBACK_USED, …). */
  diagnostics: Diagnostic[];
}

export type ComposeOutcome = { ok: true; result: ComposeResult } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Composes a prompt (docs/pack-format.md, the manifest's `layers:`). Pure: reads only the
 * snapshot and the request, and gives the same bytes for the same inputs. Never throws;
 * bad requests come back as diagnostics. Outcomes are memoised per snapshot and request
 * in the shared byte-bounded cache and are frozen: read-only, shared between callers.
 */
export function tryCompose(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome {
  return memoCompose(snapshot, request, () => composeFresh(snapshot, request), outcomeBytes);
}

function composeFresh(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome {
  const diagnostics: Diagnostic[] = [];
  const { manifest } = snapshot;

  // 1. Names, then what the fleet knows about the agent.
  for (const key of ['role', 'team', 'agent'] as const) {
    const value = request[key];
    if (value !== undefined && !isValidName(value)) {
      diagnostics.push(
        error(
          'BAD_NAME',
          `${key} ${JSON.stringify(value)} is not a valid name (letters, digits, . _ -; no "..")`,
        ),
      );
    }
  }
  // A path setting names a file: only the operator may set one, never a request.
  const paths = pathSettingNames(manifest);
  for (const key of Object.keys(request.settings ?? {})) {
    if (paths.has(key)) {
      diagnostics.push(
        error(
          'PATH_SETTING_IN_REQUEST',
          `setting ${key} names a file and cannot be set by a request; the operator sets it (env var, serve --set, the manifest)`,
        ),
      );
    }
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  const member = request.agent === undefined ? undefined : memoFor(snapshot).fleet.get(request.agent);
  const role = request.role ?? member?.role;
  const team = request.team ?? member?.team;
  const agent = request.agent;
  const record = role === undefined ? undefined : snapshot.roles.get(role);
  if (role !== undefined && !record && snapshot.roles.size > 0) {
    return { ok: false, diagnostics: [unknownRole(snapshot, role)] };
  }
  const names = checkRequestNames(snapshot, {
    role,
    team,
    agent,
    member,
    roleGiven: request.role !== undefined,
  });
  diagnostics.push(...names.diagnostics);
  if (diagnostics.some((d) => d.severity === 'error')) return { ok: false, diagnostics };

  // 2. Settings: request over env over default.
  const { settings, diagnostics: sd } = applyOverrides(
    manifest.settings,
    snapshot.settings,
    request.settings,
  );
  if (sd.length > 0) return { ok: false, diagnostics: sd };
  const { inputs, diagnostics: id } = resolveInputs(manifest, request.vars);
  if (id.length > 0) return { ok: false, diagnostics: id };

  // 3. Every layer, in order.
  const ctx: GateContext = { settings: settings.values, role, team, agent };
  const inputText: Record<string, string> = {};
  for (const [k, v] of Object.entries(inputs.values)) inputText[k] = String(v);
  const placeholders = {
    ...inputText,
    role,
    team,
    agent,
    role_file: record?.roleFile ?? role,
    role_source: record?.source,
  };
  const env: LayerEnv = {
    snapshot,
    ctx,
    placeholders,
    request,
    diagnostics,
    inputs: inputText,
    unknown: names.unknown,
  };
  const pieces: string[] = [];
  const layers: LayerResult[] = [];
  let offset = 0;
  const sepBytes = utf8Length(manifest.separator);
  for (const layer of manifest.layers) {
    const resolved = resolveLayer(env, layer);
    if (!resolved.text) {
      layers.push(resolved.info);
      continue;
    }
    if (pieces.length > 0) {
      const sep = layer.separator ?? manifest.separator;
      offset += layer.separator === undefined ? sepBytes : utf8Length(sep);
      pieces.push(sep);
    }
    const info = resolved.info;
    info.included = true;
    info.bytes = resolved.bytes ?? utf8Length(resolved.text);
    info.start = offset;
    info.end = offset + info.bytes;
    info.sha256 = resolved.sha256 ?? sha256(resolved.text);
    for (const part of info.parts ?? []) {
      if (part.start === undefined) continue;
      part.start += offset;
      part.end! += offset;
    }
    offset = info.end;
    pieces.push(resolved.text);
    layers.push(info);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { ok: false, diagnostics };

  // 4. Join, or fall back.
  let text = pieces.join('');
  const fallback = pieces.length === 0;
  for (const l of layers)
    if (l.included && (l.truncatedFrom !== undefined || l.parts?.some((p) => p.truncatedFrom !== undefined)))
      diagnostics.push(
        warning('TRUNCATED', `layer ${l.id}: text cut to its byte budget (${l.bytes} bytes kept)`),
      );
  if (fallback) {
    text = fillText(manifest.fallback, settings.values);
    diagnostics.push(warning('FALLBACK_USED', 'no layer was included; the fallback text is the prompt'));
  }
  const result: ComposeResult = {
    version: snapshot.version,
    text,
    sha256: sha256(text),
    bytes: fallback ? utf8Length(text) : offset,
    settings: settings.values,
    settingSources: settings.sources,
    layers,
    fallback,
    diagnostics,
  };
  if (takesInputs(manifest)) {
    result.inputs = inputs.values;
    result.inputSources = inputs.sources;
  }
  if (role !== undefined) result.role = role;
  if (team !== undefined) result.team = team;
  if (agent !== undefined) result.agent = agent;
  return { ok: true, result };
}

/**
 * {@link tryCompose} without the memo, telling `onRead` every pack path the compose looked
 * up (found or not): the outcome can change between two snapshots only when one of these
 * files, the member's fleet entry or role record, or the pack-wide inputs (manifest,
 * settings, root, outside files) differ. The reload comparison uses this to recompose
 * only the members an edit can reach.
 */
export function composeReading(
  snapshot: Snapshot,
  request: ComposeRequest,
  onRead: (path: string) => void,
): ComposeOutcome {
  const outer = reading;
  reading = onRead;
  try {
    return composeFresh(snapshot, request);
  } finally {
    reading = outer;
  }
}

/**
 * Composes a prompt, throwing a {@link PromptError} for a bad request.
 *
 * @example
 * const snapshot = await loadPackStrict('examples/roboco');
 * const { text, layers } = compose(snapshot, { agent: 'ada', settings: { fable_mode_enabled: 'on' } });
 */
export function compose(snapshot: Snapshot, request: ComposeRequest): ComposeResult {
  const outcome = tryCompose(snapshot, request);
  if (!outcome.ok) throw new PromptError(outcome.diagnostics);
  return outcome.result;
}

/** The UNKNOWN_ROLE error, with the closest role ids and the known ones. */
export function unknownRole(snapshot: Snapshot, role: string): Diagnostic {
  const suggestions = closestRoles(snapshot, role);
  const d = error(
    'UNKNOWN_ROLE',
    `unknown role ${JSON.stringify(role)}${didYouMean(suggestions)}; known roles: ${[...snapshot.roles.keys()].join(', ')}`,
  );
  if (suggestions.length > 0) d.suggestions = suggestions;
  return d;
}

/**
 * Strict mode: a composed result with warnings fails, its warnings becoming errors (the
 * CLI's `--strict`, the API's `strict` flag, `serve --strict`).
 */
export function strictOutcome(outcome: ComposeOutcome): ComposeOutcome {
  if (!outcome.ok) return outcome;
  const warnings = outcome.result.diagnostics.filter((d) => d.severity === 'warning');
  if (warnings.length === 0) return outcome;
  return {
    ok: false,
    diagnostics: warnings.map((d) => ({ ...d, severity: 'error', message: `${d.message} (strict)` })),
  };
}

// --- internal ---

/** Where {@link composeReading} is told about the files the running compose looks up. */
let reading: ((path: string) => void) | undefined;

/** A pack file by path; every look-up of a compose goes through here. */
function fileAt(snapshot: Snapshot, path: string): PackFile | undefined {
  reading?.(path);
  return snapshot.files.get(path);
}

interface Resolved {
  info: LayerResult;
  text?: string;
  bytes?: number;
  sha256?: string;
}

/** What every layer of one compose reads. */
interface LayerEnv {
  snapshot: Snapshot;
  ctx: GateContext;
  placeholders: Record<string, string | undefined>;
  request: ComposeRequest;
  diagnostics: Diagnostic[];
  inputs: Record<string, string>;
  /** Names the request got wrong (already reported): their layers are not reported again. */
  unknown: ReadonlySet<string>;
}

function resolveLayer(env: LayerEnv, layer: LayerDef): Resolved {
  const { snapshot, ctx, placeholders, request, diagnostics, unknown } = env;
  if (layer.when && !evaluateGate(layer.when, ctx)) {
    return {
      info: { id: layer.id, included: false, reason: 'gated', kind: 'none', gate: describeGate(layer.when) },
    };
  }

  let chosen: VariantDef | undefined;
  let variant: number | undefined;
  if (layer.variants) {
    variant = layer.variants.findIndex((v) => !v.when || evaluateGate(v.when, ctx));
    if (variant === -1) {
      const gates = layer.variants.map((v) => (v.when ? describeGate(v.when) : 'always'));
      const gate = `no variant holds: ${gates.join(' | ')}`;
      return { info: { id: layer.id, included: false, reason: 'gated', kind: 'none', gate } };
    }
    chosen = layer.variants[variant]!;
  }
  const source = chosen ? chosen.source : layer.source!;
  const append = chosen ? chosen.append : layer.append;
  const base: LayerResult = { id: layer.id, included: false, kind: source.kind };
  if (variant !== undefined) base.variant = variant;
  const budget = budgetOf(layer, ctx);

  // Resolve the source to text (untrimmed for files: the snapshot holds trimmed text).
  let text: string | undefined;
  let raw: Uint8Array | undefined;
  let cached: { bytes: number; sha256: string } | undefined;
  switch (source.kind) {
    case 'file': {
      const found = findFile(snapshot, source, ctx, placeholders, layer, diagnostics);
      if ('noValue' in found) return { info: { ...base, reason: 'no-value', placeholder: found.noValue } };
      if ('missing' in found) {
        if (!found.reported) {
          const names = source.paths.flatMap(pathPlaceholders).map((p) => (p === 'role_file' ? 'role' : p));
          missingLayer(
            layer,
            `${found.missing} is missing`,
            { file: found.missing },
            names,
            unknown,
            diagnostics,
          );
        }
        return { info: { ...base, reason: 'missing', source: found.missing } };
      }
      const file = found.file;
      base.source = file.path;
      if (file.frontmatterRetried) base.frontmatterRetried = true;
      if (layer.trim === 'both') {
        text = file.prompt;
        cached = { bytes: file.promptBytes, sha256: file.promptSha256 };
      } else if (layer.trim === 'none' && file.raw && file.bodyOffset === 0) raw = file.raw;
      else text = trimText(file.text.slice(file.bodyOffset), layer.trim);
      break;
    }
    case 'chain':
      return resolveChain(env, layer, source, base, budget);
    case 'input': {
      if (request.ambient === undefined)
        return { info: { ...base, reason: 'no-value', placeholder: 'ambient' } };
      text = trimText(request.ambient, layer.trim);
      break;
    }
    case 'role_field': {
      const role = ctx.role;
      base.field = source.field;
      if (role === undefined) return { info: { ...base, reason: 'no-value', placeholder: 'role' } };
      const record = snapshot.roles.get(role);
      base.source = record?.source;
      const value = record?.fields[source.field];
      if (typeof value !== 'string') {
        const where = record?.source === undefined ? {} : { file: record.source };
        missingLayer(layer, `role ${role} has no ${source.field}`, where, ['role'], unknown, diagnostics);
        return { info: { ...base, reason: 'missing' } };
      }
      const filled = takesInputs(snapshot.manifest) ? fillRecordValue(env, value) : { text: value };
      if (!('text' in filled)) {
        diagnostics.push(missingInput(filled.name, `role ${role}'s ${source.field}`, record?.source));
        return { info: { ...base, reason: 'no-value', placeholder: filled.name } };
      }
      text = trimText(filled.text, layer.trim);
      break;
    }
    case 'text': {
      const used: string[] = [];
      const filled = fillTemplate(source.text, snapshot.manifest.inputSyntax, templateValues(env, used));
      if (used.length > 0) {
        base.field = [...new Set(used)].join(', ');
        base.source = snapshot.roles.get(ctx.role ?? '')?.source;
      }
      if (!('text' in filled)) return missingValue(env, layer, base, filled);
      text = trimText(filled.text, layer.trim);
      break;
    }
  }
  if (raw ? raw.length === 0 : !text) return { info: { ...base, reason: 'empty' } };
  if (append !== undefined) {
    base.appended = true;
    const tail = fillText(append, ctx.settings);
    text ??= decodeLossy(raw!);
    // A file's text is fixed by its path in a snapshot, so its appended form can be memoised.
    if (source.kind === 'file' && layer.trim === 'both' && budget === undefined)
      return { info: base, ...memoFor(snapshot).appended(base.source!, text, tail) };
    text = `${text}\n\n${tail}`;
    cached = undefined;
    raw = undefined;
  }
  if (budget !== undefined) {
    const cut = cutToBudget(raw ?? toBytes(text!), budget);
    if (isBlank(cut.text)) return { info: { ...base, reason: 'empty' } };
    if (cut.truncatedFrom !== undefined) base.truncatedFrom = cut.truncatedFrom;
    return { info: base, text: cut.text, bytes: cut.bytes };
  }
  if (raw) {
    text = decodeLossy(raw);
    if (isBlank(text)) return { info: { ...base, reason: 'empty' } };
    return { info: base, text };
  }
  if (layer.trim !== 'both' && isBlank(text!)) return { info: { ...base, reason: 'empty' } };
  return { info: base, text, ...cached };
}

/**
 * A chain layer: for each folder from the pack root down to the filled `path`, the first
 * of `files` that exists. Each file's text (raw bytes for `raw:` files) is cut to the budget
 * still left, decoded lossily, kept when not blank, and the budget shrinks by the bytes
 * kept; the kept texts are joined by `join`. Every file is a part with its own range.
 */
function resolveChain(
  env: LayerEnv,
  layer: LayerDef,
  source: Extract<LayerSource, { kind: 'chain' }>,
  base: LayerResult,
  budget: number | undefined,
): Resolved {
  const { snapshot, diagnostics } = env;
  const filled = fillPath(source.path, env.placeholders);
  if ('missing' in filled) return { info: { ...base, reason: 'no-value', placeholder: filled.missing } };
  const dir = normalisePackPath(filled.path);
  if (dir === undefined) {
    diagnostics.push(
      error(
        'PATH_OUTSIDE_PACK',
        `layer ${layer.id}: ${JSON.stringify(filled.path)} (from ${source.path}) leaves the pack`,
      ),
    );
    return { info: { ...base, reason: 'missing' } };
  }
  const folders = [''];
  if (dir !== '') {
    const segs = dir.split('/');
    for (let i = 1; i <= segs.length; i++) folders.push(segs.slice(0, i).join('/'));
  }
  const parts: LayerPart[] = [];
  const texts: string[] = [];
  let remaining = budget ?? Number.POSITIVE_INFINITY;
  let offset = 0;
  const joinBytes = utf8Length(source.join);
  for (const folder of folders) {
    const file = source.files
      .map((name) => fileAt(snapshot, folder === '' ? name : `${folder}/${name}`))
      .find((f) => f !== undefined);
    if (!file) continue;
    const part: LayerPart = { source: file.path, included: false };
    parts.push(part);
    if (remaining <= 0) {
      part.reason = 'budget';
      continue;
    }
    const whole =
      layer.trim === 'none' && file.raw && file.bodyOffset === 0
        ? file.raw
        : toBytes(trimText(file.text.slice(file.bodyOffset), layer.trim));
    const cut = cutToBudget(whole, remaining);
    if (isBlank(cut.text)) {
      part.reason = 'empty';
      continue;
    }
    remaining -= cut.used;
    if (texts.length > 0) offset += joinBytes;
    part.included = true;
    part.start = offset;
    part.end = offset + cut.bytes;
    part.bytes = cut.bytes;
    part.sha256 = sha256(cut.text);
    if (cut.truncatedFrom !== undefined) part.truncatedFrom = cut.truncatedFrom;
    offset = part.end;
    texts.push(cut.text);
  }
  base.parts = parts;
  if (parts.length === 0) return { info: { ...base, reason: 'missing' } };
  if (texts.length === 0) return { info: { ...base, reason: 'empty' } };
  return { info: base, text: texts.join(source.join), bytes: offset };
}

/** The layer's byte budget: a count, or an integer setting's value. */
function budgetOf(layer: LayerDef, ctx: GateContext): number | undefined {
  if (layer.maxBytes === undefined) return undefined;
  if (typeof layer.maxBytes === 'number') return layer.maxBytes;
  const v = ctx.settings[layer.maxBytes];
  return typeof v === 'number' ? Math.max(0, v) : undefined;
}

/** Bytes cut to a budget and decoded lossily (a cut inside a character leaves U+FFFD). */
function cutToBudget(
  bytes: Uint8Array,
  budget: number,
): { text: string; bytes: number; used: number; truncatedFrom?: number } {
  if (bytes.length <= budget) {
    const text = decodeLossy(bytes);
    return { text, bytes: utf8Length(text), used: bytes.length };
  }
  const text = decodeLossy(bytes.subarray(0, budget));
  return { text, bytes: utf8Length(text), used: budget, truncatedFrom: bytes.length };
}

function trimText(text: string, mode: LayerDef['trim']): string {
  return mode === 'both' ? text.trim() : mode === 'end' ? text.trimEnd() : text;
}

/** What a text template reads: settings, inputs, and fields of the requested role (noted in `used`). */
function templateValues(env: LayerEnv, used: string[]): TemplateValues {
  const { snapshot, ctx, inputs } = env;
  const manifest = snapshot.manifest;
  const declared = new Set(manifest.inputs.map((i) => i.name));
  const values: TemplateValues = {
    settings: ctx.settings,
    input: (name) => inputs[name],
    isInput: (name) => declared.has(name) || manifest.openInputs !== undefined,
    field: (name) => {
      if (ctx.role === undefined) return { missing: 'role', name: 'role' };
      const value = snapshot.roles.get(ctx.role)?.fields[name];
      if (value === undefined || value === null || typeof value === 'object')
        return { missing: 'field', name };
      used.push(name);
      const filled = takesInputs(manifest) ? fillRecordValue(env, String(value)) : { text: String(value) };
      return 'text' in filled ? { value: filled.text } : filled;
    },
  };
  return values;
}

function fillRecordValue(env: LayerEnv, value: string): FillOutcome {
  const manifest = env.snapshot.manifest;
  const declared = new Set(manifest.inputs.map((i) => i.name));
  return fillInputs(value, manifest.inputSyntax, {
    input: (name) => env.inputs[name],
    isInput: (name) => declared.has(name) || manifest.openInputs !== undefined,
  });
}

/** A template value that is missing: no role (skip), no field (as the layer's `missing:` says), no input (error). */
function missingValue(
  env: LayerEnv,
  layer: LayerDef,
  base: LayerResult,
  missing: Exclude<FillOutcome, { text: string }>,
): Resolved {
  const role = env.ctx.role;
  if (missing.missing === 'role') return { info: { ...base, reason: 'no-value', placeholder: 'role' } };
  if (missing.missing === 'input') {
    const record = role === undefined ? undefined : env.snapshot.roles.get(role);
    env.diagnostics.push(
      missingInput(missing.name, `layer ${layer.id}${role ? ` (role ${role})` : ''}`, record?.source),
    );
    return { info: { ...base, reason: 'no-value', placeholder: missing.name } };
  }
  const record = role === undefined ? undefined : env.snapshot.roles.get(role);
  const where = record?.source === undefined ? {} : { file: record.source };
  missingLayer(layer, `role ${role} has no ${missing.name}`, where, ['role'], env.unknown, env.diagnostics);
  return { info: { ...base, reason: 'missing', field: missing.name } };
}

function findFile(
  snapshot: Snapshot,
  source: Extract<LayerSource, { kind: 'file' }>,
  ctx: GateContext,
  placeholders: Record<string, string | undefined>,
  layer: LayerDef,
  diagnostics: Diagnostic[],
):
  | { file: NonNullable<ReturnType<Snapshot['files']['get']>> }
  | { missing: string; reported?: boolean }
  | { noValue: string } {
  // A path named by an operator-set setting (CHORUS_DEFAULT_INSTRUCTIONS_PATH) must exist;
  // outside the pack, the loader read it into the snapshot.
  if (source.pathSetting !== undefined) {
    const named = ctx.settings[source.pathSetting];
    if (typeof named === 'string' && named !== '') {
      const where = operatorPath(snapshot.root, named);
      const file =
        'pack' in where
          ? fileAt(snapshot, where.pack)
          : 'external' in where
            ? snapshot.external?.get(where.external)
            : undefined;
      if (file) return { file };
      const def = snapshot.manifest.settings.find((s) => s.name === source.pathSetting);
      const origin = def?.env && snapshot.settings.sources[def.name] === 'env' ? ` (env ${def.env})` : '';
      diagnostics.push(
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
    const filled = fillPath(template, placeholders);
    if ('missing' in filled) {
      noValue ??= filled.missing;
      continue;
    }
    const path = normalisePackPath(filled.path);
    first ??= path;
    const file = path === undefined ? undefined : fileAt(snapshot, path);
    if (file) return { file };
  }
  if (first === undefined) return { noValue: noValue ?? 'path' };
  return { missing: first };
}

/**
 * Reports a layer whose file or role field is missing, as its `missing:` policy says:
 * `error` → REQUIRED_MISSING; `warn` → LAYER_MISSING, unless the request named something
 * unknown that the layer depends on (that was already said, with suggestions).
 */
function missingLayer(
  layer: LayerDef,
  what: string,
  where: { file?: string },
  dependsOn: readonly string[],
  unknown: ReadonlySet<string>,
  diagnostics: Diagnostic[],
): void {
  if (layer.missing === 'error') {
    diagnostics.push(error('REQUIRED_MISSING', `layer ${layer.id} is required: ${what}`, where));
  } else if (layer.missing === 'warn' && !dependsOn.some((n) => unknown.has(n))) {
    diagnostics.push(warning('LAYER_MISSING', `layer ${layer.id} is left out: ${what}`, where));
  }
}

/**
 * Derived look-ups of a snapshot, built on first use. They never change what compose
 * returns, only how fast: the fleet by id (the size of the fleet), and sizes and hashes
 * of appended layer texts (in the shared byte-bounded cache).
 */
interface SnapshotMemo {
  fleet: Map<string, Snapshot['fleet'][number]>;
  /** A file's text with a filled append template, joined and measured once per file and tail. */
  appended(path: string, text: string, tail: string): { text: string; bytes: number; sha256: string };
}

const memos = new WeakMap<Snapshot, SnapshotMemo>();
/** Appended layer texts, in the shared byte-bounded cache. */
const appendedTexts = snapshotCache<{ text: string; bytes: number; sha256: string }>('appended');

function memoFor(snapshot: Snapshot): SnapshotMemo {
  let memo = memos.get(snapshot);
  if (!memo) {
    memo = {
      fleet: new Map(snapshot.fleet.map((a) => [a.id, a])),
      appended(path, text, tail) {
        const key = `${path}\0${tail}`;
        let m = appendedTexts.get(snapshot, key);
        if (!m) {
          const full = `${text}\n\n${tail}`;
          m = { text: full, bytes: utf8Length(full), sha256: sha256(full) };
          appendedTexts.set(snapshot, key, m, full.length * 2 + 160);
        }
        return m;
      },
    };
    memos.set(snapshot, memo);
  }
  return memo;
}
