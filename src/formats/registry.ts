import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult } from '../core/compose/compose.js';
import { anthropic } from './anthropic.js';
import { openai } from './openai.js';
import type { ProviderFormatSpec } from './spec.js';

export type { AnthropicBody, AnthropicTextBlock } from './anthropic.js';
export { anthropicBody } from './anthropic.js';
export type { OpenAIBody } from './openai.js';
export { openaiBody } from './openai.js';
export type { FormatContext, ProviderFormatSpec } from './spec.js';

/**
 * Every provider request body strata can print a prompt as, by name: one line a format.
 * The CLI's `--format`, the API's `format=` (its schema and document), the routes and
 * the clients read their names from here.
 */
export const FORMATS = { openai, anthropic } as const;

/** The name of a provider format. */
export type ProviderFormat = keyof typeof FORMATS;

/** The body type of each provider format, by name. */
export type ProviderBodies = { [F in ProviderFormat]: ReturnType<(typeof FORMATS)[F]['body']> };

/** Request bodies strata can print a prompt as (the names of {@link FORMATS}, in order). */
export const PROVIDER_FORMATS = Object.keys(FORMATS) as [ProviderFormat, ...ProviderFormat[]];

export function isProviderFormat(value: unknown): value is ProviderFormat {
  return typeof value === 'string' && Object.hasOwn(FORMATS, value);
}

/**
 * The result as a provider request body (see each format's file: `openai.ts`,
 * `anthropic.ts`).
 *
 * @example
 * const result = compose(snapshot, { agent: 'ada' });
 * const body = providerBody(snapshot, result, 'anthropic');
 * await client.messages.create({ model, max_tokens: 1024, ...body, messages });
 */
export function providerBody<F extends ProviderFormat>(
  snapshot: Snapshot,
  result: ComposeResult,
  format: F,
  options: { settings?: Readonly<Record<string, unknown>> } = {},
): ProviderBodies[F] {
  const spec = FORMATS[format] as ProviderFormatSpec<ProviderBodies[F]>;
  return spec.body(result, { snapshot, settings: options.settings });
}
