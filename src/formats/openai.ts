import type { ComposeResult } from '../core/compose/compose.js';
import type { ProviderFormatSpec } from './spec.js';

/** OpenAI Chat Completions: the prompt as the system message. */
export interface OpenAIBody {
  messages: [{ role: 'system'; content: string }];
}

/** `format=openai`: the prompt as the system message of a Chat Completions request. */
export const openai: ProviderFormatSpec<OpenAIBody> = {
  name: 'openai',
  shape: 'openai `{messages:[{role:"system",content}]}`',
  summary: 'the prompt as the system message of a Chat Completions request',
  body: (result) => openaiBody(result),
};

/** `{ messages: [{ role: 'system', content: text }] }`. */
export function openaiBody(result: ComposeResult): OpenAIBody {
  return { messages: [{ role: 'system', content: result.text }] };
}
