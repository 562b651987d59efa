import { fleetById } from '../build/derived.js';
import type { Agent } from '../build/fleet.js';
import type { PackFile } from '../build/pack-file.js';
import { notARoleWords } from '../build/roles.js';
import type { Snapshot } from '../build/snapshot-types.js';
import type { InputFormat } from '../layout.js';
import { type ResolvedInputs, resolveInputs, takesInputs } from '../pack/inputs.js';
import { isLabelName, isValidName } from '../pack/names.js';
import { pathSettingNames } from '../pack/path-settings.js';
import { applyOverrides } from '../pack/settings.js';
import { fillText } from '../pack/template.js';
import { type Diagnostic, error, PromptError, warning } from '../text/diagnostics.js';
import { didYouMean, knownList } from '../text/suggest.js';
import { utf8Length } from '../text/text.js';
import { ambientUnused } from './ambient.js';
import { partTruncated, truncatedWarning } from './chain.js';
import { requestShapeProblems } from './compose-request.js';
import type { ComposeHooks, LayerEnv } from './env.js';
import { resolveLayer } from './layer.js';
import { attachLayers, promptHash, SliceHash } from './lazy-hash.js';
import { PREFIX_MIN_CHARS, PrefixedTextHash } from './prefix-hash.js';
import { DEFAULT_MAX_PROMPT_BYTES, promptTooLarge } from './prompt-limit.js';
import { checkRequestNames, closestRoles } from './request-names.js';
import { sourceWarnings } from './source-warnings.js';
import { noSystemMessage } from './system-message.js';
import type { ComposeOutcome, ComposeRequest, ComposeResult, LayerResult } from './types.js';

export type { ComposeHooks } from './env.js';
export type {
  ComposeOutcome,
  ComposeRequest,
  ComposeResult,
  LayerPart,
  LayerResult,
  LayerSegment,
  SkipReason,
} from './types.js';
export { SKIP_REASONS } from './types.js';

/**
 * Composes a prompt (docs/pack-format.md, the manifest's `layers:`). Pure: reads only the
 * snapshot and the request, and gives the same bytes for the same inputs. Never throws;
 * bad requests come back as diagnostics (a request of the wrong shape from untyped code,
 * such as a number for `agent` or a string for `settings`, is BAD_REQUEST). The `sha256`
 * of each layer (and chain part) is computed when it is first read: a caller that wants
 * only the text never pays for it. This is the reference: the engine
 * (`createEngine().tryCompose`) gives the same outcome, memoised and frozen.
 */
export function tryCompose(
  snapshot: Snapshot,
  request: ComposeRequest,
  hooks?: ComposeHooks,
): ComposeOutcome {
  return composeReading(snapshot, request, undefined, hooks);
}

/**
 * {@link tryCompose}, telling `onRead` every pack path the compose looked up (found or
 * not): the outcome can change between two snapshots only when one of these files, the
 * member's fleet entry or role record, or the pack-wide inputs (manifest, settings, root,
 * outside files) differ. The reload comparison uses this to recompose only the members
 * an edit can reach.
 */
export function composeReading(
  snapshot: Snapshot,
  request: ComposeRequest,
  onRead: ((path: string) => void) | undefined,
  hooks?: ComposeHooks,
): ComposeOutcome {
  const shape = requestShapeProblems(snapshot, request);
  if (shape.length > 0) return { ok: false, diagnostics: [...shape] };
  return composeChecked(snapshot, request, onRead, hooks);
}

/**
 * Composes a prompt, throwing a {@link PromptError} for a bad request.
 *
 * @example
 * const snapshot = await loadPackStrict('prompts');
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
    `unknown role ${JSON.stringify(role)}${notARoleWords(snapshot.warnings, role)}${didYouMean(suggestions)}${forms}; known roles: ${knownList([...snapshot.roles.keys()])}`,
  );
  if (suggestions.length > 0) d.suggestions = suggestions;
  return d;
}

/**
 * DUPLICATE_ROLE for a role several registry files define, none of which a pack prefers
 * (`registry.duplicate_roles: refuse`): the files, and how to choose one.
 */
