import { OpenAPIHono } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import pino, { type Logger } from 'pino';
import type { DiagnosticCode } from '../core/text/diagnostics.js';
import { type InspectorAsset, inspectorAssets } from '../inspector/assets.js';
import type { SnapshotStore } from '../reload/store.js';
import { readBodies } from './middleware/body.js';
import { answerHeaders } from './middleware/headers.js';
import { hostCheck } from './middleware/host.js';
import { allowedMethods, methods, notFound } from './middleware/methods.js';
import { queryOnce } from './middleware/query.js';
import { requestLog } from './middleware/request-log.js';
import { addAdminRoutes } from './routes/admin.js';
import { addMcpRoutes, type McpRouteOptions } from './routes/mcp.js';
import { addOpenApiDocument } from './routes/openapi.js';
import { addOpsRoutes } from './routes/ops.js';
import { addPackRoutes } from './routes/pack.js';
import { addPromptRoutes } from './routes/prompts.js';
import { routeTable, validationAnswer } from './routes/route.js';
import { addTeamRoutes } from './routes/teams.js';
import { MAX_QUERY_AMBIENT, MAX_TEAM_MEMBERS } from './schemas/requests.js';
import { type Answer, sendAnswer } from './service/answer.js';
import type { AppEnv, Service } from './service/context.js';
import { createCors } from './service/cors.js';
import { errorAnswer } from './service/errors.js';
import { EventHub } from './service/events.js';
import { hostPolicy } from './service/host-policy.js';
import { createMetrics, type ServiceMetrics } from './service/metrics.js';
import { RenderSlots } from './service/render-slots.js';
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
  /**
   * Requests making an answer the cache does not hold (compose, count, serialise) at once,
   * at most (default `DEFAULT_MAX_RENDERS`, 4); later ones wait, within their token budget.
   */
  maxRenders?: number;
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
  /** `/mcp`: open sessions and `prompts/list` page size (docs/mcp.md). */
  mcp?: McpRouteOptions;
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
 * Builds the prompt service (docs/service.md) over a snapshot store. Every
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
    renders: new RenderSlots(options.maxRenders),
    maxQueryAmbient: options.maxQueryAmbient ?? MAX_QUERY_AMBIENT,
    maxTeamMembers: options.maxTeamMembers ?? MAX_TEAM_MEMBERS,
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
    warned: new Set(),
  };
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return sendAnswer(c, validationAnswer(result.target, result.error));
    },
  });
  const table = routeTable(app);
  const allowed = allowedMethods(table, options.assets ?? inspectorAssets);

  // The chain every request goes through, in order.
  app.use('*', requestLog(service)); //                 request id, access log, request metrics
  app.use('*', answerHeaders(service.cors)); //         security headers, X-Request-Id, CORS: on every answer
  app.use('*', hostCheck(service)); //                  Host and Origin (DNS rebinding): 400, 403
  app.use('*', methods(service, allowed)); //           OPTIONS and CORS preflight; HEAD's Content-Length
  app.use('*', queryOnce(table)); //                    the query parsed once, strictly; undeclared parameters refused
  const bodies = readBodies(service.maxBodyBytes); //  a POST body read once, within the limit, by the route that takes it
  app.use('/api/*', (c, next) =>
    table.methods(c.req.path).includes(c.req.method) ? bodies(c, next) : next(),
  );

  // The routes (each reads its snapshot once: middleware/snapshot.ts).
  addOpsRoutes(app, service, options.assets ?? inspectorAssets);
  addPromptRoutes(app, service);
  addTeamRoutes(app, service);
  addPackRoutes(app, service);
  addAdminRoutes(app, service);
  const mcp = addMcpRoutes(app, service, options.mcp);
  addOpenApiDocument(app);

  // What no route answered: 405 with Allow for a known path, else 404; and errors.
  app.notFound(notFound(allowed));
  app.onError((e, c) => sendAnswer(c, errorAnswerOf(e, service, c.get('requestId'))));

  return {
    app,
    fetch: (request, env) => app.fetch(request, env),
    metrics,
    events,
    service,
    close: () => {
      events.close();
      void mcp.close();
    },
  };
}

/**
 * The answer to an error a route threw: a refusal of the framework's (a 415 media type,
 * a 413, a 400 such as malformed JSON) as its coded error, anything else 500 `INTERNAL`,
 * logged with its stack.
 */
export function errorAnswerOf(e: unknown, service: Service, requestId: string | undefined): Answer {
  if (e instanceof HTTPException) {
    if (e.status === 415)
      return errorAnswer(415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
    if (e.status === 413)
      return errorAnswer(413, 'BODY_TOO_LARGE', `request body is over ${service.maxBodyBytes} bytes`);
    if (e.status < 500) return errorAnswer(400, 'BAD_REQUEST', e.message || 'bad request');
  }
  service.logger.error({ reqId: requestId, err: e }, 'unhandled error');
  return errorAnswer(500, 'INTERNAL', 'internal error');
}
