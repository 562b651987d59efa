/**
 * strata: compose every agent's system prompt from layered, ops-tunable files. This entry
 * is the core: open a pack, compose, explain, diagnostics and their codes, and the types.
 * The runtime helper, the HTTP client, the server, the CLI and the tooling are subpath
 * entries (`strata-prompts/runtime`, `/client`, `/server`, `/cli`, `/tooling`).
 *
 * @example
 * import { loadPackStrict, compose } from 'strata-prompts';
 * const snapshot = await loadPackStrict('/etc/strata/prompts');
 * const { text, layers } = compose(snapshot, { agent: 'ada' });
 *
 * @packageDocumentation
 */

export type { Agent } from './core/build/fleet.js';
export type { RoleRecord } from './core/build/roles.js';
export {
  type BuildInput,
  type LoadResult,
  MANIFEST_FILE,
  type PackFile,
  type Snapshot,
} from './core/build/snapshot.js';
export type { Yielder } from './core/build/yielder.js';
export {
  type ComposeOutcome,
  type ComposeRequest,
  type ComposeResult,
  type LayerResult,
  SKIP_REASONS,
  type SkipReason,
} from './core/compose/compose.js';
export {
  type DegradationReport,
  degradation,
  degradationDiagnostics,
  type LostLayer,
  type MemberDegradation,
} from './core/compose/degradation.js';
export {
  formatExplain,
  type LayerWording,
  layerSource,
  layerStatus,
  type WordedLayer,
  withLayerWording,
} from './core/compose/explain.js';
export { composeMember, type Member, packMembers } from './core/compose/members.js';
export { type InputFormat, type Layout, type Layouts, layoutSet } from './core/layout.js';
export type { LayerDef, LayerSource, Manifest } from './core/pack/manifest.js';
export { isValidName } from './core/pack/names.js';
export type { SettingDef, SettingType, SettingValue } from './core/pack/settings.js';
export {
  DIAGNOSTIC_CODES,
  type Diagnostic,
  type DiagnosticCode,
  formatDiagnostic,
  formatLocation,
  PromptError,
  type Severity,
} from './core/text/diagnostics.js';
export {
  buildSnapshot,
  comparePacks,
  compose,
  defaultEngine,
  engineOf,
  indexPack,
  packProblems,
  tryCompose,
} from './engine/default-engine.js';
export {
  type Accelerator,
  type CacheUsage,
  createEngine,
  DEFAULT_CACHE_BYTES,
  type Engine,
  type EngineOptions,
} from './engine/engine.js';
export type { PackComparison } from './engine/incremental/pack-compare.js';
export { detectPreset, LAYOUTS, PRESET_NAMES } from './layouts/registry.js';
export {
  environmentRole,
  type PackChoice,
  type PackEnvironment,
  requestRole,
  resolvePackEnvironment,
} from './source/environment.js';
export { type LoadOptions, loadPack, loadPackStrict } from './source/load.js';
export {
  type OpenOptions,
  type OpenResult,
  openPack,
  type PackSource,
  type PackSourceKind,
} from './source/open.js';
