import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../service/context.js';
import type { Cors } from '../service/cors.js';

/**
 * The headers every answer of the service carries beside its own, in the order written:
 * the security headers (no content sniffing, no framing, a content security policy that
 * lets the inspector load only its own files — it has no inline script or style and
 * talks only to this service); then, for a request the service read, its `X-Request-Id`;
 * then, once the request passed the Host check and is no preflight, the CORS headers for
 * its `Origin` (none while CORS is off). The one place these headers are made: the app's
 * {@link answerHeaders} step, the node server's direct answers and its raw error answers
 * all take them from here.
 *
 * @example
 * commonHeaders(); // the security headers alone (an answer to a request never read)
 * commonHeaders({ id: 'req-1', cors, origin: 'https://console.example.com' });
 */
export function commonHeaders(request?: {
  id: string;
  cors?: Cors;
  origin?: string | undefined;
}): ReadonlyArray<readonly [string, string]> {
  if (!request) return SECURITY_HEADERS;
  const out: Array<readonly [string, string]> = [...SECURITY_HEADERS, ['X-Request-Id', request.id]];
  if (request.cors?.enabled) out.push(...request.cors.headers(request.origin));
  return out;
}

/**
 * {@link commonHeaders} appended to node's flat `[name, value, …]` header list (the node
 * server's direct answers), without the pairs in between.
 */
export function appendCommonHeaders(
  raw: string[],
  request: { id: string; cors?: Cors; origin?: string | undefined },
): string[] {
  for (const [name, value] of SECURITY_HEADERS) raw.push(name, value);
  raw.push('X-Request-Id', request.id);
  if (request.cors?.enabled)
    for (const [name, value] of request.cors.headers(request.origin)) raw.push(name, value);
  return raw;
}

/**
 * The app's step that gives every answer the {@link commonHeaders}: after the rest of the
 * chain has answered, whatever the answer (a route's, a refusal, an error).
 */
export function answerHeaders(cors: Cors): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    const request = {
      id: c.get('requestId'),
      cors: c.get('cors') ? cors : undefined,
      origin: c.req.header('origin'),
    };
    for (const [name, value] of commonHeaders(request)) {
      // `Vary` adds to the route's own (`Vary: Accept, Origin`); the others are the service's alone.
      if (name === 'Vary') headers.append(name, value);
      else headers.set(name, value);
    }
  };
}

// --- internal ---

const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  [
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  ],
  ['Referrer-Policy', 'no-referrer'],
];
