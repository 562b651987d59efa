import type { ComposeResult } from '../core/compose/compose.js';
import { composeFleet } from '../tokens/fleet-composition.js';
import { sharedLayerCount, sharedPrefix, splitAfterLayers } from '../tokens/prefix.js';
import type { ProviderFormatSpec } from './spec.js';

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: { type: 'ephemeral' };
}

/** Anthropic Messages: the prompt as system blocks with prompt-caching breakpoints. */
export interface AnthropicBody {
  system: AnthropicTextBlock[];
}

/**
 * `format=anthropic`: the system text cut after the layers every fleet member shares
 * (composed with the same setting overrides), so that block is one cache entry for the
 * whole fleet; see {@link anthropicBody}.
 */
export const anthropic: ProviderFormatSpec<AnthropicBody> = {
  name: 'anthropic',
  shape:
    'anthropic `{system:[text blocks]}` with cache_control breakpoints after the layers the whole fleet shares and at the end',
  summary: 'the prompt as system blocks of a Messages request, with cache breakpoints',
  body(result, { snapshot, settings }) {
    const fleet = composeFleet(snapshot, settings).composed.map((c) => c.result);
    return anthropicBody(result, sharedLayerCount(result, sharedPrefix(fleet)));
  },
};

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
