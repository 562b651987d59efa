import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { ComposeRequest } from '../../core/compose/compose.js';
import { PROVIDER_FORMATS } from '../../formats/registry.js';
import { answerPrompt } from '../answers/prompt.js';
import type { Preconditions } from '../answers/prompt-response.js';
import { parseJson } from '../middleware/json-parse.js';
import { validatorQuery } from '../middleware/query.js';
import { isAnswer } from '../middleware/snapshot.js';
import { FORMAT_SCHEMAS } from '../schemas/formats.js';
import {
  AgentPromptQuerySchema,
  type ComposeBody,
  ComposeBodySchema,
  type PromptQuery,
  PromptQuerySchema,
} from '../schemas/requests.js';
import { ComposeResultSchema } from '../schemas/result.js';
import { type Answer, sendAnswer } from '../service/answer.js';
import type { AppEnv, Service } from '../service/context.js';
import { errorAnswer } from '../service/errors.js';
import type { DirectHandler } from '../service/route-table.js';
import {
  addRoute,
  defined,
  errors,
  IF_MATCH,
  IF_NONE_MATCH,
  PROMPT_HEADERS,
  SET_PARAMS,
  VAR_PARAMS,
  valid,
  validate,
} from './route.js';

/**
 * The compose endpoints: `GET /api/prompts/{role}`, `GET /api/agents/{agent}/prompt`,
 * `POST /api/compose` (the team compose is in teams.ts). Each request reads one
 * snapshot. Every route here answers through one function per route, which the app's
 * handler and the node server's direct handler both call with what they read: the
 * direct path is the app's route without hono's objects, not a second implementation.
 */
export function addPromptRoutes(app: OpenAPIHono<AppEnv>, service: Service): void {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/prompts/{role}',
      operationId: 'getRolePrompt',
      parameters: [SET_PARAMS, VAR_PARAMS, IF_NONE_MATCH, IF_MATCH],
      tags: ['prompts'],
      summary: "A role's composed prompt",
      description: `Query \`set.KEY=VALUE\` overrides a setting; \`var.KEY=VALUE\` gives a request input the pack declares. \`Accept: text/plain\` answers the bare text; \`format=${PROVIDER_FORMATS.join('|')}\` a provider request body. Each representation has its own \`ETag\` (text: the text sha256; JSON and formats: the body sha256); an \`If-None-Match\` naming it answers 304, an \`If-Match\` naming neither it nor \`*\` 412.`,
      request: { params: z.object({ role: z.string() }), query: PromptQuerySchema },
      responses: { 200: PROMPT_OK, 304: NOT_MODIFIED, ...errors(400, 404, 406, 412, 422, 500, 503) },
    }),
    async (c) =>
      sendAnswer(
        c,
        await getPrompt(service, ROLE, c.req.param('role') ?? '', valid(c, 'query', PromptQuerySchema), {
          query: c.get('query'),
          accept: c.req.header('accept'),
          conditions: { ifMatch: c.req.header('if-match'), ifNoneMatch: c.req.header('if-none-match') },
          startedAt: c.get('startedAt'),
        }),
      ),
    directGet(ROLE),
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/agents/{agent}/prompt',
      operationId: 'getAgentPrompt',
      parameters: [SET_PARAMS, VAR_PARAMS, IF_NONE_MATCH, IF_MATCH],
      tags: ['prompts'],
      summary: "An agent's composed prompt (its role and team from the fleet)",
      description:
        'As `GET /api/prompts/{role}`, for a fleet member; `role` and `team` override the fleet. An agent outside the fleet (of a pack that has one) is 404 UNKNOWN_AGENT with the closest fleet members, as in `POST /api/compose`; with `role` it composes, with an UNKNOWN_AGENT warning.',
      request: { params: z.object({ agent: z.string() }), query: AgentPromptQuerySchema },
      responses: { 200: PROMPT_OK, 304: NOT_MODIFIED, ...errors(400, 404, 406, 412, 422, 500, 503) },
    }),
    async (c) =>
      sendAnswer(
        c,
        await getPrompt(
          service,
          AGENT,
          c.req.param('agent') ?? '',
          valid(c, 'query', AgentPromptQuerySchema),
          {
            query: c.get('query'),
            accept: c.req.header('accept'),
            conditions: { ifMatch: c.req.header('if-match'), ifNoneMatch: c.req.header('if-none-match') },
            startedAt: c.get('startedAt'),
          },
        ),
      ),
    directGet(AGENT),
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/compose',
      operationId: 'composePrompt',
      parameters: [IF_NONE_MATCH, IF_MATCH],
      tags: ['prompts'],
      summary: 'Compose for any request',
      description:
        "A request that names neither `role` nor `agent` gets the service default role (`STRATA_ROLE`, else `CHORUS_ROLE`, when `strata serve` started with one). Preconditions are those of a POST (RFC 9110 §13.1.2): an `If-None-Match` naming the answer's ETag (or `*`) is 412 `PRECONDITION_FAILED`, never 304, as is an `If-Match` naming neither it nor `*`.",
      request: { body: { content: { 'application/json': { schema: ComposeBodySchema } }, required: true } },
      responses: { 200: PROMPT_OK, ...errors(400, 404, 406, 412, 413, 415, 422, 500, 503) },
    }),
    async (c) =>
      sendAnswer(
        c,
        await postCompose(service, valid(c, 'json', ComposeBodySchema), {
          accept: c.req.header('accept'),
          conditions: {
            ifMatch: c.req.header('if-match'),
            ifNoneMatch: c.req.header('if-none-match'),
            method: 'POST',
          },
          startedAt: c.get('startedAt'),
        }),
      ),
    ({ service, body, headers, startedAt }) => {
      let value: unknown;
      try {
        value = parseJson(body ?? '');
      } catch {
        // As the app's JSON validator says it.
        return errorAnswer(400, 'BAD_REQUEST', 'Malformed JSON in request body');
      }
      const checked = validate(ComposeBodySchema, 'json', value);
      if (isAnswer(checked)) return checked;
      return postCompose(service, checked.data, {
        accept: one(headers.accept),
        conditions: {
          ifMatch: one(headers['if-match']),
          ifNoneMatch: one(headers['if-none-match']),
          method: 'POST',
        },
        startedAt,
      });
    },
  );
}

