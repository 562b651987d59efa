import { type Diagnostic, error, PromptError, warning } from './diagnostics.js';
import { describeGate, evaluateGate, type GateContext } from './gates.js';
import type { LayerDef, LayerSource, VariantDef } from './manifest.js';
import { isValidName } from './names.js';
import { normalisePackPath } from './pack-path.js';
import { applyOverrides, type SettingSource, type SettingValue } from './settings.js';
import type { Snapshot } from './snapshot.js';
import { snapshotCache } from './snapshot-cache.js';
import { fillPath, fillText } from './template.js';
import { sha256, utf8Length } from './text.js';

/** What to compose for. */
export interface ComposeRequest {
  role?: string;
  team?: string;
  agent?: string;
  /** Text for the `ambient` input layer. */
  ambient?: string;
  /** Setting overrides (`--set`, query `set.KEY`, body `settings`); strings are parsed by type. */
  settings?: Readonly<Record<string, unknown>>;
}

export type SkipReason = 'gated' | 'missing' | 'empty' | 'no-value';

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
  layers: LayerResult[];
  /** True when no layer was included and the manifest's fallback is the text. */
  fallback: boolean;
  /** Warnings of this compose (FALLBACK_USED, …). */
  diagnostics: Diagnostic[];
}

export type ComposeOutcome = { ok: true; result: ComposeResult } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Composes a prompt (SPEC §2). Pure: reads only the snapshot and the request, and gives
 * the same bytes for the same inputs. Never throws; bad requests come back as diagnostics.
 */