export function roleOfSeveralFiles(role: string, files: readonly string[]): Diagnostic {
  return error(
    'DUPLICATE_ROLE',
    `role ${role} is defined in ${files.length} files (${files.join(', ')}): give --dir the folder of the one meant, or a role only one file defines`,
  );
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

/** A fleet agent by id (the fleet indexed once per snapshot, when it is built). */
export function fleetAgent(snapshot: Snapshot, id: string): Agent | undefined {
  return fleetById(snapshot).get(id);
}

// --- internal ---

/** Composes a request of the right shape: names, settings and inputs, then every layer in order. */
function composeChecked(
  snapshot: Snapshot,
  request: ComposeRequest,
  onRead: ((path: string) => void) | undefined,
  hooks: ComposeHooks | undefined,
): ComposeOutcome {
  const { manifest } = snapshot;

  // 1. Names, then what the fleet knows about the agent.
  const early = requestProblems(snapshot, request);
  if (early.length > 0) return { ok: false, diagnostics: early };
  const agent = request.agent;
  const member = agent === undefined ? undefined : fleetAgent(snapshot, agent);
  const role = request.role ?? member?.role;
  const team = request.team ?? member?.team;
  const record = role === undefined ? undefined : snapshot.roles.get(role);
  if (role !== undefined && !record && snapshot.roles.size > 0) {
    return { ok: false, diagnostics: [unknownRole(snapshot, role)] };
  }
  if (record?.definedIn) return { ok: false, diagnostics: [roleOfSeveralFiles(record.id, record.definedIn)] };
  const diagnostics: Diagnostic[] = [];
  const unknown = checkRequestNames(snapshot, role, team, agent, member, diagnostics);
  if (hasError(diagnostics)) return { ok: false, diagnostics };
  const noSystem = record && noSystemMessage(snapshot, record);
  if (noSystem) diagnostics.push(noSystem);

  // 2. Settings: request over env over default; inputs: request over default.
  let settings = snapshot.settings;
  if (request.settings !== undefined) {
    const applied = applyOverrides(manifest.settings, settings, request.settings);
    if (applied.diagnostics.length > 0) return { ok: false, diagnostics: applied.diagnostics };
    settings = applied.settings;
  }
  const inputs =
    takesInputs(manifest) || request.vars !== undefined
      ? resolveInputs(manifest, request.vars, snapshot.layouts?.formats ?? new Map<string, InputFormat>())
      : NONE;
  if (inputs.diagnostics.length > 0) return { ok: false, diagnostics: inputs.diagnostics };

  // 3. Every layer, in order: its text joined to the others by the separator.
  const env: LayerEnv = {
    settings: settings.values,
    role,
    team,
    agent,
    roleFile: record?.roleFile ?? role,
    roleSource: record?.source,
    snapshot,
    request,
    diagnostics,
    inputs: inputs.inputs.texts,
    takesInputs: takesInputs(manifest),
    unknown,
    record,
    onRead,
    hooks,
    hashes: [],
    joined: undefined,
    charStart: 0,
    maxBytes: snapshot.maxPromptBytes ?? DEFAULT_MAX_PROMPT_BYTES,
    tooLarge: false,
    kept: undefined,
    text: undefined,
    bytes: undefined,
    file: undefined,
  };
  const layers: LayerResult[] = [];
  const hashes = env.hashes;
  let text = '';
  let included = 0;
  let offset = 0;
  // The file whose prompt is the whole text, when one file's prompt is the only layer:
  // the file hashes its prompt once, for every compose that gives it as it stands.
  let onlyFile: PackFile | undefined;
  // How the text begins: with how many files' prompts as they stand (and their separators),
  // up to which character, before which layer (see PrefixedTextHash).
  let run = 0;
  let runEnd = -1;
  let runNext = '';
  for (const layer of manifest.layers) {
    const sep = layer.separator ?? manifest.separator;
    env.charStart = included > 0 ? text.length + sep.length : text.length;
    const info = resolveLayer(env, layer);
    if (env.tooLarge) return { ok: false, diagnostics };
    const layerText = env.text;
    layers.push(info);
    if (!layerText) continue;
    if (included > 0) {
      offset += utf8Length(sep);
      text += sep;
    }
    included++;
    onlyFile = included === 1 ? env.file : undefined;
    if (runEnd === -1) {
      if (env.file) run++;
      else {
        runEnd = text.length;
        runNext = layer.id;
      }
    }
    info.included = true;
    const bytes = env.bytes ?? utf8Length(layerText);
    info.bytes = bytes;
    info.start = offset;
    info.end = offset + bytes;
    if (env.file) hashes.push(info, env.file);
    else {
      env.joined ??= { text: '' };
      hashes.push(info, new SliceHash(env.joined, text.length, text.length + layerText.length));
    }
    for (const part of info.parts ?? []) {
      if (part.start === undefined) continue;
      part.start += offset;
      part.end! += offset;
    }

    offset = info.end;
    if (offset > env.maxBytes) {
      diagnostics.push(promptTooLarge(env.maxBytes, `the prompt, at layer ${layer.id},`));
      return { ok: false, diagnostics };
    }
    text += layerText;
  }
  // A required layer's NO_ROLE error says what the warning of the request's names said.
  if (hasError(diagnostics))
    return {
      ok: false,
      diagnostics: diagnostics.filter((d) => d.code !== 'NO_ROLE' || d.severity === 'error'),
    };

  // 4. Join, or fall back.
  const fallback = included === 0;
  for (const l of layers)
    if (l.included && (l.truncatedFrom !== undefined || partTruncated(l.parts)))
      diagnostics.push(truncatedWarning(l, env.kept ?? new Map()));
  if (fallback) {
    const filled = fillText(manifest.fallback, settings.values, env.maxBytes);
    if (filled === undefined || utf8Length(filled) > env.maxBytes) {
      diagnostics.push(promptTooLarge(env.maxBytes, 'the fallback text'));
      return { ok: false, diagnostics };
    }
    text = filled;
    diagnostics.push(warning('FALLBACK_USED', 'no layer was included; the fallback text is the prompt'));
  }
  const unused = ambientUnused(manifest, request);
  if (unused) diagnostics.push(unused);
  diagnostics.push(...sourceWarnings(snapshot, layers));
  if (env.joined) env.joined.text = text;
  // Built key by key: `sha256` and `layers` are getters (below), and keys keep their order.
  const result = { version: snapshot.version, text } as ComposeResult;
  // The prompt's hash, on first read: one file's prompt as it stands hashes as the file
  // (once for every compose), any other text when it is asked for.
  const oneOff = request.ambient !== undefined;
  promptHash(
    result,
    resultHashSource(
      snapshot,
      text,
      fallback,
      onlyFile,
      oneOff ? { layers, run, runEnd, runNext } : undefined,
    ),
    layers,
    hashes,
  );
  result.bytes = fallback ? utf8Length(text) : offset;
  result.settings = settings.values;
  result.settingSources = settings.sources;
  attachLayers(result);
  result.fallback = fallback;
  result.diagnostics = diagnostics;
  if (env.takesInputs) {
    result.inputs = inputs.inputs.values;
    result.inputSources = inputs.inputs.sources;
  }
  if (role !== undefined) result.role = role;
  if (team !== undefined) result.team = team;
  if (agent !== undefined) result.agent = agent;
  return { ok: true, result };
}

/** What is wrong with a request's names and settings before anything is looked up. */
function requestProblems(snapshot: Snapshot, request: ComposeRequest): Diagnostic[] {
  const problems: Diagnostic[] = [];
  // A role id from frontmatter may be a name as people write one ("Frontend Developer"):
  // such a name the registry does not hold is an unknown role, with the closest ids (a
  // case or a Unicode form away), not a bad name; a name no registry takes is BAD_NAME.
  if (request.role !== undefined && !isValidName(request.role) && !snapshot.roles.has(request.role))
    problems.push(
      snapshot.roles.size > 0 && isLabelName(request.role)
        ? unknownRole(snapshot, request.role)
        : badName('role', request.role),
    );
  if (request.team !== undefined && !isValidName(request.team)) problems.push(badName('team', request.team));
  if (request.agent !== undefined && !isValidName(request.agent))
    problems.push(badName('agent', request.agent));
  // A path setting names a file: only the operator may set one, never a request.
  if (request.settings !== undefined) {
    const pathSettings = pathSettingNames(snapshot.manifest);
    for (const key of Object.keys(request.settings)) {
      if (pathSettings.has(key)) {
        problems.push(
          error(
            'PATH_SETTING_IN_REQUEST',
            `setting ${key} names a file and cannot be set by a request; the operator sets it (env var, serve --set, the manifest)`,
          ),
        );
      }
    }
  }
  return problems;
}

/**
 * What a result's hash is computed from: one file's prompt as it stands hashes as the file
 * (once for every compose); a one-off text (a request's own ambient text) that begins with
 * files' prompts long enough, from the kept hash of that beginning (`begins`: which it is;
 * the next one-off text of the same role, team and settings begins the same); any other
 * text, as it is.
 */
function resultHashSource(
  snapshot: Snapshot,
  text: string,
  fallback: boolean,
  onlyFile: PackFile | undefined,
  begins: { layers: readonly LayerResult[]; run: number; runEnd: number; runNext: string } | undefined,
): PackFile | { hash(): string } {
  if (fallback) return new SliceHash({ text }, 0, text.length);
  if (onlyFile) return onlyFile;
  if (begins !== undefined && begins.run > 0 && begins.runEnd >= PREFIX_MIN_CHARS)
    return new PrefixedTextHash(snapshot, { text }, begins.layers, begins.run, begins.runEnd, begins.runNext);
  return new SliceHash({ text }, 0, text.length);
}

/** The inputs of a manifest that takes none, for a request that gives none. */
const NONE: { inputs: ResolvedInputs; diagnostics: Diagnostic[] } = Object.freeze({
  inputs: Object.freeze({ values: Object.freeze({}), texts: Object.freeze({}), sources: Object.freeze({}) }),
  diagnostics: Object.freeze([]) as unknown as Diagnostic[],
});

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

function hasError(diagnostics: readonly Diagnostic[]): boolean {
  for (const d of diagnostics) if (d.severity === 'error') return true;
  return false;
}
