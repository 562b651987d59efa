/**
 * strata: compose every agent's system prompt from layered, ops-tunable files.
 *
 * @example
 * import { loadPackStrict, compose } from 'strata';
 * const snapshot = await loadPackStrict('/etc/strata/prompts');
 * const { text, layers } = compose(snapshot, { agent: 'ada' });
 */

export type { CliIO } from './cli/io.js';
export { run } from './cli/run.js';
export {
  type ComposeOutcome,
  type ComposeRequest,
  type ComposeResult,
  compose,
  type LayerResult,
  type SkipReason,
  tryCompose,
} from './compose.js';
export {
  DIAGNOSTIC_CODES,
  type Diagnostic,
  type DiagnosticCode,
  formatDiagnostic,
  formatLocation,
  PromptError,
  type Severity,
} from './diagnostics.js';
export { formatExplain, layerSource, layerStatus } from './explain.js';
export type { Agent } from './fleet.js';
export { type LoadOptions, loadPack, loadPackStrict } from './load.js';
export type { LayerDef, LayerSource, Manifest } from './manifest.js';
export { isValidName } from './names.js';
export { DEFAULT_MAX_FILE_BYTES, readPackDir } from './pack-fs.js';
export { PRESET_NAMES } from './presets.js';
export type { RoleRecord } from './roles.js';
export { type SystemPromptOptions, systemPrompt } from './runtime.js';
export type { SettingDef, SettingType, SettingValue } from './settings.js';
export {
  type BuildInput,
  buildSnapshot,
  detectPreset,
  type LoadResult,
  MANIFEST_FILE,
  type PackFile,
  type Snapshot,
} from './snapshot.js';
