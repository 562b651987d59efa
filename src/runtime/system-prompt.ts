import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeRequest } from '../core/compose/compose.js';
import { inLibraryWords } from '../core/pack/inputs.js';
import { type Diagnostic, error, formatLocation, PromptError, warning } from '../core/text/diagnostics.js';
import { compose } from '../engine/default-engine.js';
import { requestRole, resolvePackEnvironment } from '../source/environment.js';
import type { PackLimits } from '../source/limits.js';
import { openPack } from '../source/open.js';
import { tracedCompose } from '../telemetry/spans.js';

export interface SystemPromptOptions extends ComposeRequest, PackLimits {
  /** Role (default, when no agent is given: $STRATA_ROLE, else $CHORUS_ROLE). */
  role?: string;
  /** Pack directory (default: $STRATA_PROMPTS_DIR, else $CHORUS_PROMPTS_DIR). */
  dir?: string;
  /** Force a preset (default: the pack's manifest, else its layout). */
  preset?: string;
  /** Environment for the pack directory, the role and settings' env vars (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Relative pack directories resolve against this (default: process.cwd()). */
  cwd?: string;
  /**
   * Called with each warning of the load and the compose (a file left out, the fallback
   * text used, nothing mounted, …). Default: `process.emitWarning` with the type
   * `StrataWarning` and the warning's code, so it reaches stderr (unless node runs with
   * `--no-warnings`) and `process.on('warning')`.
   */
  onWarning?: (warning: Diagnostic) => void;
}

/**
 * The one call an agent runtime makes at start-up: finds the pack and role as the
 * environment contract says (docs/cli.md, "Environment") and returns the composed system
 * prompt. With no pack directory at all it answers with the chorus fallback; a pack with
 * errors throws a {@link PromptError} (fail at start-up, not at the first model call).
 *
 * @example
 * // CHORUS_PROMPTS_DIR=/etc/chorus/prompts CHORUS_ROLE=arbiter node agent.js
 * const system = await systemPrompt();
 * await client.messages.create({ model, system, messages });
 */
export async function systemPrompt(options: SystemPromptOptions = {}): Promise<string> {
  return (await systemPromptResult(options)).text;
}

/** The prompt {@link systemPromptResult} gives: its text and which prompt it is. */
export interface RuntimePrompt {
  text: string;
  /** The pack version (a hash of its files and preset). */
  version: string;
  /** sha256 of the text. */
  sha256: string;
  role?: string;
  team?: string;
  agent?: string;
  /** The layout (preset) the pack was read with. */
  layout?: string;
  /** The warnings of the load and the compose, each also given to `onWarning`. */
  warnings: Diagnostic[];
}

/**
 * {@link systemPrompt}, with which prompt it is: the version, sha256, role, team, agent and
 * layout, to put on the span of each LLM call (`promptSpanAttributes(prompt)`). Makes a
 * `strata.compose` OpenTelemetry span (a no-op unless the application registers an SDK).
 *
 * @example
 * const prompt = await systemPromptResult();
 * span.setAttributes(promptSpanAttributes(prompt)); // strata.prompt.version, …
 */
export async function systemPromptResult(options: SystemPromptOptions = {}): Promise<RuntimePrompt> {
  const {
    dir,
    preset,
    maxFileBytes,
    maxPackBytes,
    maxFiles,
    readTimeoutMs,
    env: given,
    cwd,
    onWarning = emitWarning,
    ...rest
  } = options;
  const env = given ?? process.env;
  const request: ComposeRequest = { ...rest };
  const role = requestRole(rest, env);
  if (role !== undefined) request.role = role;
  return tracedCompose('strata.compose', request, async (done) => {
    const found = resolvePackEnvironment({ dir, preset }, { env, cwd, withoutPack: 'chorus' });
    if (!found.ok)
      throw new PromptError([
        error(found.problem === 'preset' ? 'UNKNOWN_PRESET' : 'PACK_NOT_FOUND', found.refusal),
      ]);
    const limits = { maxFileBytes, maxPackBytes, maxFiles, readTimeoutMs };
    const loaded = await openPack(found.pack.source, { ...limits, preset: found.pack.preset, env });
    if (!loaded.snapshot) throw new PromptError(loaded.diagnostics);
    const result = composeForLibrary(loaded.snapshot, request);
    done(result, loaded.snapshot.preset);
    const warnings = [...loaded.diagnostics, ...result.diagnostics].filter((d) => d.severity === 'warning');
    if (found.pack.dir === undefined) warnings.unshift(warning('PACK_NOT_FOUND', NOTHING_MOUNTED));
    const prompt: RuntimePrompt = {
      text: result.text,
      version: result.version,
      sha256: result.sha256,
      warnings,
    };
    for (const key of ['role', 'team', 'agent'] as const)
      if (result[key] !== undefined) prompt[key] = result[key];
    if (loaded.snapshot.preset !== undefined) prompt.layout = loaded.snapshot.preset;
    for (const w of warnings) onWarning(w);
    return prompt;
  });
}

// --- internal ---

const NOTHING_MOUNTED =
  'no pack directory: neither dir nor STRATA_PROMPTS_DIR nor CHORUS_PROMPTS_DIR is set; the chorus fallback is the prompt';

/** The default `onWarning`: a process warning, as node's own deprecations are given. */
function emitWarning(d: Diagnostic): void {
  process.emitWarning(d.file === undefined ? d.message : `${formatLocation(d)}: ${d.message}`, {
    type: 'StrataWarning',
    code: d.code,
  });
}

/** `compose`, its errors said as a library caller gives a request (`vars`, not `--var`). */
function composeForLibrary(snapshot: Snapshot, request: ComposeRequest) {
  try {
    return compose(snapshot, request);
  } catch (e) {
    if (e instanceof PromptError) throw new PromptError(e.diagnostics.map(inLibraryWords));
    throw e;
  }
}
