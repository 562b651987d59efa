/**
 * `strata-prompts/runtime`: `systemPrompt()`, the one call an agent runtime makes at
 * start-up. Loads no server, CLI or watcher code.
 *
 * @example
 * import { systemPrompt } from 'strata-prompts/runtime';
 * const system = await systemPrompt(); // STRATA_PROMPTS_DIR, STRATA_ROLE
 *
 * @packageDocumentation
 */

export {
  PROMPT_SPAN_ATTRIBUTES,
  type PromptIdentity,
  promptSpanAttributes,
} from './client/span-attributes.js';
export {
  type RuntimePrompt,
  type SystemPromptOptions,
  systemPrompt,
  systemPromptResult,
} from './runtime/system-prompt.js';
