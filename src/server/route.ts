import type { OpenAPIHono, RouteConfig, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from './context.js';
import { ErrorSchema } from './schemas.js';

/** A route handler that answers a plain Response (bodies are often pre-serialised). */
export type PlainHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/** Registers a documented, validated route whose handler answers a plain Response. */
export function addRoute(app: OpenAPIHono<AppEnv>, config: RouteConfig, handler: PlainHandler): void {
  app.openapi(config, handler as never);
}

/** The validated input of a route (the schema already checked it). */
export function valid<S extends z.ZodType>(
  c: Context<AppEnv>,
  target: 'json' | 'query' | 'param',
  _schema: S,
): z.infer<S> {
  return (c.req.valid as (t: string) => unknown)(target) as z.infer<S>;
}

/** An OpenAPI response entry for a JSON body. */
export function json(schema: z.ZodType, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

/** The error responses a route may give, for the document. */
export function errors(...statuses: number[]): Record<number, ReturnType<typeof json>> {
  const out: Record<number, ReturnType<typeof json>> = {};
  for (const s of statuses) out[s] = json(ErrorSchema, ERROR_TEXT[s] ?? 'Error');
  return out;
}

// --- internal ---

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request: bad name, bad or unknown setting, invalid body or query',
  401: 'Wrong admin token',
  403: 'Admin endpoints are disabled (no STRATA_ADMIN_TOKEN)',
  404: 'Unknown role, agent or version',
  413: 'Body over the size limit',
  409: 'The new version would degrade members and is held; the previous version is still served',
  415: 'Body is not JSON',
  422: 'The reload failed validation; the previous version is still served',
  500: 'The pack cannot satisfy the request',
  503: 'No pack version is loaded yet',
};
