import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Snapshot } from '../../core/build/snapshot.js';
import type { ComposeRequest } from '../../core/compose/compose.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import { knownList } from '../../core/text/suggest.js';
import { composeRendered } from '../answers/compose-cache.js';
import { seconds, strictRendered } from '../answers/prompt.js';
import { warningCodes } from '../answers/prompt-response.js';
import { snapshotOf } from '../middleware/snapshot.js';
import { TeamBodySchema, TeamResultSchema } from '../schemas/requests.js';
import type { AppEnv, Service } from '../service/context.js';
import { diagnosticsResponse, errorResponse } from '../service/errors.js';
import { addRoute, defined, errors, json, valid } from './route.js';

/** `POST /api/teams/compose`: every member of a team, from one snapshot, all or nothing. */
export function addTeamRoutes(app: OpenAPIHono<AppEnv>, service: Service): void {
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
      const snapshot = snapshotOf(c, service);
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
        const rendered = await composeRendered(snapshot, request, {
          slots: service.renders,
          tokenBudgetMs: service.tokenBudgetMs,
          startedAt: c.get('startedAt'),
        });
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
  prefix: string,
): Response | undefined {
  if (snapshot.fleet.some((a) => a.id === agent)) return undefined;
  const known = snapshot.fleet.length > 0 ? knownList(snapshot.fleet.map((a) => a.id)) : '(no fleet)';
  return errorResponse(
    c,
    404,
    'UNKNOWN_AGENT',
    `${prefix}agent ${JSON.stringify(agent)} is not in the fleet (known agents: ${known}); give the member a role to compose for it anyway`,
  );
}
