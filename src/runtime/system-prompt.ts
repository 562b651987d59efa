import { type ComposeRequest, compose } from '../core/compose.js';
import { PromptError } from '../core/diagnostics.js';
import { buildSnapshot } from '../core/snapshot.js';
import { loadPack } from '../source/load.js';

export interface SystemPromptOptions extends Omit<ComposeRequest, 'role'> {
  /** Role (default: $STRATA_ROLE, else $CHORUS_ROLE). */
  role?: string;
  /** Pack directory (default: $STRATA_PROMPTS_DIR, else $CHORUS_PROMPTS_DIR). */
  dir?: string;
  /** Force a preset (default: the pack's manifest, else its layout). */
  preset?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The one call an agent runtime makes at start-up: reads the pack directory and role
 * from the environment and returns the composed system prompt. With no pack directory
 * at all it answers with the chorus fallback; a pack with errors throws a
 * {@link PromptError} (fail at start-up, not at the first model call).
 *
 * @example
 * // CHORUS_PROMPTS_DIR=/etc/chorus/prompts CHORUS_ROLE=arbiter node agent.js
 * const system = await systemPrompt();
 * await client.messages.create({ model, system, messages });
 */
export async function systemPrompt(options: SystemPromptOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const { dir: optDir, preset, env: _env, ...rest } = options;
  const dir = optDir ?? (env.STRATA_PROMPTS_DIR || env.CHORUS_PROMPTS_DIR || undefined);
  const loaded = dir
    ? await loadPack(dir, { preset, env })
    : buildSnapshot({ files: new Map(), env, preset: preset ?? 'chorus' });
  if (!loaded.snapshot) throw new PromptError(loaded.diagnostics);
  const role = rest.role ?? (env.STRATA_ROLE || env.CHORUS_ROLE || undefined);
  const request: ComposeRequest = { ...rest };
  if (role !== undefined) request.role = role;
  return compose(loaded.snapshot, request).text;
}
