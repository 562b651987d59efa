import { memoCompose } from '../../engine/memo/compose-memo.js';
import type { RoleRecord } from '../build/roles.js';
import type { PackFile, Snapshot } from '../build/snapshot.js';
import { evaluateGate, type GateContext } from '../pack/gates.js';
import { type InputSource, missingInput, type ResolvedInputs, resolveInputs } from '../pack/inputs.js';
import type { LayerDef, LayerSource, VariantDef } from '../pack/manifest.js';
import { isLabelName } from '../pack/names.js';
import { normalisePackPath } from '../pack/pack-path.js';
import { operatorPath } from '../pack/path-settings.js';
import { hiddenAllowed } from '../pack/select.js';
import { applyOverrides, type SettingSource, type SettingValue } from '../pack/settings.js';
import {
  type CompiledTemplate,
  compileInputs,
  type FillOutcome,
  fillCompiled,
  fillCompiledInputs,
  fillText,
  pathPlaceholders,
  type TemplateValues,
} from '../pack/template.js';
import { type Diagnostic, error, PromptError, warning } from '../text/diagnostics.js';
import { didYouMean } from '../text/suggest.js';
import { decodeLossy, isBlank, sha256, toBytes, utf8Length } from '../text/text.js';
import { misnamedFolder } from './chain-folders.js';
import { closestFiles } from './closest-files.js';
import { outcomeBytes } from './compose-bytes.js';
import { freezeLayers, freezeOutcome, NO_DIAGNOSTICS } from './compose-freeze.js';
import {
  type AppendedText,
  appendedText,
  type ComposePlan,
  compiledText,
  composePlan,
  gatedResult,
  gateText,
  type LayerPlan,
  layerPlan,
  MissingPath,
  noVariantText,
  type SourcePlan,
  sourcePlan,
  splitPaths,
  textBytes,
  validName,
} from './compose-plan.js';
import { requestShapeProblems } from './compose-request.js';
import { checkRequestNames, closestRoles } from './request-names.js';
import { sourceWarnings } from './source-warnings.js';

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
  /**
   * Set on a chain layer whose walk starts below the pack root: the folder it starts at (a
   * nested repository's root, with `start: git_root`).
   */
  chainRoot?: string;
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
 * bad requests come back as diagnostics (a request of the wrong shape from untyped code,
 * such as a number for `agent` or a string for `settings`, is BAD_REQUEST). Outcomes are memoised per snapshot and request
 * in the shared byte-bounded cache and are frozen: read-only, shared between callers.
 * The `sha256` of each layer (and chain part) is computed when it is first read: a
 * caller that wants only the text never pays for it.
 */
