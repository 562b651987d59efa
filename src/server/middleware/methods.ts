import type { Context, MiddlewareHandler, NotFoundHandler } from 'hono';
import type { InspectorAsset } from '../../inspector/assets.js';
import type { AppEnv, Service } from '../service/context.js';
import { errorResponse } from '../service/errors.js';
import type { RouteTable } from '../service/route-table.js';

/** The methods a path accepts, in the `Allow` header's order; none for a path nobody serves. */
export type AllowedMethods = (path: string) => Promise<string[]>;

/** The methods of a path: its routes' (HEAD beside GET, and OPTIONS), or the inspector's assets'. */
export function allowedMethods(
  table: RouteTable,
  assets: () => Promise<Map<string, InspectorAsset>>,
): AllowedMethods {
  let loaded: Promise<Map<string, InspectorAsset>> | undefined;
  return async (path) => {
    const methods = table.methods(path);
    if (methods.length > 0) return methods;
    loaded ??= assets();
    return (await loaded).has(path) ? ['GET', 'HEAD', 'OPTIONS'] : [];
  };
}

/**
 * The app's methods step: `OPTIONS` (and CORS preflight) answered for every known path,
 * 204 with `Allow`; every other request marked for the CORS headers (see `commonHeaders`),
 * and a `HEAD` answer given the `Content-Length` its GET would have.
 */
export function methods(service: Service, allowed: AllowedMethods): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      const allow = await allowed(c.req.path);
      if (allow.length === 0) return next();
      const headers = new Headers({ Allow: allow.join(', ') });
      const preflight = service.cors.preflight(
        c.req.header('origin'),
        c.req.header('access-control-request-method'),
        c.req.header('access-control-request-headers'),
        allow,
      );
      for (const [name, value] of preflight) headers.append(name, value);
      c.res = new Response(null, { status: 204, headers });
      return;
    }
    c.set('cors', true);
    await next();
    if (c.req.method === 'HEAD') await setContentLength(c);
  };
}

/** The app's answer when no route took the request: 405 with `Allow` for a known path, else 404. */
export function notFound(allowed: AllowedMethods): NotFoundHandler<AppEnv> {
  return async (c) => {
    const allow = await allowed(c.req.path);
    // A HEAD is answered as its GET (RFC 9110 §9.3.2): the same words, so the same Content-Length.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (allow.length > 0) {
      c.header('Allow', allow.join(', '));
      return errorResponse(
        c,
        405,
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed on ${c.req.path}; allowed: ${allow.join(', ')}`,
      );
    }
    return errorResponse(c, 404, 'NOT_FOUND', `no route for ${method} ${c.req.path}`);
  };
}

// --- internal ---

/** Gives a HEAD answer the Content-Length its GET would have (streams aside). */
async function setContentLength(c: Context<AppEnv>): Promise<void> {
  const res = c.res;
  if (res.headers.has('content-length') || !res.body) return;
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) return;
  const bytes = await res.clone().arrayBuffer();
  res.headers.set('Content-Length', String(bytes.byteLength));
}
