import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult } from '../core/compose/compose.js';
import { composeFleet } from './fleet-composition.js';
import { sharedLayerCount, sharedPrefix, splitAfterLayers } from './prefix.js';

/** Request bodies strata can print a prompt as. */
export const PROVIDER_FORMATS = ['openai', 'anthropic'] as const;
export type ProviderFormat = (typeof PROVIDER_FORMATS)[number];

/** OpenAI Chat Completions: the prompt as the system message. */
export interface OpenAIBody {
  messages: [{ role: 'system'; content: string }];
}

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: { type: 'ephemeral' };
}

/** Anthropic Messages: the prompt as system blocks with prompt-caching breakpoints. */
export interface AnthropicBody {
  system: AnthropicTextBlock[];
}

export function isProviderFormat(value: unknown): value is ProviderFormat {
  return typeof value === 'string' && (PROVIDER_FORMATS as readonly string[]).includes(value);
}

/**
 * The result as a provider request body. For Anthropic, the system text is cut after
 * the layers every fleet member shares (composed with the same setting overrides), so
 * that block is one cache entry for the whole fleet; see {@link anthropicBody}.
 *
 * @example
 * const result = compose(snapshot, { agent: 'ada' });
 * const body = providerBody(snapshot, result, 'anthropic');
 * await client.messages.create({ model, max_tokens: 1024, ...body, messages });
 */
export function providerBody(
  snapshot: Snapshot,
  result: ComposeResult,
  format: ProviderFormat,
  options: { settings?: Readonly<Record<string, unknown>> } = {},
): OpenAIBody | AnthropicBody {
  if (format === 'openai') return openaiBody(result);
  const fleet = composeFleet(snapshot, options.settings).composed.map((c) => c.result);
  return anthropicBody(result, sharedLayerCount(result, sharedPrefix(fleet)));
}

/** `{ messages: [{ role: 'system', content: text }] }`. */
export function openaiBody(result: ComposeResult): OpenAIBody {
  return { messages: [{ role: 'system', content: result.text }] };
}

/**
 * The text as Anthropic system blocks whose texts concatenate to exactly the text: a
 * first block of the result's first `sharedLayers` included layers and a second of the
 * rest (separator first), each ending in an ephemeral `cache_control` breakpoint. With
 * nothing shared (or everything), one block with one breakpoint.
 */
export function anthropicBody(result: ComposeResult, sharedLayers: number): AnthropicBody {
  const { head, rest } = splitAfterLayers(result, sharedLayers);
  const blocks = [head, rest].filter((t) => t !== '');
  return { system: blocks.map((text) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } })) };
}
