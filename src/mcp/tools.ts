import type { ComposeRequest } from '../core/compose/compose.js';
import { fieldProblem } from './arguments.js';
import { invalidParams, type McpFailure } from './errors.js';
import type { RequestBounds } from './limits.js';

/** A tool as `tools/list` shows it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  annotations: Record<string, boolean>;
}

/** The tools' arguments, once checked: the compose request, and whether it is strict. */
export interface ToolRequest {
  request: ComposeRequest;
  strict: boolean;
}

/** The tools strata serves, for clients that speak only tools. */
export const TOOL_NAMES = ['compose', 'explain'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** `compose` (the prompt's text) and `explain` (its provenance, as structured content). */
export function toolDefinitions(): ToolDefinition[] {
  return [
    {
      name: 'compose',
      title: 'Compose a system prompt',
      description:
        "Compose the system prompt of a role, team and agent of the pack: exactly the bytes `strata compose` prints. Give `agent` for a fleet agent (its role and team come from the fleet) or `role` (and a `team`); `inputs` are the pack's request inputs, `settings` setting overrides.",
      inputSchema: REQUEST_SCHEMA,
      annotations: READ_ONLY,
    },
    {
      name: 'explain',
      title: 'Explain a system prompt',
      description:
        'Every layer of the pipeline for a request, as `strata explain` shows it: included or why not, where its text comes from, its bytes and its byte range in the prompt. Same arguments as compose.',
      inputSchema: REQUEST_SCHEMA,
      outputSchema: EXPLAIN_SCHEMA,
      annotations: READ_ONLY,
    },
  ];
}

/**
 * The compose request a tool's arguments make, checked as the HTTP API checks a
 * `POST /api/compose` body: names are non-empty and at most `maxNameChars` characters,
 * `inputs` and `settings` are objects (a setting a string, number or boolean), and an
 * argument the tools do not take is refused. Without `role` and `agent`, `defaultRole`.
 */
export function toolRequest(
  args: Readonly<Record<string, unknown>> | undefined,
  bounds: RequestBounds,
  defaultRole?: string,
): ToolRequest | McpFailure {
  const request: ComposeRequest = {};
  let strict = false;
  for (const [key, value] of Object.entries(args ?? {})) {
    if (value === undefined) continue;
    switch (key) {
      case 'role':
      case 'team':
      case 'agent':
      case 'ambient': {
        if (typeof value !== 'string')
          return invalidParams('BAD_REQUEST', `argument ${key} must be a string`);
        const problem = key === 'ambient' ? undefined : fieldProblem(key, value, bounds);
        if (problem) return problem;
        request[key] = value;
        break;
      }
      case 'inputs':
      case 'settings': {
        const values = namedValues(key, value);
        if (!('values' in values)) return values.problem;
        if (Object.keys(values.values).length > 0)
          request[key === 'inputs' ? 'vars' : 'settings'] = values.values;
        break;
      }
      case 'strict':
        if (typeof value !== 'boolean')
          return invalidParams('BAD_REQUEST', 'argument strict must be a boolean');
        strict = value;
        break;
      default:
        return invalidParams(
          'BAD_REQUEST',
          `unknown argument ${JSON.stringify(key)}; accepted: ${Object.keys(REQUEST_PROPERTIES).join(', ')}`,
        );
    }
  }
  if (request.role === undefined && request.agent === undefined && defaultRole !== undefined)
    request.role = defaultRole;
  return { request, strict };
}

// --- internal ---

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const REQUEST_PROPERTIES = {
  role: { type: 'string', description: 'The role to compose for (without agent: the default role, if any)' },
  team: { type: 'string', description: 'The team' },
  agent: { type: 'string', description: 'A fleet agent: brings its role and team' },
  ambient: { type: 'string', description: 'Text for the ambient layer, where the pack has one' },
  inputs: {
    type: 'object',
    description: 'Request inputs the pack declares, by name (strings are parsed by the input type)',
    additionalProperties: true,
  },
  settings: {
    type: 'object',
    description: 'Setting overrides, by name (strings are parsed by the setting type)',
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  },
  strict: {
    type: 'boolean',
    description: 'Fail when the compose has warnings (a missing layer, the fallback, …)',
  },
};

const REQUEST_SCHEMA = {
  type: 'object' as const,
  properties: REQUEST_PROPERTIES,
  additionalProperties: false,
};

const EXPLAIN_SCHEMA = {
  type: 'object' as const,
  properties: {
    version: { type: 'string', description: 'The pack version composed from' },
    sha256: { type: 'string', description: "The prompt text's sha256" },
    bytes: { type: 'integer', description: "The prompt text's length in UTF-8 bytes" },
    fallback: {
      type: 'boolean',
      description: "True when no layer was included and the text is the pack's fallback",
    },
    layers: {
      type: 'array',
      description: 'Every layer of the pipeline, in order',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          included: { type: 'boolean' },
          explain: {
            type: 'object',
            properties: { status: { type: 'string' }, source: { type: 'string' } },
            required: ['status', 'source'],
          },
        },
        required: ['id', 'included', 'explain'],
      },
    },
    diagnostics: { type: 'array', description: 'Warnings of the compose', items: { type: 'object' } },
  },
  required: ['version', 'sha256', 'bytes', 'fallback', 'layers', 'diagnostics'],
};

/** An object of named values in a prototype-free copy, or why it is refused. */
function namedValues(
  key: 'inputs' | 'settings',
  value: unknown,
): { values: Record<string, unknown> } | { problem: McpFailure } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: invalidParams('BAD_REQUEST', `argument ${key} must be an object of values`) };
  const values: Record<string, unknown> = Object.create(null);
  for (const [name, v] of Object.entries(value)) {
    if (name === '__proto__')
      return { problem: invalidParams('BAD_REQUEST', `argument ${key}: "__proto__" is not a name`) };
    if (key === 'settings' && !['string', 'number', 'boolean'].includes(typeof v))
      return {
        problem: invalidParams(
          'BAD_REQUEST',
          `argument settings.${name}: expected a string, a number or a boolean`,
        ),
      };
    values[name] = v;
  }
  return { values };
}
