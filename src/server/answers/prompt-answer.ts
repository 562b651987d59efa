// The shapes of a prompt's HTTP answers (made by prompt-response.ts, kept on the rendered prompt).
import type { ProviderFormat } from '../../formats/registry.js';
import type { Answer } from '../service/answer.js';

/** A composed prompt's HTTP answer, independent of the server framework. */
export interface PromptAnswer extends Answer {
  status: 200 | 304 | 412;
}

/** The answers made of one rendered prompt, by representation (`promptAnswer` in prompt-response.ts makes them). */
export interface PromptAnswers {
  text?: PromptAnswer;
  json?: PromptAnswer;
  textNotModified?: PromptAnswer;
  jsonNotModified?: PromptAnswer;
  /** Provider bodies (`format=`), by format: each serialised and hashed once. */
  formats?: Partial<Record<ProviderFormat, { ok: PromptAnswer; notModified: PromptAnswer }>>;
}