// --- internal ---

/** What a prompt route reads beside its validated input. */
interface Read {
  /** The query's parameters (for `set.KEY` and `var.KEY`). */
  query?: ReadonlyArray<readonly [string, string]>;
  accept: string | undefined;
  /** `If-Match`, `If-None-Match`, and the method when it is not GET. */
  conditions: Preconditions;
  startedAt: number;
}

/** The two GET prompt routes: the name in the path, and the query names beside `set.`/`var.`. */
interface GetRoute {
  route: string;
  param: 'role' | 'agent';
  schema: typeof PromptQuerySchema | typeof AgentPromptQuerySchema;
  allowed: readonly string[];
}

const ROLE: GetRoute = {
  route: '/api/prompts/{role}',
  param: 'role',
  schema: PromptQuerySchema,
  allowed: ['team', 'agent', 'ambient', 'version', 'format', 'strict'],
};
const AGENT: GetRoute = {
  route: '/api/agents/{agent}/prompt',
  param: 'agent',
  schema: AgentPromptQuerySchema,
  allowed: ['role', 'team', 'ambient', 'version', 'format', 'strict'],
};

/** A GET prompt request, its query validated: the `ambient` limit, `set.`/`var.` read, then the prompt. */
function getPrompt(
  service: Service,
  get: GetRoute,
  name: string,
  validated: Omit<PromptQuery, 'agent'> & { agent?: string; role?: string },
  read: Read,
): Answer | Promise<Answer> {
  const { version, format, strict, ...query } = validated;
  const long = ambientTooLong(service, query.ambient);
  if (long) return long;
  const extra = setAndVars(read.query ?? [], get.allowed);
  if (isAnswer(extra)) return extra;
  const request: ComposeRequest = { [get.param]: name, ...defined(query), ...extra };
  return answerPrompt(service, {
    route: get.route,
    request,
    version,
    format,
    strict: strict === 'true' || strict === '1',
    accept: read.accept,
    conditions: read.conditions,
    startedAt: read.startedAt,
  });
}

