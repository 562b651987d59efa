import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { checkAdmin } from './auth.js';
import type { AppEnv, Service } from './context.js';
import { errorResponse } from './errors.js';
import { addRoute, errors, json } from './route.js';
import { ReloadSchema } from './schemas.js';

/** `POST /api/prompts/reload`: reload on demand, behind the admin token. */
export function addAdminRoutes(app: OpenAPIHono<AppEnv>, service: Service): void {
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/prompts/reload',
      tags: ['service'],
      summary: 'Reload the pack now',
      description:
        'Needs `Authorization: Bearer <STRATA_ADMIN_TOKEN>`; without that env var the endpoint answers 403. A pack with errors is not swapped in: the answer is 422 with its diagnostics and the old version keeps being served.',
      security: [{ bearer: [] }],
      responses: {
        200: json(ReloadSchema, 'The version served after the reload and what changed'),
        422: json(ReloadSchema, 'The pack has errors; the previous version is still served'),
        ...errors(401, 403),
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
      const outcome = await service.store.reload('manual');
      const body = {
        outcome: outcome.outcome,
        version: outcome.version ?? null,
        previous: outcome.previous ?? null,
        changed: outcome.changed,
        diagnostics: outcome.diagnostics,
      };
      if (outcome.outcome === 'failed') {
        const first = outcome.diagnostics.find((d) => d.severity === 'error');
        return c.json(
          { ...body, error: { code: 'RELOAD_FAILED', message: first?.message ?? 'the pack has errors' } },
          422,
        );
      }
      return c.json(body, 200);
    },
  );
}
