/**
 * `strata-prompts/client`: `PromptClient`, the runtime client of the prompt service. Needs
 * only `fetch`; loads nothing of the server or the core.
 *
 * @example
 * import { PromptClient } from 'strata-prompts/client';
 * const prompts = new PromptClient({ url: 'http://127.0.0.1:7411', agent: 'ada' });
 *
 * @packageDocumentation
 */

export {
  type ClientPrompt,
  type ClientWarning,
  PromptClient,
  type PromptClientOptions,
  PromptServiceError,
} from './client/client.js';
export {
  PROMPT_SPAN_ATTRIBUTES,
  type PromptIdentity,
  promptSpanAttributes,
} from './client/span-attributes.js';
export { type SseEvent, SseParser } from './client/sse.js';
