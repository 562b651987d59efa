/**
 * strata: compose every agent's system prompt from layered, ops-tunable files.
 *
 * @example
 * import { loadPackStrict, compose } from 'strata-prompts';
 * const snapshot = await loadPackStrict('/etc/strata/prompts');
 * const { text, layers } = compose(snapshot, { agent: 'ada' });
 *
 * @packageDocumentation
 */

export {
  type AgentConfig,
  type AgentConfigOutcome,
  AgentConfigSchema,
  type AgentConfigValues,
  agentConfig,
  agentConfigJsonSchema,
  type ConfigSource,
} from './agent-config/agent-config.js';
export type { CliIO } from './cli/io.js';
export { run } from './cli/run.js';
export {
  type ClientPrompt,
  PromptClient,
  type PromptClientOptions,
  PromptServiceError,
} from './client/client.js';
export { type SseEvent, SseParser } from './client/sse.js';
export {
  type ComposeOutcome,
  type ComposeRequest,
  type ComposeResult,
  compose,
  type LayerResult,
  type SkipReason,
  tryCompose,
} from './core/compose.js';
export {
  type DegradationReport,
  degradation,
  degradationDiagnostics,
  type LostLayer,
  type MemberDegradation,
} from './core/degradation.js';
export {
  DIAGNOSTIC_CODES,
  type Diagnostic,
  type DiagnosticCode,
  formatDiagnostic,
  formatLocation,
  PromptError,
  type Severity,
} from './core/diagnostics.js';
export {
  formatExplain,
  type LayerWording,
  layerSource,
  layerStatus,
  type WordedLayer,
  withLayerWording,
} from './core/explain.js';
export type { Agent } from './core/fleet.js';
export type { LayerDef, LayerSource, Manifest } from './core/manifest.js';
export { composeMember, type Member, packMembers } from './core/members.js';
export { isValidName } from './core/names.js';
export { PRESET_NAMES } from './core/presets.js';
export type { RoleRecord } from './core/roles.js';
export type { SettingDef, SettingType, SettingValue } from './core/settings.js';
export {
  type BuildInput,
  buildSnapshot,
  detectPreset,
  type LoadResult,
  MANIFEST_FILE,
  type PackFile,
  type Snapshot,
} from './core/snapshot.js';
export { packProblems } from './core/usable.js';
export {
  type DiffReport,
  type DiffSide,
  diffPacks,
  type MemberChange,
  type MemberPrompt,
  type MemberSame,
  promptDiff,
} from './diff/diff.js';
export { type InspectorAsset, inspectorAssets } from './inspector/assets.js';
export { LINT_CHECKS, type LintCheck, type LintContext, lintPack } from './lint/lint.js';
export { parseUcxl, type UcxlAddress } from './lint/ucxl.js';
export { buildLock, checkLock, formatLock, type Lock, parseLock } from './lock/lock.js';
export { changedPrompts, type PromptChanges } from './reload/changes.js';
export { type ReloadSource, readOnce, stablePackLoader } from './reload/read.js';
export {
  type PackLoader,
  type PackState,
  type ReloadOutcome,
  type ReloadTrigger,
  SnapshotStore,
  type StoreEvent,
} from './reload/store.js';
export { type PackWatcher, type WatchOptions, watchPack } from './reload/watch.js';
export { type SystemPromptOptions, systemPrompt } from './runtime/system-prompt.js';
export { type AppOptions, createApp, MAX_BODY_BYTES, type StrataApp } from './server/app.js';
export { type RunningService, type ServiceOptions, type StartOutcome, startService } from './server/node.js';
export { type BundleReadOptions, createBundle, readPackBundle } from './source/bundle.js';
export { readPackAtRevision } from './source/git.js';
export { type LoadOptions, loadPack, loadPackStrict } from './source/load.js';
export { DEFAULT_MAX_FILE_BYTES, readPackDir } from './source/read-dir.js';
export { analyzeCache, type CacheMember, type CacheReport, formatCacheReport } from './tokens/cache.js';
export { checkBudgets, checkCacheOrder, type TokenCheckOptions } from './tokens/checks.js';
export {
  type BudgetStatus,
  type Budgets,
  budgetFor,
  type TokenConfig,
  tokenConfig,
} from './tokens/config.js';
export {
  countTokens,
  type TokenizedLayer,
  type TokenizedResult,
  type TokenSummary,
  withTokens,
} from './tokens/count.js';
export {
  type AnthropicBody,
  type AnthropicTextBlock,
  anthropicBody,
  type OpenAIBody,
  openaiBody,
  PROVIDER_FORMATS,
  type ProviderFormat,
  providerBody,
} from './tokens/providers.js';
export {
  ENCODINGS,
  type EncodingName,
  getTokenizer,
  TOKENIZER_NAMES,
  type Tokenizer,
  type TokenizerName,
} from './tokens/tokenizer.js';
export { parseVerbRegistry, renderVerbFragments, type Verb, type VerbParam } from './verbs/verbs.js';