export function tryCompose(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome {
  const shape = requestShapeProblems(snapshot, request);
  if (shape.length > 0) return { ok: false, diagnostics: [...shape] };
  return memoCompose(snapshot, request, composeFresh, sizeOf, freezeComposed);
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
  const shape = requestShapeProblems(snapshot, request);
  if (shape.length > 0) return { ok: false, diagnostics: [...shape] };
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
  // A name that looks the same but is written with other code points (é as one, or as e
  // and a combining accent) is said to be so: the two are different ids.
  const form = suggestions.find((s) => s.normalize('NFC') === role.normalize('NFC'));
  const forms =
    form === undefined
      ? ''
      : ` (${JSON.stringify(form)} is the same text in another Unicode form: ${codePoints(role)} here, ${codePoints(form)} in the pack)`;
  const d = error(
    'UNKNOWN_ROLE',
    `unknown role ${JSON.stringify(role)}${didYouMean(suggestions)}${forms}; known roles: ${[...snapshot.roles.keys()].join(', ')}`,
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

/** Freezes an outcome; the snapshot's settings objects are frozen already (by its compose plan). */
function freezeComposed(outcome: ComposeOutcome, snapshot: Snapshot): ComposeOutcome {
  return freezeOutcome(outcome, snapshot.settings);
}

/** An upper bound of an outcome's memory (its layers are not read: they are built on first read). */
function sizeOf(outcome: ComposeOutcome, snapshot: Snapshot): number {
  return outcomeBytes(outcome, snapshot.manifest.layers.length);
}

/** Where {@link composeReading} is told about the files the running compose looks up. */
let reading: ((path: string) => void) | undefined;

/** A pack file by path; every look-up of a compose goes through here. */
function fileAt(snapshot: Snapshot, path: string): PackFile | undefined {
  reading?.(path);
  return snapshot.files.get(path);
}

/**
 * What every layer of one compose reads, and where a layer's resolved text is left. It is
 * the gates' context too (settings, role, team, agent).
 */
interface LayerEnv extends GateContext {
  /** The `role_file` and `role_source` path placeholders' values. */
  roleFile: string | undefined;
  roleSource: string | undefined;
  snapshot: Snapshot;
  plan: ComposePlan;
  request: ComposeRequest;
  diagnostics: Diagnostic[];
  inputs: Record<string, string>;
  /** Names the request got wrong (already reported): their layers are not reported again. */
  unknown: ReadonlySet<string>;
  /** The role record of the compose's role (`role`), looked up once. */
  record: RoleRecord | undefined;
  /** The result text, once the layers are joined (lazy hashes read their slices of it; made with the first). */
  joined: { text: string } | undefined;
  /** Character offset in the result text where the layer being resolved would start. */
  charStart: number;
  // The layer just resolved, when it is included:
  /** Its text (undefined: not included). */
  text: string | undefined;
  /** Its UTF-8 length, when known. */
  bytes: number | undefined;
  /** Set when the text is this file's prompt (its hash is the file's). */
  file: PackFile | undefined;
  /** Set when the text is a memoised appended text (its hash is memoised with it). */
  appended: AppendedText | undefined;
}

function composeFresh(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome {
  const { manifest } = snapshot;
  const plan = composePlan(snapshot);

  // 1. Names, then what the fleet knows about the agent.
  let early: Diagnostic[] | undefined;
  // A role id from frontmatter may be a name as people write one ("Frontend Developer"):
  // such a name the registry does not hold is an unknown role, with the closest ids (a
  // case or a Unicode form away), not a bad name; a name no registry takes is BAD_NAME.
  if (
    request.role !== undefined &&
    !validName(plan, snapshot, request.role) &&
    !snapshot.roles.has(request.role)
  )
    early = withDiagnostic(
      early,
      snapshot.roles.size > 0 && isLabelName(request.role)
        ? unknownRole(snapshot, request.role)
        : badName('role', request.role),
    );
  if (request.team !== undefined && !validName(plan, snapshot, request.team))
    early = withDiagnostic(early, badName('team', request.team));
  if (request.agent !== undefined && !validName(plan, snapshot, request.agent))
    early = withDiagnostic(early, badName('agent', request.agent));
  // A path setting names a file: only the operator may set one, never a request.
  if (request.settings !== undefined && plan.pathSettings.size > 0) {
    for (const key of Object.keys(request.settings)) {
      if (plan.pathSettings.has(key)) {
        early = withDiagnostic(
          early,
          error(
            'PATH_SETTING_IN_REQUEST',
            `setting ${key} names a file and cannot be set by a request; the operator sets it (env var, serve --set, the manifest)`,
          ),
        );
      }
    }
  }
  if (early !== undefined) return { ok: false, diagnostics: early };
  const agent = request.agent;
  const member = agent === undefined ? undefined : plan.fleet.get(agent);
  const role = request.role ?? member?.role;
  const team = request.team ?? member?.team;
  const record = role === undefined ? undefined : snapshot.roles.get(role);
  if (role !== undefined && !record && snapshot.roles.size > 0) {
    return { ok: false, diagnostics: [unknownRole(snapshot, role)] };
  }
  const diagnostics: Diagnostic[] = [];
  const unknown = checkRequestNames(snapshot, role, team, agent, member, diagnostics);
  if (hasError(diagnostics)) return { ok: false, diagnostics };

  // 2. Settings: request over env over default.
  let settings = snapshot.settings;
  if (request.settings !== undefined) {
    const applied = applyOverrides(manifest.settings, settings, request.settings);
    if (applied.diagnostics.length > 0) return { ok: false, diagnostics: applied.diagnostics };
    settings = applied.settings;
  }
  let inputs: ResolvedInputs = NO_INPUTS;
  if (plan.takesInputs || request.vars !== undefined) {
    const resolved = resolveInputs(manifest, request.vars);
    if (resolved.diagnostics.length > 0) return { ok: false, diagnostics: resolved.diagnostics };
    inputs = resolved.inputs;
  }

  // 3. Every layer, in order.
  const inputText: Record<string, string> = plan.takesInputs ? {} : NO_INPUT_TEXT;
  if (plan.takesInputs) {
    for (const k of Object.keys(inputs.texts)) inputText[k] = inputs.texts[k]!;
  }
  const env: LayerEnv = {
    settings: settings.values,
    role,
    team,
    agent,
    roleFile: record?.roleFile ?? role,
    roleSource: record?.source,
    snapshot,
    plan,
    request,
    diagnostics,
    inputs: inputText,
    unknown,
    record,
    joined: undefined,
    charStart: 0,
    text: undefined,
    bytes: undefined,
    file: undefined,
    appended: undefined,
  };
  const layers: LayerResult[] = [];
  const hashes: HashPairs = [];
  let text = '';
  let included = 0;
  let offset = 0;
  let truncated = false;
  const manifestLayers = manifest.layers;
  for (let i = 0; i < manifestLayers.length; i++) {
    const layer = manifestLayers[i]!;
    const lp = plan.layers[i] ?? layerPlan(plan, i, layer);
    const sep = lp.separator ?? manifest.separator;
    env.charStart = included > 0 ? text.length + sep.length : text.length;
    const resolved = resolveLayer(env, layer, lp);
    const layerText = env.text;
    if (!layerText) {
      layers.push(resolved as LayerResult);
      continue;
    }
    if (included > 0) {
      offset += lp.separator === undefined ? plan.separatorBytes : utf8Length(sep);
      text += sep;
    }
    included++;
    if (resolved === PLAIN_FILE) {
      // A file's prompt as it is: the whole result, made at once.
      const bytes = env.bytes!;
      const info: LayerResult = {
        id: lp.id,
        included: true,
        kind: 'file',
        source: env.file!.path,
        bytes,
        start: offset,
        end: offset + bytes,
      };
      hashes.push(info, env.file!);
      offset += bytes;
      text += layerText;
      layers.push(info);
      continue;
    }
    const info = resolved as LayerResult;
    info.included = true;
    const bytes = env.bytes ?? utf8Length(layerText);
    info.bytes = bytes;
    info.start = offset;
    info.end = offset + bytes;
    hashes.push(
      info,
      env.file ?? env.appended ?? sliceHash(env, text.length, text.length + layerText.length),
    );
    const parts = info.parts;
    if (parts !== undefined) {
      for (const part of parts) {
        if (part.reason === 'budget') truncated = true;
        if (part.start === undefined) continue;
        part.start += offset;
        part.end! += offset;
        if (part.truncatedFrom !== undefined) truncated = true;
      }
    }
    if (info.truncatedFrom !== undefined) truncated = true;
    offset = info.end;
    text += layerText;
    layers.push(info);
  }
  if (hasError(diagnostics)) return { ok: false, diagnostics };

  // 4. Join, or fall back.
  const fallback = included === 0;
  if (truncated) {
    for (const l of layers)
      if (l.included && (l.truncatedFrom !== undefined || partTruncated(l.parts)))
        diagnostics.push(truncatedWarning(l));
  }
  if (fallback) {
    text = fillText(manifest.fallback, settings.values);
    diagnostics.push(warning('FALLBACK_USED', 'no layer was included; the fallback text is the prompt'));
  }
  diagnostics.push(...sourceWarnings(snapshot, layers));
  if (env.joined) env.joined.text = text;
  // Built key by key: `layers` is a getter (below), and keys keep their order.
  const result = {
    version: snapshot.version,
    text,
    sha256: sha256(text),
    bytes: fallback ? utf8Length(text) : offset,
    settings: settings.values,
    settingSources: settings.sources,
  } as ComposeResult;
  new LayerList(result, layers, hashes);
  Object.defineProperty(result, 'layers', LAYERS_PROPERTY);
  result.fallback = fallback;
  result.diagnostics = diagnostics.length > 0 ? diagnostics : NO_DIAGNOSTICS;
  if (plan.takesInputs) {
    result.inputs = inputs.values;
    result.inputSources = inputs.sources;
  }
  if (role !== undefined) result.role = role;
  if (team !== undefined) result.team = team;
  if (agent !== undefined) result.agent = agent;
  return { ok: true, result };
}

/** What resolveLayer returns for a file's prompt as it is (its text and file left in the env). */
const PLAIN_FILE = Symbol('plain file');

/**
 * A path placeholder's value: the request's names (and the role record's file and source)
 * over inputs of the same name.
 */
function placeholderValue(env: LayerEnv, name: string): string | undefined {
  switch (name) {
    case 'role':
      return env.role;
    case 'team':
      return env.team;
    case 'agent':
      return env.agent;
    case 'role_file':
      return env.roleFile;
    case 'role_source':
      return env.roleSource;
  }
  return env.inputs[name];
}

const NO_INPUTS: ResolvedInputs = Object.freeze({
  values: Object.freeze({}),
  texts: Object.freeze({}),
  sources: Object.freeze({}),
});
const NO_INPUT_TEXT: Record<string, string> = Object.freeze({});

/** `U+0063 U+0061 …`: how a name is written, for names that look alike. */
function codePoints(text: string): string {
  return [...text].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
}

function badName(key: string, value: string): Diagnostic {
  return error(
    'BAD_NAME',
    `${key} ${JSON.stringify(value)} is not a valid name (letters, digits, . _ -; no "..")`,
  );
}

/** `list` with `d` added (a new list when there was none). */
function withDiagnostic(list: Diagnostic[] | undefined, d: Diagnostic): Diagnostic[] {
  if (list === undefined) return [d];
  list.push(d);
  return list;
}

function hasError(diagnostics: readonly Diagnostic[]): boolean {
  for (const d of diagnostics) if (d.severity === 'error') return true;
  return false;
}

/** Whether a chain's budget cut one of its files or left one out. */
function partTruncated(parts: readonly LayerPart[] | undefined): boolean {
  if (parts === undefined) return false;
  for (const p of parts) if (p.truncatedFrom !== undefined || p.reason === 'budget') return true;
  return false;
}

/**
 * The bytes of its source a cut part or layer kept (its text may be longer: a cut inside a
 * character reads as U+FFFD), for the TRUNCATED message.
 */
const keptOfSource = new WeakMap<LayerPart | LayerResult, number>();

/**
 * Resolves one layer: returns its provenance, and leaves its text (undefined when the
 * layer is left out), byte length and hash source in `env`.
 */
function resolveLayer(env: LayerEnv, layer: LayerDef, lp: LayerPlan): LayerResult | typeof PLAIN_FILE {
  env.text = undefined;
  env.bytes = undefined;
  env.file = undefined;
  env.appended = undefined;
  const when = lp.when;
  if (when && !evaluateGate(when, env)) {
    lp.gated ??= gatedResult(layer, gateText(when));
    return lp.gated as LayerResult;
  }
  // A simple file layer whose file (or skipped missing path, or missing value) is known:
  // as findFile and the cases below would answer, without their steps.
  const simple = lp.simple;
  if (simple !== null && reading === undefined) {
    const name = simple.name;
    const v = name === undefined ? '' : placeholderValue(env, name);
    const known = v === undefined ? undefined : simple.byValue.get(v);
    if (known === undefined) {
      const noValue = simple.plan.noValue;
      if (noValue !== undefined && (v === undefined || v === '') && noValue.placeholder === name)
        return noValue as LayerResult;
    } else if (known instanceof MissingPath) {
      if (known.result !== undefined && simple.skipMissing) return known.result as LayerResult;
    } else if (known && !known.frontmatterRetried && known.prompt !== '') {
      env.text = known.prompt;
      env.bytes = known.promptBytes;
      env.file = known;
      return PLAIN_FILE;
    }
  }
  return resolveOther(env, layer, lp);
}

/** {@link resolveLayer} for a layer its gate keeps that is not a simple one with its file known. */
function resolveOther(env: LayerEnv, layer: LayerDef, lp: LayerPlan): LayerResult | typeof PLAIN_FILE {
  const { snapshot, request, diagnostics, unknown } = env;
  const ctx: GateContext = env;

  let chosen: VariantDef | undefined;
  let variant: number | undefined;
  if (layer.variants) {
    const variants = layer.variants;
    for (let i = 0; i < variants.length; i++) {
      const when = variants[i]!.when;
      if (!when || evaluateGate(when, ctx)) {
        variant = i;
        break;
      }
    }
    if (variant === undefined) {
      lp.noVariant ??= gatedResult(layer, noVariantText(variants));
      return lp.noVariant as LayerResult;
    }
    chosen = variants[variant]!;
  }
  const source = chosen ? chosen.source : layer.source!;
  const append = chosen ? chosen.append : layer.append;
  const budget = budgetOf(layer, ctx);
  // A file's prompt as it is (no variant, tail, budget or retried frontmatter): the caller
  // makes its result at once.
  let found: ReturnType<typeof findFile> | undefined;
  if (source.kind === 'file') {
    const at = variant ?? 0;
    const sp = lp.sources[at] ?? sourcePlan(lp, at, source);
    found = findFile(snapshot, source, sp, env, layer);
    if (typeof found === 'string') {
      // The same for every compose that has no value for it: made, frozen and kept once.
      if (sp.noValue?.placeholder === found) return sp.noValue as LayerResult;
    } else if (found instanceof MissingPath) {
      // Reported on every compose, unless skipped quietly.
      if (found.result !== undefined && layer.missing === 'skip') return found.result as LayerResult;
    } else if (
      !('missing' in found) &&
      variant === undefined &&
      append === undefined &&
      budget === undefined &&
      layer.trim === 'both' &&
      !found.frontmatterRetried &&
      found.prompt !== ''
    ) {
      env.text = found.prompt;
      env.bytes = found.promptBytes;
      env.file = found;
      return PLAIN_FILE;
    }
  }
  if (source.kind === 'input' && request.ambient === undefined) {
    // The same for every compose without ambient text: made, frozen and kept once.
    const at = variant ?? 0;
    const sp = lp.sources[at] ?? sourcePlan(lp, at, source);
    if (sp.noValue === undefined) {
      const skipped: LayerResult = { id: layer.id, included: false, kind: source.kind };
      if (variant !== undefined) skipped.variant = variant;
      skipped.reason = 'no-value';
      skipped.placeholder = 'ambient';
      sp.noValue = Object.freeze(skipped);
    }
    return sp.noValue as LayerResult;
  }
  const base: LayerResult = { id: layer.id, included: false, kind: source.kind };
  if (variant !== undefined) base.variant = variant;

  // Resolve the source to text, with its UTF-8 length when known. `raw`: the file's bytes,
  // when the text is their lossy decoding (a byte budget cuts those bytes).
  let text: string;
  let bytes: number | undefined;
  let raw: Uint8Array | undefined;
  let file: PackFile | undefined;
  switch (source.kind) {
    case 'file': {
      found ??= findFile(snapshot, source, lp.sources[variant ?? 0]!, env, layer);
      if (typeof found === 'string') {
        base.reason = 'no-value';
        base.placeholder = found;
        lp.sources[variant ?? 0]!.noValue = Object.freeze(base);
        return base;
      }
      if ('missing' in found) {
        if (!found.reported && layer.missing !== 'skip') {
          const names = source.paths.flatMap(pathPlaceholders).map((p) => (p === 'role_file' ? 'role' : p));
          const suggestions = closestFiles(snapshot, found.missing);
          missingLayer(
            layer,
            `${found.missing} is missing${didYouMean(suggestions)}`,
            { file: found.missing },
            names,
            unknown,
            diagnostics,
            suggestions,
          );
        }
        // A path the source plan remembers for a value: its result is made, frozen and kept once.
        if (found instanceof MissingPath && found.result !== undefined) return found.result as LayerResult;
        base.reason = 'missing';
        base.source = found.missing;
        if (found instanceof MissingPath) found.result = Object.freeze(base);
        return base;
      }
      file = found;
      base.source = file.path;
      if (file.frontmatterRetried) base.frontmatterRetried = true;
      if (layer.trim === 'both') {
        text = file.prompt;
        bytes = file.promptBytes;
      } else if (layer.trim === 'none' && file.raw && file.bodyOffset === 0) {
        // A raw file's text is the lossy decoding of its bytes.
        raw = file.raw;
        text = file.text;
        bytes = textBytes(file);
        file = undefined;
      } else {
        text = trimText(file.text.slice(file.bodyOffset), layer.trim);
        file = undefined;
      }
      break;
    }
    case 'chain':
      return resolveChain(env, layer, source, base, budget);
    case 'input': {
      if (request.ambient === undefined) {
        base.reason = 'no-value';
        base.placeholder = 'ambient';
        return base;
      }
      text = trimText(request.ambient, layer.trim);
      break;
    }
    case 'role_field': {
      const role = ctx.role;
      base.field = source.field;
      if (role === undefined) {
        base.reason = 'no-value';
        base.placeholder = 'role';
        return base;
      }
      const record = env.record;
      base.source = record?.source;
      const value = record?.fields[source.field];
      if (typeof value !== 'string') {
        const where = record?.source === undefined ? {} : { file: record.source };
        missingLayer(layer, `role ${role} has no ${source.field}`, where, ['role'], unknown, diagnostics);
        base.reason = 'missing';
        return base;
      }
      const filled = env.plan.takesInputs ? fillRecordValue(env, value) : { text: value };
      if (!('text' in filled)) {
        diagnostics.push(missingInput(filled.name, `role ${role}'s ${source.field}`, record?.source));
        base.reason = 'no-value';
        base.placeholder = filled.name;
        return base;
      }
      text = trimText(filled.text, layer.trim);
      break;
    }
    case 'text': {
      const used: string[] = [];
      const compiled = compiledText(source, snapshot.manifest.inputSyntax);
      const filled =
        compiled.parts.length === 1
          ? { text: source.text }
          : fillCompiled(compiled, new LayerValues(env, used));
      if (used.length > 0) {
        // Every role field of the template was read, in order, unless one was missing.
        base.field = 'text' in filled ? usedFields(compiled, used) : [...new Set(used)].join(', ');
        base.source = env.record?.source;
      }
      if (!('text' in filled)) return missingValue(env, layer, base, filled);
      text = trimText(filled.text, layer.trim);
      break;
    }
  }
  if (!text) {
    base.reason = 'empty';
    return base;
  }
  if (append !== undefined) {
    base.appended = true;
    const tail = fillText(append, ctx.settings);
    // A file's text is fixed by its path in a snapshot, so its appended form can be memoised.
    if (file && budget === undefined) {
      const m = appendedText(snapshot, base.source!, text, tail);
      env.text = m.text;
      env.bytes = m.bytes;
      env.appended = m;
      return base;
    }
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
      keptOfSource.set(base, cut.used);
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
): LayerResult {
  const { diagnostics } = env;
  const template = splitPaths(source)[0]!.parts;
  let path = template[0]!;
  for (let i = 1; i < template.length; i += 2) {
    const v = placeholderValue(env, template[i]!);
    if (v === undefined || v === '') {
      base.reason = 'no-value';
      base.placeholder = template[i]!;
      return base;
    }
    path += v + template[i + 1]!;
  }
  // An absolute path (`--var cwd=$PWD`, `C:\repo`) is not read as one inside the pack.
  const absolute = ABSOLUTE_PATH.test(path);
  const dir = absolute ? undefined : normalisePackPath(path);
  if (dir === undefined) {
    diagnostics.push(
      error(
        'PATH_OUTSIDE_PACK',
        `layer ${layer.id}: ${JSON.stringify(path)} (from ${source.path}) ${absolute ? 'is an absolute path; give a path relative to the pack root' : 'leaves the pack'}`,
      ),
    );
    base.reason = 'missing';
    return base;
  }
  // A folder the pack does not read (`.github`, `node_modules`): its files cannot be known.
  if (dir !== '' && !hiddenAllowed(env.snapshot.manifest.hidden, dir)) {
    diagnostics.push(
      error(
        'PATH_OUTSIDE_PACK',
        `layer ${layer.id}: ${JSON.stringify(path)} (from ${source.path}) is in a folder the pack does not read (hidden folders and node_modules are read only when the manifest's hidden: names them)`,
      ),
    );
    base.reason = 'missing';
    return base;
  }
  // A folder the pack does not have, a letter case or a normalisation away from one it has.
  const misnamed = misnamedFolder(env.snapshot, dir);
  if (misnamed)
    diagnostics.push({
      ...warning(
        'LAYER_MISSING',
        `layer ${layer.id}: ${JSON.stringify(path)} (from ${source.path}) names the folder ${JSON.stringify(misnamed.given)}, in which the pack has no file; did you mean ${JSON.stringify(misnamed.meant)}?${misnamed.spelled ? ` (${misnamed.spelled})` : ''} No file in or below it is read`,
      ),
      suggestions: [misnamed.meant],
    });
  const parts: LayerPart[] = [];
  let text = '';
  let kept = 0;
  let remaining = budget ?? Number.POSITIVE_INFINITY;
  let offset = 0;
  const joinBytes = utf8Length(source.join);
  // Folders from the root down: '', 'a', 'a/b', … (`at`: the length of the folder's path);
  // with `start: git_root`, from the deepest folder on the path that holds `.git`.
  const from = source.start === 'git_root' ? gitRootOf(env.snapshot, dir) : 0;
  if (from > 0) base.chainRoot = dir.slice(0, from);
  for (let at = from; ; ) {
    const file = chainFile(env, source, at === 0 ? '' : dir.slice(0, at));
    if (file) {
      const part: LayerPart = { source: file.path, included: false };
      parts.push(part);
      if (remaining <= 0) part.reason = 'budget';
      else {
        // The file's text; a raw file's budget counts its own bytes.
        let whole: string;
        let raw: Uint8Array | undefined;
        let bytes: number | undefined;
        if (layer.trim === 'none' && file.raw && file.bodyOffset === 0) {
          raw = file.raw;
          whole = file.text;
          bytes = textBytes(file);
        } else if (layer.trim === 'both') {
          whole = file.prompt;
          bytes = file.promptBytes;
        } else whole = trimText(file.text.slice(file.bodyOffset), layer.trim);
        const cut = cutToBudget(whole, bytes, raw, remaining);
        // A file whose text within the budget is blank is left out for want of budget
        // (said), one blank whole is left out as blank.
        if (isBlank(cut.text))
          part.reason = cut.truncatedFrom === undefined || isBlank(whole) ? 'empty' : 'budget';
        else {
          remaining -= cut.used;
          if (kept > 0) {
            offset += joinBytes;
            text += source.join;
          }
          kept++;
          part.included = true;
          part.start = offset;
          part.end = offset + cut.bytes;
          part.bytes = cut.bytes;
          const from = env.charStart + text.length;
          lazyHash(part, sliceHash(env, from, from + cut.text.length));
          if (cut.truncatedFrom !== undefined) {
            part.truncatedFrom = cut.truncatedFrom;
            keptOfSource.set(part, cut.used);
          }
          offset = part.end;
          text += cut.text;
        }
      }
    }
    if (at === dir.length) break;
    const next = dir.indexOf('/', at + 1);
    at = next === -1 ? dir.length : next;
  }
  base.parts = parts;
  if (parts.length === 0) {
    base.reason = 'missing';
    return base;
  }
  if (kept === 0) {
    base.reason = 'empty';
    return base;
  }
  env.text = text;
  env.bytes = offset;
  return base;
}

/**
 * TRUNCATED for a cut layer: the file cut (a chain's part, or the layer's own file), its
 * size before and after, and the files left out for want of budget.
 */
function truncatedWarning(l: LayerResult): Diagnostic {
  const cut = l.parts?.find((p) => p.truncatedFrom !== undefined);
  const left = (l.parts ?? []).filter((p) => p.reason === 'budget').map((p) => p.source);
  const after = left.length > 0 ? `; left out, no budget left: ${left.join(', ')}` : '';
  // Nothing cut short: the budget ran out at a file's end, or left a file only blanks.
  if (cut === undefined && l.truncatedFrom === undefined)
    return warning(
      'TRUNCATED',
      `layer ${l.id}: its byte budget leaves no text of a file (the layer keeps ${l.bytes} bytes)${after}`,
      { file: left[0]! },
    );
  const source = cut?.source ?? l.source;
  const from = cut?.truncatedFrom ?? l.truncatedFrom;
  const to = keptOfSource.get(cut ?? l) ?? cut?.bytes ?? l.bytes;
  const shown = cut?.bytes ?? l.bytes;
  // A cut inside a character: its first bytes read as U+FFFD, which takes more bytes.
  const lossy =
    shown !== undefined && shown !== to
      ? ` (${shown} bytes in the prompt: bytes that are no whole UTF-8 character, such as a character cut in two, read as U+FFFD)`
      : '';
  const kept = cut ? `; the layer keeps ${l.bytes} bytes` : '';
  return warning(
    'TRUNCATED',
    `layer ${l.id}: ${source === undefined ? 'text ' : ''}cut from ${from} to ${to} bytes by its byte budget${lossy}${kept}${after}`,
    source === undefined ? {} : { file: source },
  );
}

/**
 * Where a walk down to the folder `dir` starts (the length of the start folder's path):
 * the deepest folder on the way that holds a `.git` entry (a nested repository, a
 * submodule: Codex's project root), else the pack root (0).
 */
function gitRootOf(snapshot: Snapshot, dir: string): number {
  let at = 0;
  for (const folder of snapshot.gitFolders ?? [])
    if (folder.length > at && (dir === folder || dir.startsWith(`${folder}/`))) at = folder.length;
  return at;
}

/** A path starting at a root: `/…`, `\…`, or a drive letter (`C:\`, `C:/`). */
const ABSOLUTE_PATH = /^(?:[/\\]|[A-Za-z]:[/\\])/;

/**
 * The first of a chain's files that exists in a folder of the pack (undefined when that one
 * could not be read, or there is none), remembered per snapshot
 * for at most as many folders as the pack has files (a request's path cannot grow it
 * further). A compose that reports its look-ups ({@link composeReading}) looks each up.
 */
function chainFile(
  env: LayerEnv,
  source: Extract<LayerSource, { kind: 'chain' }>,
  folder: string,
): PackFile | undefined {
  const { snapshot, plan } = env;
  let firsts = plan.chainFiles.get(source);
  if (!firsts) {
    firsts = new Map();
    plan.chainFiles.set(source, firsts);
  }
  if (reading === undefined) {
    const known = firsts.get(folder);
    if (known !== undefined) return known ?? undefined;
  }
  let found: PackFile | undefined;
  for (const name of source.files) {
    const path = folder === '' ? name : `${folder}/${name}`;
    found = fileAt(snapshot, path);
    // A file there that could not be read (a dangling symlink) is still the folder's
    // pick, as Codex picks the first candidate that is a file or a symlink: it gives no text.
    if (found || snapshot.unreadable?.has(path)) break;
  }
  if (firsts.size <= snapshot.files.size) firsts.set(folder, found ?? null);
  return found;
}

/** The layer's byte budget: a count, or an integer setting's value. */
function budgetOf(layer: LayerDef, ctx: GateContext): number | undefined {
  if (layer.maxBytes === undefined) return undefined;
  if (typeof layer.maxBytes === 'number') return layer.maxBytes;
  const v = ctx.settings[layer.maxBytes];
  return typeof v === 'number' ? Math.max(0, v) : undefined;
}

/**
 * Text cut to a byte budget and decoded lossily (a cut inside a character leaves U+FFFD).
 * The budget counts `raw`, when given (a raw file's own bytes, `text` their decoding), else
 * the text's UTF-8 bytes (`bytes`, when known). `used`: what the cut takes of the budget.
 */
function cutToBudget(
  text: string,
  bytes: number | undefined,
  raw: Uint8Array | undefined,
  budget: number,
): { text: string; bytes: number; used: number; truncatedFrom?: number } {
  if (raw === undefined) {
    // Text that is not well formed (a lone surrogate from a request) changes when encoded.
    if (!(text as WellFormed).isWellFormed()) raw = toBytes(text);
    else {
      const length = bytes ?? utf8Length(text);
      if (length <= budget) return { text, bytes: length, used: length };
      const cut = decodeLossy(toBytes(text).subarray(0, budget));
      return { text: cut, bytes: utf8Length(cut), used: budget, truncatedFrom: length };
    }
    text = decodeLossy(raw);
    bytes = undefined;
  }
  if (raw.length <= budget) return { text, bytes: bytes ?? utf8Length(text), used: raw.length };
  const cut = decodeLossy(raw.subarray(0, budget));
  return { text: cut, bytes: utf8Length(cut), used: budget, truncatedFrom: raw.length };
}

/** `String.prototype.isWellFormed` (ES2024; Node 20 has it). */
type WellFormed = string & { isWellFormed(): boolean };

function trimText(text: string, mode: LayerDef['trim']): string {
  return mode === 'both' ? text.trim() : mode === 'end' ? text.trimEnd() : text;
}

// A layer's (or chain part's) sha256 is an enumerable property computed on first read, so
// JSON, spreads and equality see it as always; composing does not pay for it. One shared
// getter reads the hash source, kept in a private field stamped onto the object (a class
// constructor that returns the object it is given): invisible to keys, spreads and
// equality, and much cheaper than a second defineProperty.

class Stamped {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: stamps a private field onto `target`
    return target;
  }
}

/** The hash of a text that is a file's prompt: the file computes it once, for every compose. */
class FileHashSource extends Stamped {
  #file: PackFile;
  constructor(target: object, file: PackFile) {
    super(target);
    this.#file = file;
  }
  static hash(target: object): string | undefined {
    return #file in target ? (target as FileHashSource).#file.promptSha256 : undefined;
  }
}

/** The hash of any other text (a slice of the result, an appended text). */
class HashSource extends Stamped {
  #source: { hash(): string };
  constructor(target: object, source: { hash(): string }) {
    super(target);
    this.#source = source;
  }
  static hash(target: object): string {
    return (target as HashSource).#source.hash();
  }
}

const HASH_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  get(this: object) {
    return FileHashSource.hash(this) ?? HashSource.hash(this);
  },
};

/** The hash of the characters [from, to) of the result text, once it is joined. */
class SliceHash {
  #hash: string | undefined;
  constructor(
    private readonly joined: { text: string },
    private readonly from: number,
    private readonly to: number,
  ) {}
  hash(): string {
    this.#hash ??= sha256(this.joined.text.slice(this.from, this.to));
    return this.#hash;
  }
}

/** The hash of the characters [from, to) of the result text, once it is joined. */
function sliceHash(env: LayerEnv, from: number, to: number): SliceHash {
  env.joined ??= { text: '' };
  return new SliceHash(env.joined, from, to);
}

function lazyHash(target: LayerResult | LayerPart, source: { hash(): string }): void {
  new HashSource(target, source);
  Object.defineProperty(target, 'sha256', HASH_PROPERTY);
}

// A result's `layers` is an enumerable property too, finished on first read: each included
// layer (its hash source already stamped on it) gets its `sha256` getter then, and, when
// the result is frozen (every result tryCompose hands out), the layers are frozen with it.
// A caller that reads only the text never pays for either.

class LayerList extends Stamped {
  #layers: LayerResult[];
  /** Each included layer and its hash source, in pairs; emptied once the list is finished. */
  #hashes: HashPairs;
  constructor(target: object, layers: LayerResult[], hashes: HashPairs) {
    super(target);
    this.#layers = layers;
    this.#hashes = hashes;
  }
  static read(target: object): LayerResult[] {
    const list = target as LayerList;
    const hashes = list.#hashes;
    if (hashes !== FINISHED) {
      list.#hashes = FINISHED;
      for (let i = 0; i < hashes.length; i += 2) {
        const layer = hashes[i] as LayerResult;
        const source = hashes[i + 1] as PackFile | { hash(): string };
        if ('promptSha256' in source) new FileHashSource(layer, source);
        else new HashSource(layer, source);
        Object.defineProperty(layer, 'sha256', HASH_PROPERTY);
      }
      if (Object.isFrozen(target)) freezeLayers(list.#layers);
    }
    return list.#layers;
  }
}

/** Included layers and their hash sources (a file, or a text's own), in pairs. */
type HashPairs = (LayerResult | PackFile | { hash(): string })[];

const FINISHED: HashPairs = [];

const LAYERS_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  get(this: object) {
    return LayerList.read(this);
  },
};

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
    return this.env.inputs[name];
  }
  isInput(name: string): boolean {
    return this.env.plan.declaredInputs.has(name) || this.env.snapshot.manifest.openInputs !== undefined;
  }
  field(name: string): { value: string } | { missing: 'role' | 'field' | 'input'; name: string } {
    const { plan, record } = this.env;
    if (this.env.role === undefined) return { missing: 'role', name: 'role' };
    const value = record?.fields[name];
    if (value === undefined || value === null || typeof value === 'object') return { missing: 'field', name };
    this.used.push(name);
    const filled = plan.takesInputs ? fillRecordValue(this.env, String(value)) : { text: String(value) };
    return 'text' in filled ? { value: filled.text } : filled;
  }
}

/** The role fields a template reads, unique, in order: the `field` of its layers (once per template). */
function usedFields(compiled: CompiledTemplate, used: string[]): string {
  let fields = fieldLists.get(compiled);
  if (fields === undefined) {
    fields = [...new Set(used)].join(', ');
    fieldLists.set(compiled, fields);
  }
  return fields;
}

const fieldLists = new WeakMap<CompiledTemplate, string>();

/** A role record value with its input placeholders filled (compiled once per snapshot and value). */
function fillRecordValue(env: LayerEnv, value: string): FillOutcome {
  if (!value.includes('{')) return { text: value };
  const { plan } = env;
  let compiled = plan.recordValues.get(value);
  if (!compiled) {
    compiled = compileInputs(value, env.snapshot.manifest.inputSyntax);
    plan.recordValues.set(value, compiled);
  }
  if (compiled.parts.length === 1) return { text: value };
  return fillCompiledInputs(compiled, new LayerValues(env, []));
}

/** A template value that is missing: no role (skip), no field (as the layer's `missing:` says), no input (error). */
function missingValue(
  env: LayerEnv,
  layer: LayerDef,
  base: LayerResult,
  missing: Exclude<FillOutcome, { text: string }>,
): LayerResult {
  const role = env.role;
  if (missing.missing === 'role') {
    base.reason = 'no-value';
    base.placeholder = 'role';
    return base;
  }
  if (missing.missing === 'input') {
    const record = env.record;
    env.diagnostics.push(
      missingInput(missing.name, `layer ${layer.id}${role ? ` (role ${role})` : ''}`, record?.source),
    );
    base.reason = 'no-value';
    base.placeholder = missing.name;
    return base;
  }
  const record = env.record;
  const where = record?.source === undefined ? {} : { file: record.source };
  missingLayer(layer, `role ${role} has no ${missing.name}`, where, ['role'], env.unknown, env.diagnostics);
  base.reason = 'missing';
  base.field = missing.name;
  return base;
}

/** The file of a file layer, a missing path, or (a string) the placeholder without a value. */
function findFile(
  snapshot: Snapshot,
  source: Extract<LayerSource, { kind: 'file' }>,
  sp: SourcePlan,
  env: LayerEnv,
  layer: LayerDef,
): PackFile | { missing: string; reported?: boolean } | string {
  const { diagnostics } = env;
  const ctx: GateContext = env;
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
      if (file) return file;
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
  // The first missing path (one of a one-placeholder template is remembered with it, made once).
  let first: MissingPath | string | undefined;
  const templates = sp.paths;
  for (let t = 0; t < templates.length; t++) {
    const template = templates[t]!;
    const parts = template.parts;
    // One placeholder: the path for its value is remembered per snapshot (for at most as
    // many values as the pack has files); a compose that reports its look-ups looks up.
    const byValue = sp.byValue[t];
    if (byValue !== undefined && reading === undefined) {
      // No placeholder: the one path, remembered under ''.
      const literal = parts.length === 1;
      const v = literal ? '' : placeholderValue(env, parts[1]!);
      if (v === undefined || (v === '' && !literal)) {
        noValue ??= parts[1]!;
        continue;
      }
      let known = byValue.get(v);
      if (known === undefined) {
        const path = literal ? parts[0]! : parts[0]! + v + parts[2]!;
        const clean =
          template.clean &&
          (literal || parts[1] === 'role_source' || (v.charCodeAt(0) !== 0x2e && !v.includes('/')));
        const normal = clean ? path : normalisePackPath(path);
        known = normal === undefined ? null : (snapshot.files.get(normal) ?? new MissingPath(normal));
        if (byValue.size <= snapshot.files.size) byValue.set(v, known);
      }
      if (known instanceof MissingPath) first ??= known;
      else if (known !== null) return known;
      continue;
    }
    // Filled in line; normalised only when the literals or a value could need it.
    let path = parts[0]!;
    let clean = template.clean;
    let missing: string | undefined;
    for (let i = 1; i < parts.length; i += 2) {
      const v = placeholderValue(env, parts[i]!);
      if (v === undefined || v === '') {
        missing = parts[i]!;
        break;
      }
      // role_source is a pack path as the snapshot holds it: already normal.
      if (clean && parts[i] !== 'role_source' && (v.charCodeAt(0) === 0x2e || v.includes('/'))) clean = false;
      path += v + parts[i + 1]!;
    }
    if (missing !== undefined) {
      noValue ??= missing;
      continue;
    }
    const normal = clean ? path : normalisePackPath(path);
    first ??= normal;
    const file = normal === undefined ? undefined : fileAt(snapshot, normal);
    if (file) return file;
  }
  if (first === undefined) return noValue ?? 'path';
  return typeof first === 'string' ? { missing: first } : first;
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
  suggestions: readonly string[] = [],
): void {
  const withSuggestions = (d: Diagnostic): Diagnostic =>
    suggestions.length > 0 ? { ...d, suggestions: [...suggestions] } : d;
  if (layer.missing === 'error') {
    diagnostics.push(
      withSuggestions(error('REQUIRED_MISSING', `layer ${layer.id} is required: ${what}`, where)),
    );
  } else if (layer.missing === 'warn' && !dependsOn.some((n) => unknown.has(n))) {
    diagnostics.push(
      withSuggestions(warning('LAYER_MISSING', `layer ${layer.id} is left out: ${what}`, where)),
    );
  }
}
