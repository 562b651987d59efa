import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { matchedRoutes } from 'hono/route';
import pino, { type Logger } from 'pino';
import type { DiagnosticCode } from '../core/text/diagnostics.js';
import { packProblems } from '../engine/default-engine.js';
import { type InspectorAsset, inspectorAssets } from '../inspector/assets.js';
import type { SnapshotStore } from '../reload/store.js';
import { readBodies } from './middleware/body.js';
import { createCors } from './middleware/cors.js';
import { SECURITY_HEADERS } from './middleware/headers.js';
import { hostPolicy, isUnsafeMethod } from './middleware/host.js';
import { badPathMessage, badQueryMessage, decodePart, parseQuery } from './middleware/query.js';
import { addAdminRoutes } from './routes/admin.js';
import { addOpenApiDocument } from './routes/openapi.js';
import { addPackRoutes } from './routes/pack.js';
import { addPromptRoutes } from './routes/prompts.js';
import { addRoute, errors, json, routeTable } from './routes/route.js';
import type { DirectAnswer } from './routes/route-table.js';
import { HealthSchema, MAX_QUERY_AMBIENT, MAX_TEAM_MEMBERS, ReadySchema } from './schemas/schemas.js';
import type { AppEnv, Service } from './service/context.js';
import { errorResponse } from './service/errors.js';
import { EventHub } from './service/events.js';
import { logRequest, requestId } from './service/logging.js';
import { createMetrics, type ServiceMetrics } from './service/metrics.js';

export interface AppOptions {
  store: SnapshotStore;
  /** Enables `POST /api/prompts/reload` (from `STRATA_ADMIN_TOKEN`). */
  adminToken?: string;
  /** Structured logs (default: silent). */
  logger?: Logger;
  metrics?: ServiceMetrics;
  /** Whether a watcher reloads the pack (reported in `/api/status`). */
  watching?: boolean;
  /**
   * The role of a `POST /api/compose` that names neither a role nor an agent (`strata serve`
   * takes it from `STRATA_ROLE`, else `CHORUS_ROLE`).
   */
  defaultRole?: string;
  /**
   * Answer every compose with warnings as an error, as the `strict` request flag does; and
   * readiness means a usable pack: `/readyz` answers 503 with the reasons while the pack
   * has load warnings or a member composes with a warning (a missing layer, an unknown
   * role, the fallback text).
   */
  strict?: boolean;
  /** Request bodies over this many bytes are answered 413 (default 64 KiB). */
  maxBodyBytes?: number;
  /** A longer `?ambient=` (in characters) is answered 400 `BAD_REQUEST` (default `MAX_QUERY_AMBIENT`, 32 KiB). */
  maxQueryAmbient?: number;
  /** A team compose with more members is answered 400 `BAD_REQUEST` (default `MAX_TEAM_MEMBERS`, 256). */
  maxTeamMembers?: number;
  /**
   * Events queued for one `/api/events` client that is not reading, at most (default
   * `MAX_PENDING_EVENTS`, 512; bytes of event data at most scale with it, 4 KiB per event);
   * past it the client is cut off and an `EVENTS_CLIENT_TOO_SLOW` warning logged.
   */
  maxEventBacklog?: number;
  /** SSE heartbeat period (default 15 s). */
  heartbeatMs?: number;
  /** Past SSE events kept for `Last-Event-ID` replay (default 256). */
  replayEvents?: number;
  /** Time budget for one request's token counts, counted off the event loop (default 5 s); past it, the prompt is answered without counts and with a TOKEN_BUDGET_EXCEEDED warning. */
  tokenBudgetMs?: number;
  /** The inspector's static files (default: the bundled inspector). */
  assets?: () => Promise<Map<string, InspectorAsset>>;
  /** Origins allowed cross-origin access (`*`: any); none by default (CORS off). */
  cors?: readonly string[];
  /**
   * Host names accepted in `Host` (and `Origin` of unsafe methods) beside loopback names
   * and IP literals; `*` accepts any (see `hostPolicy`). Default: any, as the app alone
   * has no socket; `startService` passes the loopback default for a loopback address.
   */
  allowedHosts?: readonly string[];
}

