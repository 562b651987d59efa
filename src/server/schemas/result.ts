import { z } from '@hono/zod-openapi';
import { SKIP_REASONS } from '../../core/compose/compose.js';
import { SETTING_SOURCES } from '../../core/pack/settings.js';
import { ENCODINGS, TOKENIZER_NAMES } from '../../core/pack/tokenizer-names.js';
import { BUDGET_STATUSES } from '../../tokens/config.js';
import { DiagnosticSchema, SettingValue } from './common.js';

// A compose result as the API serves it: its layers with provenance and token counts.

const BudgetStatus = z.enum(BUDGET_STATUSES);

/** The fields of a text template layer's piece (and of an input filled into a field). */
const SEGMENT_FIELDS = {
  kind: z.enum(['template', 'field', 'setting', 'input']),
  name: z.string().optional(),
  start: z.number().int(),
  end: z.number().int(),
  bytes: z.number().int(),
};

export const LayerSchema = z
  .object({
    id: z.string(),
    included: z.boolean(),
    reason: z.enum(SKIP_REASONS).optional().openapi({ description: 'Why the layer is not in the text' }),
    gate: z.string().optional(),
    placeholder: z.string().optional(),
    kind: z.string().openapi({ description: 'Where the text comes from (file, text, role_field, …; none)' }),
    source: z.string().optional(),
    field: z.string().optional(),
    variant: z.number().int().optional(),
    appended: z.boolean().optional(),
    start: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Byte offset of the layer in the text (UTF-8)' }),
    end: z.number().int().optional(),
    bytes: z.number().int().optional(),
    sha256: z.string().optional(),
    truncatedFrom: z.number().int().optional().openapi({
      description: 'Set when the text was cut to the layer’s byte budget: the bytes before the cut',
    }),
    frontmatterRetried: z.boolean().optional(),
    parts: z
      .array(
        z.object({
          source: z.string(),
          included: z.boolean(),
          reason: z.enum(['empty', 'budget']).optional(),
          start: z.number().int().optional(),
          end: z.number().int().optional(),
          bytes: z.number().int().optional(),
          sha256: z.string().optional(),
          truncatedFrom: z.number().int().optional(),
        }),
      )
      .optional()
      .openapi({ description: 'The files of a chain layer, root first, each with its byte range' }),
    segments: z
      .array(
        z.object({
          ...SEGMENT_FIELDS,
          source: z.string().optional(),
          line: z.number().int().optional(),
          inputs: z.array(z.object(SEGMENT_FIELDS)).optional(),
        }),
      )
      .optional()
      .openapi({
        description:
          "A text template layer's pieces in order (the template's own text, each role field with its file and line, each setting and input; the inputs filled into a field), each with its byte range",
      }),
    chainRoot: z.string().optional().openapi({
      description:
        'A chain layer whose walk starts below the pack root: the folder it starts at (a nested repository)',
    }),
    explain: z.object({ status: z.string(), source: z.string() }).openapi({
      description:
        'The layer in words, as `strata explain` prints it: why it is or is not in the text, and where its text comes from',
      example: { status: 'gated: fable_mode_enabled', source: '-' },
    }),
    tokens: z
      .number()
      .int()
      .optional()
      .openapi({ description: "Tokens of the layer's text (included layers; absent when not counted)" }),
    budget: z.object({ max: z.number().int(), status: BudgetStatus }).optional(),
  })
  .openapi('Layer');

export const TokenSummarySchema = z
  .object({
    tokenizer: z.enum(ENCODINGS),
    family: z.enum(TOKENIZER_NAMES).optional(),
    estimate: z.boolean(),
    total: z.number().int(),
    budget: z.object({ max: z.number().int(), nearFrom: z.number().int(), status: BudgetStatus }).optional(),
  })
  .openapi('TokenSummary', {
    description:
      'Token counts of the whole text. Absent when counting took longer than the request budget: the result then carries a TOKEN_BUDGET_EXCEEDED warning (and `X-Strata-Warnings` names it).',
  });

export const ComposeResultSchema = z
  .object({
    version: z.string(),
    text: z.string(),
    sha256: z.string(),
    bytes: z.number().int(),
    role: z.string().optional(),
    team: z.string().optional(),
    agent: z.string().optional(),
    settings: z.record(z.string(), SettingValue),
    settingSources: z.record(z.string(), z.enum(SETTING_SOURCES)),
    inputs: z.record(z.string(), SettingValue).optional(),
    inputSources: z.record(z.string(), z.enum(['default', 'request'])).optional(),
    layers: z.array(LayerSchema),
    fallback: z.boolean(),
    diagnostics: z.array(DiagnosticSchema),
    tokens: TokenSummarySchema.optional(),
  })
  .openapi('ComposeResult');
