import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Snapshot } from '../../core/build/snapshot.js';
import { type ComposeRequest, strictOutcome } from '../../core/compose/compose.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import { PROVIDER_FORMATS, type ProviderFormat, providerBody } from '../../formats/registry.js';
import {
  composeRendered,
  peekRendered,
  type Rendered,
  type RenderOutcome,
} from '../answers/compose-cache.js';
import {
  bodyAnswer,
  PROMPT_TYPES,
  promptAnswer,
  rawHeaders,
  warningCodes,
} from '../answers/prompt-response.js';
import { badQueryMessage, parseQuery } from '../middleware/query.js';
import { header } from '../node/fast-path.js';
import {
  AgentPromptQuerySchema,
  ComposeBodySchema,
  ComposeResultSchema,
  FORMAT_SCHEMAS,
  PromptQuerySchema,
  TeamBodySchema,
  TeamResultSchema,
} from '../schemas/schemas.js';
import { type AppEnv, pickSnapshot, type Service } from '../service/context.js';
import { diagnosticsResponse, errorResponse } from '../service/errors.js';
import {
  addRoute,
  errors,
  IF_NONE_MATCH,
  json,
  PROMPT_HEADERS,
  SET_PARAMS,
  VAR_PARAMS,
  valid,
} from './route.js';
import type { DirectHandler } from './route-table.js';

/**
 * The compose endpoints: `GET /api/prompts/{role}`, `GET /api/agents/{agent}/prompt`,
 * `POST /api/compose`, `POST /api/teams/compose`. Each request reads one snapshot.
 */
