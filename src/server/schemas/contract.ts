import type { z } from '@hono/zod-openapi';
import type { WordedLayer } from '../../core/compose/explain.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import type { ProviderBodies, ProviderFormat } from '../../formats/registry.js';
import type { TokenizedLayer, TokenizedResult, TokenSummary } from '../../tokens/count.js';
import type { AgentConfig } from '../../tooling/agent-config/agent-config.js';
import type { DiagnosticSchema } from './common.js';
import type { FORMAT_SCHEMAS } from './formats.js';
import type { AgentConfigSchema } from './pack.js';
import type { ComposeResultSchema, LayerSchema, TokenSummarySchema } from './result.js';

// Compile-time checks that the response schemas describe the core's result types: the
// same fields, and every value of the type accepted by the schema. A field added to a
// core type without its schema (or the other way round) fails the typecheck.
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { missing: Exclude<keyof A, keyof B>; extra: Exclude<keyof B, keyof A> };
type Fits<T, S extends z.ZodType> = T extends z.input<S> ? true : false;
/** A layer as the API serves it: token counts and the explain wording added. */
type ServedLayer = WordedLayer<TokenizedLayer>;
/** A result as the API serves it (tokens absent when counting ran over its budget). */
type ServedResult = Omit<TokenizedResult, 'layers' | 'tokens'> & {
  tokens?: TokenSummary;
  layers: ServedLayer[];
};
const contract: {
  result: [
    SameKeys<ServedResult, z.infer<typeof ComposeResultSchema>>,
    Fits<ServedResult, typeof ComposeResultSchema>,
  ];
  layer: [SameKeys<ServedLayer, z.infer<typeof LayerSchema>>, Fits<ServedLayer, typeof LayerSchema>];
  tokens: [
    SameKeys<TokenSummary, z.infer<typeof TokenSummarySchema>>,
    Fits<TokenSummary, typeof TokenSummarySchema>,
  ];
  diagnostic: [
    SameKeys<Diagnostic, z.infer<typeof DiagnosticSchema>>,
    Fits<Diagnostic, typeof DiagnosticSchema>,
  ];
  config: [
    SameKeys<AgentConfig, z.infer<typeof AgentConfigSchema>>,
    Fits<AgentConfig, typeof AgentConfigSchema>,
  ];
  formats: { [F in ProviderFormat]: Fits<ProviderBodies[F], (typeof FORMAT_SCHEMAS)[F]> };
} = {
  result: [true, true],
  layer: [true, true],
  tokens: [true, true],
  diagnostic: [true, true],
  config: [true, true],
  formats: { openai: true, anthropic: true },
};
void contract;
