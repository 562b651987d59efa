import { z } from '@hono/zod-openapi';
import { FORMATS, PROVIDER_FORMATS, type ProviderFormat } from '../../formats/registry.js';

// The provider request bodies (src/formats/) as the API documents them: the `format=`
// names, and one response schema a format.

export const ProviderFormatName = z.enum(PROVIDER_FORMATS).openapi({
  description: `Answer a provider request body instead of the result: ${PROVIDER_FORMATS.map((f) => FORMATS[f].shape).join(', or ')}`,
});

export const OpenAIBodySchema = z
  .object({
    messages: z.array(z.object({ role: z.literal('system'), content: z.string() })).length(1),
  })
  .openapi('OpenAIBody', { description: formatDescription('openai') });

export const AnthropicBodySchema = z
  .object({
    system: z.array(
      z.object({
        type: z.literal('text'),
        text: z.string(),
        cache_control: z.object({ type: z.literal('ephemeral') }).optional(),
      }),
    ),
  })
  .openapi('AnthropicBody', { description: formatDescription('anthropic') });

/** The body schema of every provider format (src/formats/), by name: a format without one fails the typecheck. */
export const FORMAT_SCHEMAS = {
  openai: OpenAIBodySchema,
  anthropic: AnthropicBodySchema,
} satisfies Record<ProviderFormat, z.ZodType>;

// --- internal ---

function formatDescription(format: ProviderFormat): string {
  return `\`format=${format}\`: ${FORMATS[format].summary}`;
}
