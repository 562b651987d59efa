import { z } from '@hono/zod-openapi';
import { SKIP_REASONS } from '../core/compose/compose.js';
import type { WordedLayer } from '../core/compose/explain.js';
import { SETTING_SOURCES, SETTING_TYPES } from '../core/pack/settings.js';
import { ENCODINGS, TOKENIZER_NAMES } from '../core/pack/tokenizer-names.js';
import { DIAGNOSTIC_CODES, type Diagnostic, SEVERITIES } from '../core/text/diagnostics.js';
import { MAX_VALUE_NESTING } from '../layouts/crewai/python-str.js';
import { LAYOUTS } from '../layouts/registry.js';
import { BUDGET_STATUSES } from '../tokens/config.js';
import type { TokenizedLayer, TokenizedResult, TokenSummary } from '../tokens/count.js';
import type { AnthropicBody, OpenAIBody } from '../tokens/providers.js';
import { PROVIDER_FORMATS } from '../tokens/providers.js';
import type { AgentConfig } from '../tooling/agent-config/agent-config.js';
import { HTTP_ERROR_CODES } from './errors.js';

// The API's schemas: they validate request bodies and queries and generate
// `/openapi.json`, so the document and the validation cannot disagree.

const Name = z
  .string()
  .min(1)
  .max(200)
  .openapi({ description: 'A role, team or agent name', example: 'developer' });
/** What a JSON number past a double's range (1e999) is told: JSON.parse reads it as Infinity. */
const NOT_FINITE = 'a number past the range of a double (such as 1e999), which JSON.parse reads as Infinity';
const SettingValue = z.union([z.string(), z.number(), z.boolean()], {
  error: (issue) =>
    issue.input === Infinity || issue.input === -Infinity
      ? NOT_FINITE
      : 'expected a string, a number or a boolean',
});
/** Names a JSON object may hold but a plain object cannot (they would change its prototype). */
const RESERVED_KEYS = ['__proto__'];
/**
 * A JSON object of names to values, refusing the names a plain object cannot hold
 * ({@link RESERVED_KEYS}) with a 400 saying each is not `what` ("a setting name").
 */
function namedValues<T extends z.ZodType>(what: string, value: T) {
  return z.preprocess(
    (input, ctx) => {
      if (typeof input === 'object' && input !== null) {
        for (const key of RESERVED_KEYS) {
          if (Object.hasOwn(input, key))
            ctx.addIssue({
              code: 'custom',
              message: `${JSON.stringify(key)} is not ${what}`,
              input,
            });
        }
      }
      return input;
    },
    z.record(z.string(), value),
  );
}
const Settings = namedValues('a setting name', SettingValue).openapi({
  description: 'Setting overrides: strings are parsed by the setting type',
  example: { fable_mode_enabled: 'on' },
});
/**
 * Request inputs: like settings, but a value may be any JSON value (an input written as
 * Python's `str()` does takes null, lists and mappings, as CrewAI's inputs do). Checked
 * without recursion, so a body nested thousands deep is refused, not a stack overflow;
 * past {@link MAX_VALUE_NESTING} levels the core says INVALID_INPUT.
 */
const Vars = namedValues(
  'an input name',
  z.unknown().superRefine((value, ctx) => {
    const problem = jsonValueProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }),
).openapi({
  description:
    'Request inputs: strings are parsed by the input type; an input of format python takes any JSON value',
  example: { topic: 'AI agents' },
});

/**
 * Why a value is not plain JSON (what a parsed body holds) nested at most
 * MAX_VALUE_NESTING + 1 deep; undefined when it is.
 */
function jsonValueProblem(value: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      // JSON.parse reads a number past a double's range (1e999) as Infinity.
      if (!Number.isFinite(v)) return NOT_FINITE;
      continue;
    }
    if (typeof v !== 'object' || depth > MAX_VALUE_NESTING)
      return `expected a JSON value nested at most ${MAX_VALUE_NESTING + 1} levels`;
    const children = Array.isArray(v) ? v : isPlainObject(v) ? Object.values(v) : undefined;
    if (!children) return `expected a JSON value nested at most ${MAX_VALUE_NESTING + 1} levels`;
    for (const c of children) stack.push([c, depth + 1]);
  }
  return undefined;
}

const Version = z.string().max(64).openapi({
  description: '`current` (default), `previous` (the last good version before this one), or a version id',
});

const Strict = z.boolean().openapi({
  description:
    'Fail when the compose has warnings (unknown role, team or agent, no role, a missing layer, the fallback): the answer is the error of the first, e.g. 404 UNKNOWN_TEAM',
});
const StrictQuery = z.enum(['true', 'false', '1', '0']).openapi({
  description: 'As `strict` in POST /api/compose: `true` or `1` fails on warnings',
});

