import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { packProblems } from '../../engine/default-engine.js';
import type { InspectorAsset } from '../../inspector/assets.js';
import { bytesEtag } from '../answers/compose-cache.js';
import { matchesEtag } from '../answers/prompt-response.js';
import { HealthSchema, ReadySchema } from '../schemas/service.js';
import { type Answer, jsonAnswer, sendAnswer } from '../service/answer.js';
import type { AppEnv, Service } from '../service/context.js';
import { errorResponse } from '../service/errors.js';
import { addRoute, errors, json } from './route.js';

/**
 * What operators and orchestrators ask: `GET /healthz` (liveness), `/readyz`
 * (readiness), `/metrics` (Prometheus), `/api/events` (server-sent events), and the
 * inspector's page and files. Liveness and readiness are answered by the node server
 * directly too, so a probe never waits behind the app.
 */
export function addOpsRoutes(
  app: OpenAPIHono<AppEnv>,
  service: Service,
  assets: () => Promise<Map<string, InspectorAsset>>,
): void {
  addRoute(
    app,
    {
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      tags: ['service'],
      summary: 'Liveness: the process answers',
      responses: { 200: json(HealthSchema, 'Alive') },
    },
    (c) => sendAnswer(c, HEALTHY),
    () => HEALTHY,
  );
  addRoute(
    app,
    {
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      tags: ['service'],
      summary: 'Readiness: a pack version is loaded and served',
      responses: {
        200: json(ReadySchema, 'Ready, with the version served'),
        503: json(
          ReadySchema,
          'Not ready: no pack version is loaded yet, the service is starting (`starting`), or strict mode found problems (`reasons`)',
        ),
      },
    },
    (c) => sendAnswer(c, readiness(service)),
    ({ service }) => readiness(service),
  );
  addRoute(
    app,
    {
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      tags: ['service'],
      summary: 'Prometheus metrics (text exposition format 0.0.4)',
      responses: {
        200: {
          description: 'The metrics',
          content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } },
        },
      },
    },
    async (c) => {
      const { registry } = service.metrics;
      return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
    },
  );
  addRoute(
    app,
    {
      method: 'get',
      path: '/api/events',
      operationId: 'streamEvents',
      parameters: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          description: 'The id of the last event received: the events missed since are sent after `hello`',
          schema: { type: 'string' },
        },
      ],
      tags: ['service'],
      summary: 'Server-Sent Events: hello, then one reload event per new version',
      description:
        'Events: `hello` `{version}`; `reload` `{version, previous, changed: {agents, roles}, trigger}`; `reload-failed` `{version, diagnostics}` when a reload fails; `held` `{version, held, members, layers, diagnostics, trigger}` when a new version is held back because it would degrade members; `recovered` `{version}`. Every event has an `id:`; a client reconnecting with `Last-Event-ID` is sent the events it missed (from a bounded ring) after its `hello`.',
      responses: {
        200: {
          content: { 'text/event-stream': { schema: { type: 'string' } } },
          description: 'The event stream',
        },
        ...errors(503),
      },
    },
    (c) => {
      if (!service.store.state) return errorResponse(c, 503, 'NOT_READY', 'no pack version is loaded yet');
      // HEAD: the stream's headers, without opening a stream.
      if (c.req.method === 'HEAD')
        return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      return service.events.stream(c);
    },
  );

  // The inspector: GET / and its asset paths.
  let loaded: Promise<Map<string, InspectorAsset>> | undefined;
  const serveAsset = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    loaded ??= assets();
    const asset = (await loaded).get(c.req.path);
    if (!asset) return next();
    c.set('routeLabel', 'inspector');
    // Revalidated on every use (no-cache), answered 304 while the file is the one held.
    const etag = etagOf(asset);
    const held = c.req.header('if-none-match');
    if (held !== undefined && matchesEtag(held, etag, false))
      return c.body(null, 304, { ETag: etag, 'Cache-Control': 'no-cache' });
    return c.body(
      typeof asset.body === 'string' ? asset.body : (asset.body as Uint8Array<ArrayBuffer>),
      200,
      {
        'Content-Type': asset.type,
        'Cache-Control': 'no-cache',
        ETag: etag,
      },
    );
  };
  app.use('*', async (c, next) => {
    if (c.req.path.startsWith('/api/') || c.req.path === '/openapi.json') return next();
    return serveAsset(c, next);
  });
}

// --- internal ---

/** Each inspector file's ETag, the sha256 of its bytes: made on its first request. */
const etags = new WeakMap<InspectorAsset, string>();

function etagOf(asset: InspectorAsset): string {
  let etag = etags.get(asset);
  if (etag === undefined) {
    etag = bytesEtag(typeof asset.body === 'string' ? new TextEncoder().encode(asset.body) : asset.body);
    etags.set(asset, etag);
  }
  return etag;
}

/** `/healthz`: built once (liveness needs nothing but the process). */
const HEALTHY: Answer = jsonAnswer({ ok: true });

/**
 * `/readyz`: 200 once a version is loaded and the service warmed up, else 503 saying why
 * (none loaded, `starting`, or in strict mode the pack's problems).
 */
function readiness(service: Service): Answer {
  const snapshot = service.store.state?.snapshot;
  if (!snapshot) return jsonAnswer({ ready: false, version: null }, 503);
  if (service.warming) return jsonAnswer({ ready: false, version: snapshot.version, starting: true }, 503);
  const reasons = service.strict ? packProblems(snapshot) : [];
  if (reasons.length > 0) return jsonAnswer({ ready: false, version: snapshot.version, reasons }, 503);
  return jsonAnswer({ ready: true, version: snapshot.version });
}
