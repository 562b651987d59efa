import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { ReloadOptions } from '../../reload/store.js';
import { checkAdmin } from '../middleware/auth.js';
import { ReloadBodySchema, ReloadRefusedSchema, ReloadSchema } from '../schemas/service.js';
import type { AppEnv, Service } from '../service/context.js';
import { errorResponse } from '../service/errors.js';
import { addRoute, errors, json } from './route.js';

/** `POST /api/prompts/reload`: reload on demand (and accept a held version), behind the admin token. */
export function addAdminRoutes(app: OpenAPIHono<AppEnv>, service: Service): void {
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/prompts/reload',
      operationId: 'reloadPack',
      tags: ['service'],
      summary: 'Reload the pack now; accept a held version',
      description:
        'Needs `Authorization: Bearer <STRATA_ADMIN_TOKEN>`; without that env var the endpoint answers 403. A pack with errors is not swapped in: the answer is 422 with its diagnostics and the old version keeps being served. A valid version that would make a member lose a layer, get the fallback text, fail or disappear is held: the answer is 409 naming the members and layers, and the old version keeps being served until a reload accepts it with `?accept=<held version>` (or `{"accept": "<held version>"}`; `true` accepts whatever is read).',
      security: [{ bearer: [] }],
      request: {
        query: z.object({
          accept: z
            .string()
            .min(1)
            .max(64)
            .optional()
            .openapi({ description: 'The held version to serve (from /api/status), or `true`' }),
        }),
        body: { content: { 'application/json': { schema: ReloadBodySchema } }, required: false },
      },
      responses: {
        200: json(ReloadSchema, 'The version served after the reload and what changed'),
        409: json(
          ReloadRefusedSchema,
          'The new version degrades members and is held; the previous version is still served',
        ),
        422: json(ReloadRefusedSchema, 'The pack has errors; the previous version is still served'),
        ...errors(400, 401, 403, 413, 415),
      },
    }),
    async (c) => {
      const check = checkAdmin(c.req.header('authorization'), service.adminToken);
      if (check === 'disabled')
        return errorResponse(c, 403, 'FORBIDDEN', 'reload is disabled: set STRATA_ADMIN_TOKEN to enable it');
      if (check === 'unauthorized') {
        c.header('WWW-Authenticate', 'Bearer');
        return errorResponse(c, 401, 'UNAUTHORIZED', 'missing or wrong admin token');
      }
      const accept = acceptOf(c.req.query('accept'), await c.req.text());
      if (accept === 'bad')
        return errorResponse(c, 400, 'BAD_REQUEST', 'accept must be true or a version id, given once');
      const options: ReloadOptions = accept === undefined ? {} : { accept };
      const outcome = await service.store.reload('manual', options);
      const body: Record<string, unknown> = {
        outcome: outcome.outcome,
        version: outcome.version ?? null,
        previous: outcome.previous ?? null,
        changed: outcome.changed,
        diagnostics: outcome.diagnostics,
      };
      if (outcome.held !== undefined) body.held = outcome.held;
      if (outcome.accepted) body.accepted = true;
      if (outcome.degradation) body.degradation = outcome.degradation;
      if (outcome.outcome === 'failed') {
        const first = outcome.diagnostics.find((d) => d.severity === 'error');
        return c.json(
          { ...body, error: { code: 'RELOAD_FAILED', message: first?.message ?? 'the pack has errors' } },
          422,
        );
      }
      if (outcome.outcome === 'held') {
        const members = outcome.degradation?.members.map((m) => m.label).join(', ') ?? '';
        const mismatch =
          typeof accept === 'string'
            ? ` (accept named ${accept}, but the pack now reads as ${outcome.held})`
            : '';
        return c.json(
          {
            ...body,
            error: {
              code: 'RELOAD_HELD',
              message: `version ${outcome.held} is held: it would degrade ${members}${mismatch}; accept it with ?accept=${outcome.held}`,
            },
          },
          409,
        );
      }
      return c.json(body, 200);
    },
  );
}

// --- internal ---

/** The accept flag from the query or a JSON body: true, a version id, undefined, or 'bad'. */
function acceptOf(query: string | undefined, text: string): true | string | undefined | 'bad' {
  let fromBody: unknown;
  if (text.trim() !== '') {
    try {
      fromBody = (JSON.parse(text) as { accept?: unknown })?.accept;
    } catch {
      return 'bad';
    }
  }
  if (fromBody !== undefined && query !== undefined) return 'bad';
  const value = fromBody ?? query;
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (typeof value === 'string' && /^[0-9a-f]{1,64}$/.test(value)) return value;
  return 'bad';
}