/** `POST /api/compose`, its body validated: the default role, then the prompt. */
function postCompose(service: Service, body: ComposeBody, read: Read): Answer | Promise<Answer> {
  const { version, format, strict, ...rest } = body;
  const request: ComposeRequest = defined(rest);
  if (request.role === undefined && request.agent === undefined && service.defaultRole !== undefined)
    request.role = service.defaultRole;
  return answerPrompt(service, {
    route: '/api/compose',
    request,
    version,
    format,
    strict,
    accept: read.accept,
    conditions: read.conditions,
    startedAt: read.startedAt,
  });
}

/** The direct handler of a GET prompt route: its query validated with the route's schema, then {@link getPrompt}. */
function directGet(get: GetRoute): DirectHandler {
  return ({ service, params, query, headers, startedAt }) => {
    const checked = validate(get.schema, 'query', validatorQuery(query));
    if (isAnswer(checked)) return checked;
    return getPrompt(service, get, params[get.param]!, checked.data, {
      query,
      accept: one(headers.accept),
      conditions: { ifMatch: one(headers['if-match']), ifNoneMatch: one(headers['if-none-match']) },
      startedAt,
    });
  };
}

/** One value of a request header (repeated headers joined as HTTP joins them). */
function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The 200 answer of every prompt route: the result as JSON, a provider body, or the bare text. */
const PROMPT_OK = {
  content: {
    'application/json': {
      schema: z.union([ComposeResultSchema, ...Object.values(FORMAT_SCHEMAS)]).openapi({
        description: `The result with provenance; with ${PROVIDER_FORMATS.map((f) => `\`format=${f}\``).join(' or ')}, that provider body`,
      }),
    },
    'text/plain': { schema: z.string().openapi({ description: 'The bare prompt text' }) },
  },
  headers: { ...PROMPT_HEADERS, Vary: { description: '`Accept`', schema: { type: 'string' as const } } },
  description: 'The result with provenance, a provider body, or the bare text',
};
const NOT_MODIFIED = {
  description: "Not modified: If-None-Match named this representation's ETag",
  headers: PROMPT_HEADERS,
};

/**
 * Reads `set.KEY=VALUE` setting overrides and `var.KEY=VALUE` request inputs into
 * prototype-free objects (so `set.__proto__` is a name like any other, and unknown);
 * refuses query keys the route does not know.
 */
function setAndVars(
  pairs: ReadonlyArray<readonly [string, string]>,
  allowed: readonly string[],
): { settings?: Record<string, string>; vars?: Record<string, string> } | Answer {
  const out: { settings?: Record<string, string>; vars?: Record<string, string> } = {};
  if (pairs.length === 0) return out;
  const settings: Record<string, string> = Object.create(null);
  const vars: Record<string, string> = Object.create(null);
  for (const [key, value] of pairs) {
    const target = key.startsWith('set.') ? settings : key.startsWith('var.') ? vars : undefined;
    if (target && key.length > 4) {
      if (Object.hasOwn(target, key.slice(4)))
        return errorAnswer(400, 'BAD_REQUEST', `query ${key} is given more than once`);
      target[key.slice(4)] = value;
    } else if (!allowed.includes(key)) {
      return errorAnswer(
        400,
        'BAD_REQUEST',
        `unknown query parameter ${JSON.stringify(key)}; accepted: ${allowed.join(', ')}, set.KEY, var.KEY`,
      );
    }
  }
  if (Object.keys(settings).length > 0) out.settings = settings;
  if (Object.keys(vars).length > 0) out.vars = vars;
  return out;
}

/** A 400 when `?ambient=` is longer than the service allows (`serve --max-query-ambient`). */
function ambientTooLong(service: Service, ambient: string | undefined): Answer | undefined {
  if (ambient === undefined || ambient.length <= service.maxQueryAmbient) return undefined;
  return errorAnswer(
    400,
    'BAD_REQUEST',
    `query ambient: ${ambient.length} characters, over the limit of ${service.maxQueryAmbient} (serve --max-query-ambient)`,
  );
}