export function tryCompose(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome {
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
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  const member = request.agent === undefined ? undefined : memoFor(snapshot).fleet.get(request.agent);
  const role = request.role ?? member?.role;
  const team = request.team ?? member?.team;
  const agent = request.agent;
  const record = role === undefined ? undefined : snapshot.roles.get(role);
  if (role !== undefined && !record && snapshot.roles.size > 0) {
    return { ok: false, diagnostics: [unknownRole(snapshot, role)] };
  }

  // 2. Settings: request over env over default.
  const { settings, diagnostics: sd } = applyOverrides(
    manifest.settings,
    snapshot.settings,
    request.settings,
  );
  if (sd.length > 0) return { ok: false, diagnostics: sd };

  // 3. Every layer, in order.
  const ctx: GateContext = { settings: settings.values, role, team, agent };
  const placeholders = { role, team, agent, role_file: record?.roleFile ?? role };
  const pieces: string[] = [];
  const layers: LayerResult[] = [];
  let offset = 0;
  const sepBytes = utf8Length(manifest.separator);
  for (const layer of manifest.layers) {
    const resolved = resolveLayer(snapshot, layer, ctx, placeholders, request, diagnostics);
    if (!resolved.text) {
      layers.push(resolved.info);
      continue;
    }
    if (pieces.length > 0) offset += sepBytes;
    const info = resolved.info;
    info.included = true;
    info.bytes = resolved.bytes ?? utf8Length(resolved.text);
    info.start = offset;
    info.end = offset + info.bytes;
    info.sha256 = resolved.sha256 ?? sha256(resolved.text);
    offset = info.end;
    pieces.push(resolved.text);
    layers.push(info);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { ok: false, diagnostics };

  // 4. Join, or fall back.
  let text = pieces.join(manifest.separator);
  const fallback = pieces.length === 0;
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
  if (role !== undefined) result.role = role;
  if (team !== undefined) result.team = team;
  if (agent !== undefined) result.agent = agent;
  return { ok: true, result };
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

/** The UNKNOWN_ROLE error, listing the known role ids. */
export function unknownRole(snapshot: Snapshot, role: string): Diagnostic {
  return error(
    'UNKNOWN_ROLE',
    `unknown role ${JSON.stringify(role)}; known roles: ${[...snapshot.roles.keys()].join(', ')}`,
  );
}

// --- internal ---

interface Resolved {
  info: LayerResult;
  text?: string;
  bytes?: number;
  sha256?: string;
}

function resolveLayer(
  snapshot: Snapshot,
  layer: LayerDef,
  ctx: GateContext,
  placeholders: Record<string, string | undefined>,
  request: ComposeRequest,
  diagnostics: Diagnostic[],
): Resolved {
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

  // Resolve the source to text (untrimmed for files: the snapshot holds trimmed text).
  let text: string | undefined;
  let cached: { bytes: number; sha256: string } | undefined;
  switch (source.kind) {
    case 'file': {
      const found = findFile(snapshot, source, ctx, placeholders, layer, diagnostics);
      if ('noValue' in found) return { info: { ...base, reason: 'no-value', placeholder: found.noValue } };
      if ('missing' in found) return { info: { ...base, reason: 'missing', source: found.missing } };
      base.source = found.file.path;
      text = found.file.prompt;
      cached = { bytes: found.file.promptBytes, sha256: found.file.promptSha256 };
      break;
    }
    case 'input': {
      if (request.ambient === undefined)
        return { info: { ...base, reason: 'no-value', placeholder: 'ambient' } };
      text = request.ambient.trim();
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
        if (layer.required)
          diagnostics.push(
            error('REQUIRED_MISSING', `layer ${layer.id}: role ${role} has no ${source.field}`),
          );
        return { info: { ...base, reason: 'missing' } };
      }
      text = value.trim();
      break;
    }
    case 'text':
      text = fillText(source.text, ctx.settings).trim();
      break;
  }
  if (!text) return { info: { ...base, reason: 'empty' } };
  if (append !== undefined) {
    base.appended = true;
    const tail = fillText(append, ctx.settings);
    // A file's text is fixed by its path in a snapshot, so its appended form can be memoised.
    if (source.kind === 'file')
      return { info: base, ...memoFor(snapshot).appended(base.source!, text, tail) };
    return { info: base, text: `${text}\n\n${tail}` };
  }
  return { info: base, text, ...cached };
}

function findFile(
  snapshot: Snapshot,
  source: Extract<LayerSource, { kind: 'file' }>,
  ctx: GateContext,
  placeholders: Record<string, string | undefined>,
  layer: LayerDef,
  diagnostics: Diagnostic[],
): { file: NonNullable<ReturnType<Snapshot['files']['get']>> } | { missing: string } | { noValue: string } {
  // A path named by a setting (CHORUS_DEFAULT_INSTRUCTIONS_PATH) must exist.
  if (source.pathSetting !== undefined) {
    const named = ctx.settings[source.pathSetting];
    if (typeof named === 'string' && named !== '') {
      const path = packRelative(snapshot.root, named);
      const file = path === undefined ? undefined : snapshot.files.get(path);
      if (file) return { file };
      const def = snapshot.manifest.settings.find((s) => s.name === source.pathSetting);
      const origin = def?.env && snapshot.settings.sources[def.name] === 'env' ? ` (env ${def.env})` : '';
      diagnostics.push(
        error(
          path === undefined ? 'PATH_OUTSIDE_PACK' : 'REQUIRED_MISSING',
          `layer ${layer.id}: setting ${source.pathSetting}${origin} names ${JSON.stringify(named)}, which ${path === undefined ? 'is outside the pack' : 'does not exist in the pack'}`,
        ),
      );
      return { missing: named };
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
    const file = path === undefined ? undefined : snapshot.files.get(path);
    if (file) return { file };
  }
  if (first === undefined) return { noValue: noValue ?? 'path' };
  if (layer.required)
    diagnostics.push(
      error('REQUIRED_MISSING', `layer ${layer.id}: required file ${first} is missing`, { file: first }),
    );
  return { missing: first };
}

/** A path given by an operator: absolute inside the pack root, or relative to it. */
function packRelative(root: string | undefined, path: string): string | undefined {
  if (path.startsWith('/')) {
    if (!root || !(path === root || path.startsWith(`${root}/`))) return undefined;
    return normalisePackPath(path.slice(root.length));
  }
  return normalisePackPath(path);
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