/** The prompt service as a `(Request) => Response` handler, plus what shutdown needs. */
export interface StrataApp {
  /** The hono app; `app.request(path, init)` calls it without a socket. */
  app: OpenAPIHono<AppEnv>;
  /** Answers a request; `env` is the adapter's (the node server's `{ incoming, outgoing }`, read for bodies). */
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  metrics: ServiceMetrics;
  events: EventHub;
  /** What the routes read (for adapters such as the node fast path). */
  service: Service;
  /** Ends the event streams (call before closing the HTTP server). */
  close(): void;
}

/** The default request body limit. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Builds the prompt service (README, "The prompt service") over a snapshot store. Every
 * request reads one snapshot from the store, so a reload never shows a request two
 * versions.
 *
 * @example
 * const store = new SnapshotStore(stablePackLoader({ dir: 'examples/roboco' }));
 * await store.reload('initial');
 * const { app } = createApp({ store });
 * const res = await app.request('/api/prompts/developer', { headers: { accept: 'text/plain' } });
 */
export function createApp(options: AppOptions): StrataApp {
  const { store } = options;
  const logger = options.logger ?? pino({ level: 'silent' });
  const metrics = options.metrics ?? createMetrics(store);
  const events = new EventHub(store, {
    heartbeatMs: options.heartbeatMs,
    replayEvents: options.replayEvents,
    maxBacklog: options.maxEventBacklog,
    onCount: (n) => metrics.sseClients(n),
    onDrop: (backlog) => {
      metrics.sseDropped();
      logger.warn(
        { code: 'EVENTS_CLIENT_TOO_SLOW' satisfies DiagnosticCode, ...backlog },
        'an /api/events client that stopped reading was cut off (serve --max-event-backlog)',
      );
    },
  });
  const service: Service = {
    store,
    metrics,
    events,
    logger,
    adminToken: options.adminToken,
    watching: options.watching ?? false,
    defaultRole: options.defaultRole,
    cors: createCors(options.cors),
    hosts: hostPolicy(options.allowedHosts ?? ['*']),
    strict: options.strict ?? false,
    startedAt: new Date(),
    tokenBudgetMs: options.tokenBudgetMs,
    maxQueryAmbient: options.maxQueryAmbient ?? MAX_QUERY_AMBIENT,
    maxTeamMembers: options.maxTeamMembers ?? MAX_TEAM_MEMBERS,
  };
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue?.path.length ? `${result.target} ${issue.path.join('.')}` : result.target;
        return errorResponse(c, 400, 'BAD_REQUEST', `${where}: ${issue?.message ?? 'invalid'}`);
      }
    },
  });

  // 1. Request id, access log, request metrics.
  app.use('*', async (c, next) => {
    const id = requestId(c.req.header('x-request-id'));
    c.set('requestId', id);
    const started = performance.now();
    c.set('startedAt', started);
    await next();
    const elapsed = performance.now() - started;
    c.res.headers.set('X-Request-Id', id);
    const route = routeLabel(c);
    metrics.request(route, c.req.method, c.res.status, elapsed / 1000);
    logRequest(logger, {
      reqId: id,
      method: c.req.method,
      path: c.req.path,
      route,
      status: c.res.status,
      ms: elapsed,
    });
  });

  // 2. Host and Origin (DNS rebinding), and the security headers of every answer.
  app.use('*', async (c, next) => {
    const denied = hostDenial(c, service);
    if (denied) c.res = denied;
    else await next();
    for (const [name, value] of SECURITY_HEADERS) c.res.headers.set(name, value);
  });

  // 3. Methods: OPTIONS (and CORS preflight) answered for every known path, CORS headers
  //    on every answer, Content-Length on HEAD answers.
  const assetsLoader = options.assets ?? inspectorAssets;
  let assetPaths: Promise<Map<string, InspectorAsset>> | undefined;
  const allowed = async (path: string) => {
    const methods = routeTable(app).methods(path);
    if (methods.length > 0) return methods;
    assetPaths ??= assetsLoader();
    return (await assetPaths).has(path) ? ['GET', 'HEAD', 'OPTIONS'] : [];
  };
  app.use('*', async (c, next) => {
    const origin = c.req.header('origin');
    if (c.req.method === 'OPTIONS') {
      const allow = await allowed(c.req.path);
      if (allow.length === 0) return next();
      const headers = new Headers({ Allow: allow.join(', ') });
      const preflight = service.cors.preflight(
        origin,
        c.req.header('access-control-request-method'),
        c.req.header('access-control-request-headers'),
        allow,
      );
      for (const [name, value] of preflight) headers.append(name, value);
      c.res = new Response(null, { status: 204, headers });
      return;
    }
    await next();
    for (const [name, value] of service.cors.headers(origin)) c.res.headers.append(name, value);
    if (c.req.method === 'HEAD') await setContentLength(c);
  });

  // 4. A query that is not percent-encoded UTF-8 is refused, never decoded two ways
  //    (see parseQuery), and so is, on the API, a parameter the route does not declare
  //    (`/api/agents/ada/config?rol=qa` would be ada's own config, `/api/settings?version=
  //    previous` the current settings, without a word); every POST body read once, within
  //    the size limit, and parsed once.
  app.use('*', async (c, next) => {
    const url = c.req.url;
    // A route's path that does not decode: hono's params keep such a segment undecoded,
    // so `/api/prompts/caf%E9` (Latin-1) was looked up as the role "caf%E9".
    if (url.includes('%')) {
      const path = new URL(url).pathname;
      if (
        path.includes('%') &&
        decodePart(path) === undefined &&
        routeTable(app).methods(c.req.path).length > 0
      )
        return errorResponse(c, 400, 'BAD_REQUEST', badPathMessage(path));
    }
    if (url.includes('?')) {
      const parsed = parseQuery(new URL(url).search.slice(1));
      if ('bad' in parsed) return errorResponse(c, 400, 'BAD_REQUEST', badQueryMessage(parsed.bad));
      if (c.req.path.startsWith('/api/')) {
        const problem = routeTable(app).queryProblem(
          c.req.method,
          c.req.path,
          parsed.map(([key]) => key),
        );
        if (problem) return errorResponse(c, 400, 'BAD_REQUEST', problem);
      }
    }
    return next();
  });
  // Only a route that takes the method reads a body: a 404 or 405 leaves it unread (and
  // an `Expect: 100-continue` client is not invited to send it).
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const bodies = readBodies(limit);
  app.use('/api/*', (c, next) =>
    routeTable(app).methods(c.req.path).includes(c.req.method) ? bodies(c, next) : next(),
  );

  // 5. Routes.
  addOpsRoutes(app, service, assetsLoader);
  addPromptRoutes(app, service);
  addPackRoutes(app, service);
  addAdminRoutes(app, service);
  addOpenApiDocument(app);

  // 6. Errors: a known path with another method is 405 with Allow.
  app.notFound(async (c) => {
    const allow = await allowed(c.req.path);
    if (allow.length > 0) {
      c.header('Allow', allow.join(', '));
      return errorResponse(
        c,
        405,
        'METHOD_NOT_ALLOWED',
        `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow.join(', ')}`,
      );
    }
    return errorResponse(c, 404, 'NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`);
  });
  app.onError((e, c) => {
    if (e instanceof HTTPException) {
      if (e.status === 415)
        return errorResponse(c, 415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
      if (e.status === 413)
        return errorResponse(c, 413, 'BODY_TOO_LARGE', `request body is over ${limit} bytes`);
      if (e.status < 500) return errorResponse(c, 400, 'BAD_REQUEST', e.message || 'bad request');
    }
    logger.error({ reqId: c.get('requestId'), err: e }, 'unhandled error');
    return errorResponse(c, 500, 'INTERNAL', 'internal error');
  });

  return {
    app,
    fetch: (request, env) => app.fetch(request, env),
    metrics,
    events,
    service,
    close: () => events.close(),
  };
}

// --- internal ---

const HEALTHY = { ok: true };
/** `/healthz` answered directly: the app's answer, built once (liveness needs no app). */
const HEALTHY_ANSWER: DirectAnswer = (() => {
  const body = new TextEncoder().encode(JSON.stringify(HEALTHY));
  const headers = ['content-type', 'application/json'];
  for (const [name, value] of SECURITY_HEADERS) headers.push(name.toLowerCase(), value);
  headers.push('content-length', String(body.byteLength));
  return { status: 200, headers, body };
})();

/** The 403 answer for a Host, or an unsafe method's Origin, that the service does not accept. */
function hostDenial(c: Context<AppEnv>, service: Service): Response | undefined {
  // The host of the request's URL — the Host header's, or the target's own authority when
  // the target is absolute (`GET http://name/api/roles`, which RFC 9112 §3.2.2 says
  // overrides Host) — and the Host header: both must be allowed.
  const target = new URL(c.req.url).host;
  const header = c.req.header('host');
  for (const host of header === undefined || header === target ? [target] : [header, target]) {
    if (service.hosts.allowsHost(host)) continue;
    return errorResponse(
      c,
      403,
      'HOST_NOT_ALLOWED',
      `Host ${JSON.stringify(host)} is not allowed; start the service with --allowed-host NAME to accept it`,
    );
  }
  const origin = c.req.header('origin');
  if (
    origin !== undefined &&
    isUnsafeMethod(c.req.method) &&
    !service.hosts.allowsOrigin(origin) &&
    !service.cors.headers(origin).some(([name]) => name === 'Access-Control-Allow-Origin')
  ) {
    return errorResponse(
      c,
      403,
      'ORIGIN_NOT_ALLOWED',
      `Origin ${JSON.stringify(origin)} may not ${c.req.method} here; allow it with --cors ORIGIN or --allowed-host NAME`,
    );
  }
  return undefined;
}

/** Gives a HEAD answer the Content-Length its GET would have (streams aside). */
async function setContentLength(c: Context<AppEnv>): Promise<void> {
  const res = c.res;
  if (res.headers.has('content-length') || !res.body) return;
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) return;
  const bytes = await res.clone().arrayBuffer();
  res.headers.set('Content-Length', String(bytes.byteLength));
}

