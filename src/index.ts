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
export { type InspectorAsset, inspectorAssets } from './inspector/assets.js';
export { type LoadOptions, loadPack, loadPackStrict } from './load.js';
export type { LayerDef, LayerSource, Manifest } from './manifest.js';
export { isValidName } from './names.js';
export { DEFAULT_MAX_FILE_BYTES, readPackDir } from './pack-fs.js';
export { PRESET_NAMES } from './presets.js';
export { changedPrompts, type PromptChanges } from './reload/changes.js';
export { type PackSource, readOnce, stablePackLoader } from './reload/read.js';
export {
  type PackLoader,
  type PackState,
  type ReloadOutcome,
  type ReloadTrigger,
  SnapshotStore,
  type StoreEvent,
} from './reload/store.js';
export { type PackWatcher, type WatchOptions, watchPack } from './reload/watch.js';
export type { RoleRecord } from './roles.js';
export { type SystemPromptOptions, systemPrompt } from './runtime.js';
export { type AppOptions, createApp, MAX_BODY_BYTES, type StrataApp } from './server/app.js';
export { type RunningService, type ServiceOptions, type StartOutcome, startService } from './server/node.js';
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
export {
  type AgentConfig,
  type AgentConfigOutcome,
  AgentConfigSchema,
  type AgentConfigValues,
  agentConfig,
  agentConfigJsonSchema,
  type ConfigSource,
} from './tooling/agent-config.js';
export {
  type DiffReport,
  type DiffSide,
  diffPacks,
  type MemberChange,
  type MemberPrompt,
  type MemberSame,
  promptDiff,
} from './tooling/diff.js';
export { readPackAtRevision } from './tooling/git-pack.js';
export { LINT_CHECKS, type LintCheck, type LintContext, lintPack } from './tooling/lint.js';
export { buildLock, checkLock, formatLock, type Lock, parseLock } from './tooling/lock.js';
export { composeMember, type Member, packMembers } from './tooling/members.js';
export { parseUcxl, type UcxlAddress } from './tooling/ucxl.js';
export { parseVerbRegistry, renderVerbFragments, type Verb, type VerbParam } from './tooling/verbs.js';
