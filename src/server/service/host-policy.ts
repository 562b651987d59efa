import { isIP } from 'node:net';

/**
 * The Host and Origin check that defeats DNS rebinding: a web page on another site can
 * make a browser send requests to a name that resolves to 127.0.0.1, but the `Host`
 * header then carries that site's name. By default only loopback names (`localhost`,
 * `*.localhost`) and IP literals are accepted as hosts (an IP literal cannot be
 * rebound); `strata serve --allowed-host NAME` (repeatable) adds names, `*` turns the
 * check off. Requests with unsafe methods (POST, …) that carry an `Origin` must come from
 * an allowed host or a CORS origin.
 */
export interface HostPolicy {
  /** False when the check is off (`*`). */
  readonly enabled: boolean;
  /** Whether a `Host` header value (`name[:port]`) is accepted. */
  allowsHost(host: string | undefined): boolean;
  /** Whether an `Origin` header value (`scheme://host[:port]`, or `null`) is accepted. */
  allowsOrigin(origin: string): boolean;
}

/**
 * The policy for a list of extra names (`strata.internal`, `.example.com` for any
 * subdomain, `*` for any host).
 *
 * @example
 * const policy = hostPolicy(['prompts.internal']);
 * policy.allowsHost('prompts.internal:7411'); // true
 * policy.allowsHost('evil.example'); // false
 */
export function hostPolicy(allowedHosts: readonly string[] = []): HostPolicy {
  // A name the Host check could never match (a URL, a port, white space) is refused, not
  // kept as a name that silently lets nothing through.
  for (const host of allowedHosts)
    if (host !== '*' && !ALLOWED_NAME.test(host) && isIP(host.replace(/^\[|\]$/g, '')) === 0)
      throw new TypeError(
        `allowed host ${JSON.stringify(host)} is not a host name: give a name (prompts.internal), .example.com for its subdomains, or *; no scheme, port or path`,
      );
  const names = allowedHosts.map((h) => h.toLowerCase().replace(/\.$/, ''));
  const any = names.includes('*');
  const allowsName = (name: string): boolean => {
    if (any) return true;
    if (isIP(name) !== 0) return true;
    if (name === 'localhost' || name.endsWith('.localhost')) return true;
    return names.some((n) => (n.startsWith('.') ? name.endsWith(n) || name === n.slice(1) : name === n));
  };
  // The last Host header allowed: nearly every request of a service names the same one.
  let lastAllowed: string | undefined;
  return {
    enabled: !any,
    allowsHost(host) {
      if (any) return true;
      if (host === undefined || host === '') return false;
      if (host === lastAllowed) return true;
      const name = hostName(host);
      if (name === undefined || !allowsName(name)) return false;
      lastAllowed = host;
      return true;
    },
    allowsOrigin(origin) {
      if (any) return true;
      try {
        const url = new URL(origin);
        return allowsName(url.hostname.replace(/^\[|\]$/g, '').toLowerCase());
      } catch {
        return false;
      }
    },
  };
}

/** True for a method that changes state or costs work (not GET, HEAD or OPTIONS). */
export function isUnsafeMethod(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

// --- internal ---

/**
 * A host name as `--allowed-host` takes it: dot-separated labels, with an optional leading
 * `.` (its subdomains) and trailing `.`.
 */
const ALLOWED_NAME = /^\.?[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

/** The name of a Host header (`name`, `name:port`, `[v6]:port`), lower case; undefined when malformed. */
function hostName(host: string): string | undefined {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end === -1) return undefined;
    const rest = h.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    return h.slice(1, end);
  }
  const m = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(h);
  return m ? m[1]!.replace(/\.$/, '') : undefined;
}