export function addPromptRoutes(app: OpenAPIHono<AppEnv>, service: Service): void {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/prompts/{role}',
      operationId: 'getRolePrompt',
      parameters: [SET_PARAMS, VAR_PARAMS, IF_NONE_MATCH],
      tags: ['prompts'],
      summary: "A role's composed prompt",
      description: `Query \`set.KEY=VALUE\` overrides a setting; \`var.KEY=VALUE\` gives a request input the pack declares. \`Accept: text/plain\` answers the bare text; \`format=${PROVIDER_FORMATS.join('|')}\` a provider request body. Each representation has its own \`ETag\` (text: the text sha256; JSON and formats: the body sha256); an \`If-None-Match\` naming it answers 304.`,
      request: { params: z.object({ role: z.string() }), query: PromptQuerySchema },
      responses: {
        200: PROMPT_OK,
        304: NOT_MODIFIED,
        ...errors(400, 404, 406, 422, 500, 503),
      },
    }),
    (c) => {
      const { version, format, strict, ...query } = valid(c, 'query', PromptQuerySchema);
      const long = ambientTooLong(c, service, query.ambient);
      if (long) return long;
      const extra = checkQuery(c, ['team', 'agent', 'ambient', 'version', 'format', 'strict']);
      if (extra instanceof Response) return extra;
      const request: ComposeRequest = { role: c.req.param('role'), ...defined(query), ...extra };
      return answer(c, service, '/api/prompts/{role}', request, { version, format, strict: isOn(strict) });
    },
    directPrompt('role', ['team', 'agent']),
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/agents/{agent}/prompt',
      operationId: 'getAgentPrompt',
      parameters: [SET_PARAMS, VAR_PARAMS, IF_NONE_MATCH],
      tags: ['prompts'],
      summary: "An agent's composed prompt (its role and team from the fleet)",
      description:
        'As `GET /api/prompts/{role}`, for a fleet member; `role` and `team` override the fleet. An agent outside the fleet (of a pack that has one) is 404 UNKNOWN_AGENT with the closest fleet members, as in `POST /api/compose`; with `role` it composes, with an UNKNOWN_AGENT warning.',
      request: { params: z.object({ agent: z.string() }), query: AgentPromptQuerySchema },
      responses: {
        200: PROMPT_OK,
        304: NOT_MODIFIED,
        ...errors(400, 404, 406, 422, 500, 503),
      },
    }),
    (c) => {
      const { version, format, strict, ...query } = valid(c, 'query', AgentPromptQuerySchema);
      const long = ambientTooLong(c, service, query.ambient);
      if (long) return long;
      const extra = checkQuery(c, ['role', 'team', 'ambient', 'version', 'format', 'strict']);
      if (extra instanceof Response) return extra;
      const request: ComposeRequest = { agent: c.req.param('agent'), ...defined(query), ...extra };
      return answer(c, service, '/api/agents/{agent}/prompt', request, {
        version,
        format,
        strict: isOn(strict),
      });
    },
    directPrompt('agent', ['role', 'team']),
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/compose',
      operationId: 'composePrompt',
      parameters: [IF_NONE_MATCH],
      tags: ['prompts'],
      summary: 'Compose for any request',
      description:
        'A request that names neither `role` nor `agent` gets the service default role (`STRATA_ROLE`, else `CHORUS_ROLE`, when `strata serve` started with one).',
      request: { body: { content: { 'application/json': { schema: ComposeBodySchema } }, required: true } },
      responses: {
        200: PROMPT_OK,
        304: NOT_MODIFIED,
        ...errors(400, 404, 406, 413, 415, 422, 500, 503),
      },
    }),
    (c) => {
      const { version, format, strict, ...body } = valid(c, 'json', ComposeBodySchema);
      const request: ComposeRequest = defined(body);
      if (request.role === undefined && request.agent === undefined && service.defaultRole !== undefined)
        request.role = service.defaultRole;
      return answer(c, service, '/api/compose', request, { version, format, strict });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/teams/compose',
      operationId: 'composeTeam',
      tags: ['prompts'],
      summary: 'Compose for every member of a team, from one pack version',
      description: 'All or nothing: a member that cannot be composed fails the call, naming the member.',
      request: { body: { content: { 'application/json': { schema: TeamBodySchema } }, required: true } },
      responses: {
        200: json(TeamResultSchema, 'One result per member, in order'),
        ...errors(400, 404, 413, 415, 422, 500, 503),
      },
    }),
    async (c) => {
      const body = valid(c, 'json', TeamBodySchema);
      if (body.members.length > service.maxTeamMembers)
        return errorResponse(
          c,
          400,
          'BAD_REQUEST',
          `body members: ${body.members.length} members, over the limit of ${service.maxTeamMembers} (serve --max-team-members)`,
        );
      const snapshot = pickSnapshot(c, service);
      if (snapshot instanceof Response) return snapshot;
      const started = performance.now();
      const results: Uint8Array[] = [];
      const warnings: Diagnostic[] = [];
      for (const [i, member] of body.members.entries()) {
        if (member.role === undefined) {
          const unknown = unknownAgent(c, snapshot, member.agent, `member ${i}: `);
          if (unknown) return unknown;
        }
        const { settings, vars, ...rest } = member;
        const request: ComposeRequest = defined({ team: body.team, ...defined(rest) });
        const merged = Object.assign(Object.create(null), body.settings, settings);
        if (Object.keys(merged).length > 0) request.settings = merged;
        const mergedVars = Object.assign(Object.create(null), body.vars, vars);
        if (Object.keys(mergedVars).length > 0) request.vars = mergedVars;
        const rendered = await renderWithin(c, service, request, snapshot);
        const outcome = service.strict || body.strict ? strictRendered(rendered) : rendered;
        if (!outcome.ok) {
          service.metrics.compose(
            '/api/teams/compose',
            outcome.diagnostics[0]?.code ?? 'error',
            seconds(started),
          );
          const named = outcome.diagnostics.map((d) => ({
            ...d,
            message: `member ${i} (${member.agent}): ${d.message}`,
          }));
          return diagnosticsResponse(c, named);
        }
        results.push(outcome.rendered.jsonBytes);
        warnings.push(...outcome.rendered.result.diagnostics);
      }
      service.metrics.compose('/api/teams/compose', 'ok', seconds(started));
      service.metrics.warnings('/api/teams/compose', warnings);
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      const codes = warningCodes(warnings);
      if (codes.length > 0) headers['X-Strata-Warnings'] = codes.join(', ');
      return c.body(teamBody(snapshot.version, results), 200, headers);
    },
  );
}

// --- internal ---

/**
 * The direct handler of a prompt route: the answer the route's app handler gives, when
 * the render cache already holds it. It takes only what the app handler reads the same
 * way (`plain` names once each, non-empty; `set.KEY` and `var.KEY` once each) and leaves
 * everything else to the app: `version`, `format`, `strict`, `ambient`, unknown or
 * repeated keys, an agent outside the fleet without a role, strict mode with warnings.
 */
