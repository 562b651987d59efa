/**
 * `strata-prompts/tooling`: what the pack tooling is built from — tokens and budgets,
 * provider bodies, lint checks, diffs, lock files, the verbs registry, agent config, the
 * readers (directory, git, bundle) and hot reload (store, stable reader, watcher).
 *
 * @example
 * import { checkBudgets, lintPack } from 'strata-prompts/tooling';
 *
 * @packageDocumentation
 */

export {
  type AnthropicBody,
  type AnthropicTextBlock,
  anthropicBody,
  type OpenAIBody,
  openaiBody,
  PROVIDER_FORMATS,
  type ProviderFormat,
  providerBody,
} from './formats/registry.js';
export { changedPrompts, type PromptChanges } from './reload/changes.js';
export { type ReloadSource, readOnce, stablePackLoader } from './reload/read.js';
export {
  type LoadedPack,
  type LoadRequest,
  type PackLoader,
  type PackState,
  type ReadKind,
  type ReloadOutcome,
  type ReloadTrigger,
  SnapshotStore,
  type StoreEvent,
} from './reload/store.js';
export { type PackWatcher, type WatchOptions, watchPack } from './reload/watch.js';
export { type BoundedRead, readBoundedFile } from './source/bounded-read.js';
export { type BundleReadOptions, createBundle, readPackBundle } from './source/bundle.js';
export { readPackAtRevision } from './source/git.js';
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
  ENCODINGS,
  type EncodingName,
  getTokenizer,
  TOKENIZER_NAMES,
  type Tokenizer,
  type TokenizerName,
  tokenizerAvailable,
} from './tokens/tokenizer.js';
export {
  type AgentConfig,
  type AgentConfigOutcome,
  AgentConfigSchema,
  type AgentConfigValues,
  agentConfig,
  agentConfigJsonSchema,
  type ConfigSource,
} from './tooling/agent-config/agent-config.js';
export {
  type DiffReport,
  type DiffSide,
  diffPacks,
  MAX_DIFF_EDITS,
  type MemberChange,
  type MemberPrompt,
  type MemberSame,
  promptDiff,
} from './tooling/diff/diff.js';
export { LINT_CHECKS, type LintCheck, type LintContext, lintPack } from './tooling/lint/lint.js';
export { parseUcxl, type UcxlAddress } from './tooling/lint/ucxl.js';
export {
  buildLock,
  checkLock,
  DEFAULT_MAX_LOCK_BYTES,
  formatLock,
  type Lock,
  parseLock,
} from './tooling/lock/lock.js';
export { parseVerbRegistry, renderVerbFragments, type Verb, type VerbParam } from './tooling/verbs/verbs.js';
