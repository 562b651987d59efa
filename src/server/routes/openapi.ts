import type { OpenAPIHono } from '@hono/zod-openapi';
import { VERSION } from '../../source/version.js';
import type { AppEnv } from '../service/context.js';
import { routeTable } from './route.js';

/** The OpenAPI version of `/openapi.json`. */
export const OPENAPI_VERSION = '3.0.3';

/**
 * Serves `GET /openapi.json`: the document generated from the routes' zod schemas (the
 * same ones that validate requests), built once on first request. The document describes
 * itself, and is made to compile in Ajv's strict mode and to pass `redocly lint`
 * (see `redocly.yaml`).
 */
export function addOpenApiDocument(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tags: ['service'],
    summary: 'This document',
    security: [],
    responses: {
      200: {
        description: 'The OpenAPI 3.0 document of the service',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      403: {
        description: 'HOST_NOT_ALLOWED: a Host the service does not accept',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  });
  let body: string | undefined;
  routeTable(app).add('get', '/openapi.json', 'getOpenApiDocument');
  app.get('/openapi.json', (c) => {
    body ??= JSON.stringify(openApiDocument(app));
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  });
}

/** The service's OpenAPI document as an object. */
export function openApiDocument(app: OpenAPIHono<AppEnv>): Record<string, unknown> {
  const doc = app.getOpenAPIDocument({
    openapi: OPENAPI_VERSION,
    info: {
      title: 'strata prompt service',
      version: VERSION,
      description:
        'Composed system prompts with provenance, hot reload and push updates. Every path also answers `OPTIONS` (204 with `Allow`; CORS preflights when origins are allowed) and a method it does not take with 405, `Allow` and an `Error` body; an unknown path is 404 with an `Error` body.',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:7411', description: 'strata serve on its default address' }],
    tags: [
      { name: 'prompts', description: 'Composed prompts' },
      { name: 'pack', description: 'What the pack holds' },
      { name: 'service', description: 'Status, reloads, events, health and metrics' },
    ],
  });
  return normalise(doc) as Record<string, unknown>;
}

// --- internal ---

/**
 * A schema of "any value" comes out of the generator as `{ nullable: true }`, which is
 * not valid without a `type` (Ajv: "nullable" cannot be used without "type"); in
 * OpenAPI 3.0 any value is the empty schema.
 */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === 'nullable') return {};
  const out = Object.fromEntries(entries.map(([k, v]) => [k, normalise(v)]));
  // `anyOf: [A, B, {nullable: true}]` (a nullable union): each branch nullable instead.
  for (const key of ['anyOf', 'oneOf']) {
    const branches = (value as Record<string, unknown>)[key];
    if (!Array.isArray(branches) || !branches.some(isBareNullable)) continue;
    out[key] = branches
      .filter((b) => !isBareNullable(b))
      .map((b) => ({ ...(normalise(b) as object), nullable: true }));
  }
  return out;
}

function isBareNullable(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    (value as { nullable?: unknown }).nullable === true
  );
}