export const DiagnosticSchema = z
  .object({
    code: z.enum(DIAGNOSTIC_CODES),
    severity: z.enum(SEVERITIES),
    message: z.string(),
    file: z.string().optional(),
    line: z.number().int().optional(),
    col: z.number().int().optional(),
    suggestions: z
      .array(z.string())
      .optional()
      .openapi({ description: 'The closest known names, for an unknown role, team, agent or setting' }),
  })
  .openapi('Diagnostic');

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum([...DIAGNOSTIC_CODES, ...HTTP_ERROR_CODES]),
      message: z.string(),
      diagnostics: z.array(DiagnosticSchema).optional(),
    }),
  })
  .openapi('Error');

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

const ProviderFormat = z.enum(PROVIDER_FORMATS).openapi({
  description:
    'Answer a provider request body instead of the result: openai `{messages:[{role:"system",content}]}`, or anthropic `{system:[text blocks]}` with cache_control breakpoints after the layers the whole fleet shares and at the end',
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

export const OpenAIBodySchema = z
  .object({
    messages: z.array(z.object({ role: z.literal('system'), content: z.string() })).length(1),
  })
  .openapi('OpenAIBody', {
    description: '`format=openai`: the prompt as the system message of a Chat Completions request',
  });

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
  .openapi('AnthropicBody', {
    description:
      '`format=anthropic`: the prompt as system blocks of a Messages request, with cache breakpoints',
  });

/** The longest `?ambient=` of a GET prompt, in characters, by default (`serve --max-query-ambient`). */
export const MAX_QUERY_AMBIENT = 32 * 1024;
/** The most members of one team compose, by default (`serve --max-team-members`). */
export const MAX_TEAM_MEMBERS = 256;

export const PromptQuerySchema = z.object({
  team: Name.optional(),
  agent: Name.optional(),
  ambient: z
    .string()
    .optional()
    .openapi({
      description: `Ambient text; at most ${MAX_QUERY_AMBIENT} characters by default (\`serve --max-query-ambient\`), else 400 BAD_REQUEST`,
    }),
  version: Version.optional(),
  format: ProviderFormat.optional(),
  strict: StrictQuery.optional(),
});

export const AgentPromptQuerySchema = PromptQuerySchema.omit({ agent: true }).extend({
  role: Name.optional(),
});

export const ComposeBodySchema = z
  .strictObject({
    role: Name.optional(),
    team: Name.optional(),
    agent: Name.optional(),
    ambient: z.string().optional(),
    settings: Settings.optional(),
    vars: Vars.optional().openapi({
      description: 'Request inputs the pack declares (its `inputs:`), parsed by type like settings',
    }),
    version: Version.optional(),
    format: ProviderFormat.optional(),
    strict: Strict.optional(),
  })
  .openapi('ComposeRequest');

export const TeamMemberSchema = z
  .strictObject({
    agent: Name,
    role: Name.optional(),
    team: Name.optional(),
    ambient: z.string().optional(),
    settings: Settings.optional(),
    vars: Vars.optional(),
  })
  .openapi('TeamMember');

export const TeamBodySchema = z
  .strictObject({
    team: Name.optional().openapi({ description: 'Default team for members that give none' }),
    settings: Settings.optional().openapi({ description: 'Overrides for every member (a member’s own win)' }),
    vars: Vars.optional().openapi({
      description: 'Request inputs for every member (a member’s own win)',
    }),
    members: z
      .array(TeamMemberSchema)
      .min(1)
      .openapi({
        description: `At most ${MAX_TEAM_MEMBERS} by default (\`serve --max-team-members\`), else 400 BAD_REQUEST`,
      }),
    strict: Strict.optional(),
  })
  .openapi('TeamComposeRequest');

export const TeamResultSchema = z
  .object({
    version: z.string(),
    results: z.array(ComposeResultSchema),
  })
  .openapi('TeamComposeResult');

export const RolesSchema = z
  .object({
    version: z.string(),
    roles: z.array(
      z.object({
        id: z.string(),
        name: z.string().optional(),
        description: z.string().optional(),
        tags: z.array(z.string()).optional(),
      }),
    ),
  })
  .openapi('Roles');

export const FleetSchema = z
  .object({
    version: z.string(),
    agents: z.array(z.object({ id: z.string(), role: z.string().nullable(), team: z.string().nullable() })),
  })
  .openapi('Fleet');

export const SettingsListSchema = z
  .object({
    version: z.string(),
    settings: z.array(
      z.object({
        name: z.string(),
        type: z.enum(SETTING_TYPES),
        default: SettingValue,
        env: z.string().nullable(),
        values: z.array(z.string()).nullable(),
        description: z.string().nullable(),
        value: SettingValue.openapi({ description: 'The value in effect (env over default)' }),
        source: z.enum(SETTING_SOURCES),
      }),
    ),
    inputs: z
      .array(
        z.object({
          name: z.string(),
          type: z.enum(['boolean', 'enum', 'string', 'integer']),
          default: SettingValue.nullable(),
          values: z.array(z.string()).nullable(),
          description: z.string().nullable(),
          required: z.boolean().openapi({ description: 'A compose that uses it fails without a value' }),
          format: z
            .enum([...LAYOUTS.formats.keys()] as [string, ...string[]])
            .nullable()
            .openapi({
              description:
                '`python`: a value that is no string is written as Python str() writes it (True, None, lists, mappings), and `vars` may hold any JSON value for it; null: as JSON writes it',
            }),
        }),
      )
      .openapi({ description: 'Request inputs (query var.KEY, body vars): declared, or used by the pack' }),
  })
  .openapi('Settings');

export const AgentConfigSchema = z
  .object({
    version: z.string(),
    agent: z.string().optional(),
    role: z.string().optional(),
    team: z.string().optional(),
    config: z.record(z.string(), z.any()).openapi({
      description: 'model, models, capabilities, expertise, max_tasks, temperature, … and any other key',
    }),
    sources: z.record(
      z.string(),
      z.object({
        from: z.enum(['agent_defaults', 'role', 'agent']),
        file: z.string().optional(),
        via: z.literal('models[0]').optional(),
      }),
    ),
  })
  .openapi('AgentConfig');

export const ChangesSchema = z
  .object({ agents: z.array(z.string()), roles: z.array(z.string()) })
  .openapi('Changes');

export const DegradationSchema = z
  .object({
    members: z.array(
      z.object({
        member: z.string(),
        label: z.string(),
        agent: z.string().optional(),
        role: z.string().optional(),
        removed: z.boolean(),
        fallback: z.boolean(),
        failing: z.array(z.string()).optional(),
        lost: z.array(
          z.object({
            layer: z.string(),
            was: z.string().optional(),
            reason: z.enum(['missing', 'empty', 'gated', 'no-value', 'removed']),
            looked: z.string().optional(),
          }),
        ),
      }),
    ),
    layers: z.array(z.string()),
  })
  .openapi('Degradation', {
    description:
      'What a new version would take away: members that would lose layers, get the fallback text, fail, or disappear',
  });

export const HeldSchema = z
  .object({
    version: z.string().openapi({ description: 'The version held back (not served)' }),
    at: z.string(),
    trigger: z.string(),
    members: DegradationSchema.shape.members,
    layers: z.array(z.string()),
    diagnostics: z.array(DiagnosticSchema),
  })
  .openapi('Held');

export const ReloadBodySchema = z
  .object({
    accept: z
      .union([z.literal(true), z.string().min(1).max(64)])
      .optional()
      .openapi({
        description:
          'Serve the new version even though it degrades members: `true`, or the held version id from /api/status (safer: a pack that changed again is held anew)',
      }),
  })
  .openapi('ReloadBody');

export const StatusSchema = z
  .object({
    ready: z.boolean(),
    version: z.string().nullable(),
    previous: z.string().nullable(),
    preset: z.string().nullable(),
    loadedAt: z.string().nullable(),
    lastReloadAt: z.string().nullable(),
    lastReloadRead: z.enum(['hinted', 'full']).nullable().openapi({
      description:
        'How the last reload read the pack: `hinted` (only the paths file events named, on top of the last complete read) or `full`',
    }),
    lastError: z
      .object({ at: z.string(), trigger: z.string(), diagnostics: z.array(DiagnosticSchema) })
      .nullable(),
    held: HeldSchema.nullable(),
    warnings: z.array(DiagnosticSchema),
    counts: z.object({ files: z.number().int(), roles: z.number().int(), agents: z.number().int() }),
    service: z.object({
      version: z.string(),
      watching: z.boolean(),
      startedAt: z.string(),
      allowLayerLoss: z.boolean(),
    }),
  })
  .openapi('Status');

export const ReloadSchema = z
  .object({
    outcome: z.enum(['swapped', 'unchanged', 'failed', 'held', 'superseded']),
    version: z.string().nullable(),
    previous: z.string().nullable(),
    changed: ChangesSchema,
    diagnostics: z.array(DiagnosticSchema),
    held: z.string().optional().openapi({ description: 'The version held back (outcome `held`)' }),
    accepted: z.boolean().optional(),
    degradation: DegradationSchema.optional(),
  })
  .openapi('Reload');

export const ReloadRefusedSchema = ReloadSchema.extend({
  error: z.object({ code: z.enum(['RELOAD_FAILED', 'RELOAD_HELD']), message: z.string() }),
}).openapi('ReloadRefused');

export const HealthSchema = z.object({ ok: z.literal(true) }).openapi('Health');

export const ReadySchema = z
  .object({
    ready: z.boolean(),
    version: z.string().nullable(),
    starting: z.literal(true).optional().openapi({ description: 'Loaded, still warming up' }),
    reasons: z
      .array(DiagnosticSchema)
      .optional()
      .openapi({ description: 'Strict mode: why the pack is not usable' }),
  })
  .openapi('Ready');

export type ComposeBody = z.infer<typeof ComposeBodySchema>;
export type TeamBody = z.infer<typeof TeamBodySchema>;
export type PromptQuery = z.infer<typeof PromptQuerySchema>;

// --- internal ---

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
  openai: Fits<OpenAIBody, typeof OpenAIBodySchema>;
  anthropic: Fits<AnthropicBody, typeof AnthropicBodySchema>;
} = {
  result: [true, true],
  layer: [true, true],
  tokens: [true, true],
  diagnostic: [true, true],
  config: [true, true],
  openai: true,
  anthropic: true,
};
void contract;

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