/** The route pattern a request matched (middleware aside), for metrics and logs. */
function routeLabel(c: Context<AppEnv>): string {
  const routes = matchedRoutes(c).filter((r) => r.method !== 'ALL');
  const last = routes[routes.length - 1];
  if (last) return last.path;
  return c.res.status === 404 ? 'unmatched' : 'inspector';
}

function addOpsRoutes(
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
    (c) => c.json(HEALTHY),
    () => HEALTHY_ANSWER,
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
    (c) => {
      const snapshot = service.store.state?.snapshot;
      if (!snapshot) return c.json({ ready: false, version: null }, 503);
      if (service.warming) return c.json({ ready: false, version: snapshot.version, starting: true }, 503);
      const reasons = service.strict ? packProblems(snapshot) : [];
      if (reasons.length > 0) return c.json({ ready: false, version: snapshot.version, reasons }, 503);
      return c.json({ ready: true, version: snapshot.version });
    },
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
    return c.body(
      typeof asset.body === 'string' ? asset.body : (asset.body as Uint8Array<ArrayBuffer>),
      200,
      {
        'Content-Type': asset.type,
        'Cache-Control': 'no-cache',
      },
    );
  };
  app.use('*', async (c, next) => {
    if (c.req.path.startsWith('/api/') || c.req.path === '/openapi.json') return next();
    return serveAsset(c, next);
  });
}
