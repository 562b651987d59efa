import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { type Answer, sendAnswer } from '../service/answer.js';
import type { AppEnv } from '../service/context.js';
import { errorAnswer } from '../service/errors.js';
import { type HostPolicy, isUnsafeMethod } from '../service/host-policy.js';

/** What the Host step reads of the service. */
export interface HostContext {
  hosts: HostPolicy;
  cors: { allows(origin: string): boolean };
  logger: Logger;
  /** What was logged once already. */
  warned: Set<string>;
}

/**
 * The app's Host step: {@link hostRefusal} of the request, with the host of its URL — the
 * Host header's, or the target's own authority when the target is absolute (`GET
 * http://name/api/roles`, which RFC 9112 §3.2.2 says overrides Host).
 */
export function hostCheck(service: HostContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('host');
    let target: string | undefined;
    try {
      target = new URL(c.req.url).host;
    } catch {
      target = undefined; // a Host no URL can hold (`xn--`): refused below
    }
    const refused = hostRefusal(service, {
      method: c.req.method,
      host: header,
      target,
      origin: c.req.header('origin'),
      path: c.req.path,
    });
    if (refused) return sendAnswer(c, refused);
    return next();
  };
}

/**
 * Why a request may not go on, as its answer, or undefined when it may: 400 `BAD_REQUEST`
 * for a Host that is no host name a URL can hold (`xn--`, `a.xn--`, `1.2.3.999`; logged
 * once at warn level, not per request), 403 `HOST_NOT_ALLOWED` for a Host (or target
 * authority) the service does not accept, 403 `ORIGIN_NOT_ALLOWED` for an unsafe method
 * whose `Origin` is neither an allowed host nor a CORS origin (DNS rebinding). The app
 * and the node server's direct path ask the same question.
 */
export function hostRefusal(
  service: HostContext,
  request: {
    method: string;
    /** The Host header. */
    host: string | undefined;
    /** The host of the request's URL; undefined when none could be made of it. */
    target: string | undefined;
    origin: string | undefined;
    path: string;
  },
): Answer | undefined {
  const { host, target } = request;
  if (target === undefined || (host !== undefined && host !== target && !hostParses(host))) {
    const named = host ?? target ?? '';
    if (!service.warned.has('BAD_HOST')) {
      service.warned.add('BAD_HOST');
      service.logger.warn(
        { code: 'BAD_REQUEST', host: named.slice(0, 200), path: request.path.slice(0, 200) },
        'a request named a Host that is not a valid host name: answered 400 (later ones are answered the same, and not logged)',
      );
    }
    return errorAnswer(
      400,
      'BAD_REQUEST',
      `Host ${JSON.stringify(named.slice(0, 200))} is not a valid host name`,
    );
  }
  // The Host header first, then the target's authority when it differs.
  if (host !== undefined && host !== target && !service.hosts.allowsHost(host)) return hostNotAllowed(host);
  if (!service.hosts.allowsHost(target)) return hostNotAllowed(target);
  const { origin, method } = request;
  if (
    origin !== undefined &&
    isUnsafeMethod(method) &&
    !service.hosts.allowsOrigin(origin) &&
    !service.cors.allows(origin)
  ) {
    return errorAnswer(
      403,
      'ORIGIN_NOT_ALLOWED',
      `Origin ${JSON.stringify(origin)} may not ${method} here; allow it with --cors ORIGIN or --allowed-host NAME`,
    );
  }
  return undefined;
}

/**
 * Whether a Host header value is a host a URL can hold (WHATWG's host parser: no
 * malformed punycode label, no out-of-range IPv4 number). The last good value is
 * remembered: nearly every request of a service names the same Host.
 */
export function hostParses(host: string): boolean {
  if (host === lastGoodHost) return true;
  try {
    new URL(`http://${host}/`);
  } catch {
    return false;
  }
  lastGoodHost = host;
  return true;
}

// --- internal ---

let lastGoodHost = '';

function hostNotAllowed(name: string): Answer {
  return errorAnswer(
    403,
    'HOST_NOT_ALLOWED',
    `Host ${JSON.stringify(name)} is not allowed; start the service with --allowed-host NAME to accept it`,
  );
}
