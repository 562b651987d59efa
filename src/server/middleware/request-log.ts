import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv, Service } from '../service/context.js';
import { logRequest, requestId } from '../service/logging.js';

/**
 * The app's first step: the request's id (the caller's `X-Request-Id` when it is sane,
 * else a new one) and start time, then, once it is answered, its access-log line and its
 * request metrics (by route pattern, method and status).
 */
export function requestLog(service: Service): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestId(c.req.header('x-request-id'));
    c.set('requestId', id);
    const started = performance.now();
    c.set('startedAt', started);
    await next();
    const elapsed = performance.now() - started;
    const route = routeLabel(c);
    service.metrics.request(route, c.req.method, c.res.status, elapsed / 1000);
    logRequest(service.logger, {
      reqId: id,
      method: c.req.method,
      path: c.req.path,
      route,
      status: c.res.status,
      ms: elapsed,
    });
  };
}

// --- internal ---

/**
 * The route pattern a request matched (middleware aside), for metrics and logs; else
 * `inspector` for the inspector's files, and `unmatched` for any other request no route
 * took (an unknown path, a method the path does not take, an OPTIONS).
 */
function routeLabel(c: Context<AppEnv>): string {
  const routes = matchedRoutes(c).filter((r) => r.method !== 'ALL');
  const last = routes[routes.length - 1];
  if (last) return last.path;
  return c.get('routeLabel') ?? 'unmatched';
}