function directPrompt(kind: 'role' | 'agent', plain: readonly ('role' | 'team' | 'agent')[]): DirectHandler {
  return ({ params, query, headers, service }) => {
    const request: ComposeRequest = kind === 'role' ? { role: params.role! } : { agent: params.agent! };
    if (query !== '') {
      const settings: Record<string, string> = Object.create(null);
      const vars: Record<string, string> = Object.create(null);
      // A query that does not decode (or holds a fragment) is the app's to refuse.
      const params = query.includes('#') ? undefined : parseQuery(query);
      if (params === undefined || 'bad' in params) return undefined;
      for (const [key, value] of params) {
        const target = key.startsWith('set.') ? settings : key.startsWith('var.') ? vars : undefined;
        if (target && key.length > 4) {
          if (Object.hasOwn(target, key.slice(4))) return undefined;
          target[key.slice(4)] = value;
        } else if ((plain as readonly string[]).includes(key) && value !== '' && value.length <= 200) {
          const k = key as 'role' | 'team' | 'agent';
          if (request[k] !== undefined) return undefined;
          request[k] = value;
        } else return undefined;
      }
      if (Object.keys(settings).length > 0) request.settings = settings;
      if (Object.keys(vars).length > 0) request.vars = vars;
    }
    const snapshot = service.store.state?.snapshot;
    if (!snapshot) return undefined;
    if (kind === 'agent' && request.role === undefined && !snapshot.fleet.some((a) => a.id === request.agent))
      return undefined;
    const rendered = peekRendered(snapshot, request);
    if (!rendered) return undefined;
    const { diagnostics } = rendered.result;
    if (service.strict && diagnostics.length > 0) return undefined;
    const answered = promptAnswer(rendered, header(headers.accept), header(headers['if-none-match']));
    if (!answered) return undefined; // the app answers 406
    return {
      status: answered.status,
      headers: rawHeaders(answered),
      body: answered.body,
      composed: diagnostics,
    };
  };
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
 * Composes one request and answers JSON or text, with ETag and If-None-Match; with a
 * provider `format`, the provider request body (no ETag: its breakpoint follows the fleet).
 * Warnings travel in the result and in `X-Strata-Warnings`; in strict mode (the request's
 * flag or `serve --strict`) they are the error answer instead.
 */
async function answer(
  c: Context<AppEnv>,
  service: Service,
  route: string,
  request: ComposeRequest,
  options: { version?: string; format?: ProviderFormat; strict?: boolean },
): Promise<Response> {
  const snapshot = pickSnapshot(c, service, options.version);
  if (snapshot instanceof Response) return snapshot;
  const started = performance.now();
  const rendered = await renderWithin(c, service, request, snapshot);
  const outcome = service.strict || options.strict ? strictRendered(rendered) : rendered;
  service.metrics.compose(
    route,
    outcome.ok ? 'ok' : (outcome.diagnostics[0]?.code ?? 'error'),
    seconds(started),
  );
  if (!outcome.ok) return diagnosticsResponse(c, outcome.diagnostics);
  service.metrics.warnings(route, outcome.rendered.result.diagnostics);
  if (options.format) {
    const body = providerBody(snapshot, outcome.rendered.result, options.format, {
      settings: request.settings,
    });
    const bytes = new TextEncoder().encode(JSON.stringify(body));
    const answered = bodyAnswer(bytes, snapshot.version, c.req.header('if-none-match'));
    const headers: Record<string, string> = { ...answered.headers };
    const codes = warningCodes(outcome.rendered.result.diagnostics);
    if (codes.length > 0) headers['x-strata-warnings'] = codes.join(', ');
    return answered.status === 304 ? c.body(null, 304, headers) : c.body(bytes, 200, headers);
  }
  return send(c, outcome.rendered);
}

/**
 * A rendered outcome in strict mode: warnings fail it (see {@link strictOutcome}), except
 * `TOKEN_BUDGET_EXCEEDED`, which says nothing about the prompt the agent gets.
 */
function strictRendered(outcome: RenderOutcome): RenderOutcome {
  if (!outcome.ok) return outcome;
  const { result } = outcome.rendered;
  const diagnostics = result.diagnostics.filter((d) => d.code !== 'TOKEN_BUDGET_EXCEEDED');
  const strict = strictOutcome({ ok: true, result: { ...result, diagnostics } });
  return strict.ok ? outcome : strict;
}

function isOn(flag: string | undefined): boolean {
  return flag === 'true' || flag === '1';
}

function send(c: Context<AppEnv>, rendered: Rendered): Response {
  const accept = c.req.header('accept');
  const answered = promptAnswer(rendered, accept, c.req.header('if-none-match'));
  if (!answered) {
    c.header('Vary', 'Accept');
    return errorResponse(
      c,
      406,
      'NOT_ACCEPTABLE',
      `Accept ${JSON.stringify(accept?.slice(0, 200))} accepts none of the prompt's representations: ${PROMPT_TYPES.join(', ')}`,
    );
  }
  const { status, headers, body } = answered;
  return status === 304 ? c.body(null, 304, headers) : c.body(body!, 200, headers);
}

/**
 * Composes and renders within the service's token budget (past it, the prompt comes
 * without token counts and with a `TOKEN_BUDGET_EXCEEDED` warning).
 */
function renderWithin(
  c: Context<AppEnv>,
  service: Service,
  request: ComposeRequest,
  snapshot: Snapshot,
): Promise<RenderOutcome> {
  return composeRendered(snapshot, request, {
    tokenBudgetMs: service.tokenBudgetMs,
    startedAt: c.get('startedAt'),
  });
}

/** `{"version":…,"results":[…]}` from the members' JSON bodies, without decoding them. */
function teamBody(version: string, results: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [Buffer.from(`{"version":${JSON.stringify(version)},"results":[`)];
  for (const [i, r] of results.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(r);
  }
  parts.push(END);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const COMMA = Buffer.from(',');
const END = Buffer.from(']}');

function unknownAgent(
  c: Context<AppEnv>,
  snapshot: Snapshot,
  agent: string,
  prefix = '',
): Response | undefined {
  if (snapshot.fleet.some((a) => a.id === agent)) return undefined;
  const known = snapshot.fleet.map((a) => a.id).join(', ') || '(no fleet)';
  return errorResponse(
    c,
    404,
    'UNKNOWN_AGENT',
    `${prefix}agent ${JSON.stringify(agent)} is not in the fleet (known agents: ${known}); ${prefix ? 'give the member a role' : 'give role='} to compose for it anyway`,
  );
}

/**
 * Reads `set.KEY=VALUE` setting overrides and `var.KEY=VALUE` request inputs into
 * prototype-free objects (so `set.__proto__` is a name like any other, and unknown);
 * refuses query keys the route does not know.
 */
function checkQuery(
  c: Context<AppEnv>,
  allowed: string[],
): { settings?: Record<string, string>; vars?: Record<string, string> } | Response {
  const settings: Record<string, string> = Object.create(null);
  const vars: Record<string, string> = Object.create(null);
  const params = parseQuery(new URL(c.req.url).search.slice(1));
  if ('bad' in params) return errorResponse(c, 400, 'BAD_REQUEST', badQueryMessage(params.bad));
  for (const [key, value] of params) {
    const target = key.startsWith('set.') ? settings : key.startsWith('var.') ? vars : undefined;
    if (target && key.length > 4) {
      if (Object.hasOwn(target, key.slice(4))) {
        return errorResponse(c, 400, 'BAD_REQUEST', `query ${key} is given more than once`);
      }
      target[key.slice(4)] = value;
    } else if (!allowed.includes(key)) {
      return errorResponse(
        c,
        400,
        'BAD_REQUEST',
        `unknown query parameter ${JSON.stringify(key)}; accepted: ${allowed.join(', ')}, set.KEY, var.KEY`,
      );
    }
  }
  const out: { settings?: Record<string, string>; vars?: Record<string, string> } = {};
  if (Object.keys(settings).length > 0) out.settings = settings;
  if (Object.keys(vars).length > 0) out.vars = vars;
  return out;
}

/** Drops keys whose value is undefined (requests compare by their keys). */
/** A 400 when `?ambient=` is longer than the service allows (`serve --max-query-ambient`). */
function ambientTooLong(c: Context, service: Service, ambient: string | undefined): Response | undefined {
  if (ambient === undefined || ambient.length <= service.maxQueryAmbient) return undefined;
  return errorResponse(
    c,
    400,
    'BAD_REQUEST',
    `query ambient: ${ambient.length} characters, over the limit of ${service.maxQueryAmbient} (serve --max-query-ambient)`,
  );
}

function defined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}

function seconds(started: number): number {
  return (performance.now() - started) / 1000;
}
