import { isIP } from 'node:net';

// Cross-origin access, off by default and enabled per origin (`strata serve --cors ORIGIN`,
// repeatable; `https://*.example.com` allows its subdomains; `*` allows any origin).
// Shared by the hono app and the node fast path, so both answer the same headers.

/** Response headers a browser script may read. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'X-Strata-Version',
  'X-Strata-Warnings',
  'X-Request-Id',
  'Mcp-Session-Id',
];
/** Request headers a preflight may announce. */
export const CORS_ALLOWED_HEADERS = [
  'accept',
  'authorization',
  'cache-control',
  'content-type',
  'if-match',
  'if-none-match',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'x-request-id',
];
/** How long a browser may cache a preflight answer, in seconds. */
export const CORS_MAX_AGE = 600;

/** The CORS policy of one service. */
export interface Cors {
  /** True when at least one origin is allowed. */
  readonly enabled: boolean;
  /** Whether a request from `origin` may read the answers. */
  allows(origin: string | undefined): boolean;
  /**
   * The headers to add to an answer (not a preflight) for a request from `origin`:
   * `Vary: Origin` whenever CORS is on, the allow/expose headers for an allowed origin.
   */
  headers(origin: string | undefined): Array<[string, string]>;
  /**
   * The headers of a preflight answer (`OPTIONS` with `Access-Control-Request-Method`)
   * for a path that accepts `allow`; without the allow headers when the origin or the
   * method is not allowed (the browser then refuses the request).
   */
  preflight(
    origin: string | undefined,
    method: string | undefined,
    requested: string | undefined,
    allow: readonly string[],
  ): Array<[string, string]>;
}

/**
 * The policy for a list of origins: `https://app.example.com`, `http://localhost:5173`, a
 * pattern of one subdomain label `https://*.example.com` (that scheme and port, any one
 * label before the name: `https://app.example.com`, not `https://example.com`,
 * `https://a.b.example.com` or `http://app.example.com`), or `*` (any origin). Throws a
 * TypeError naming an origin or pattern it cannot read (`strata serve` exits 2 with it).
 *
 * @example
 * const cors = createCors(['https://console.example.com', 'https://*.preview.example.com']);
 * cors.headers('https://pr-12.preview.example.com'); // [['Vary', 'Origin'], ['Access-Control-Allow-Origin', …], …]
 */
export function createCors(origins: readonly string[] = []): Cors {
  const patterns: Array<{ scheme: string; suffix: string }> = [];
  for (const origin of origins) {
    if (origin.includes('*') && origin !== '*') {
      const pattern = subdomainPattern(origin);
      if (!pattern)
        throw new TypeError(
          `CORS origin ${JSON.stringify(origin)} is not an origin or a pattern strata reads: give scheme://host[:port] (no path), scheme://*.host[:port] for any one subdomain label of host, or *`,
        );
      patterns.push(pattern);
    } else if (!isOrigin(origin))
      throw new TypeError(
        `CORS origin ${JSON.stringify(origin)} is not an origin: give scheme://host[:port] (no path), scheme://*.host[:port] for any one subdomain label of host, or *`,
      );
  }
  const any = origins.includes('*');
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  const enabled = origins.length > 0;
  const allows = (origin: string | undefined): origin is string =>
    origin !== undefined &&
    (any ||
      allowed.has(origin.toLowerCase()) ||
      (patterns.length > 0 && patterns.some((p) => matchesPattern(origin.toLowerCase(), p))));
  const exposed = CORS_EXPOSED_HEADERS.join(', ');
  return {
    enabled,
    allows,
    headers(origin) {
      if (!enabled) return [];
      const out: Array<[string, string]> = [['Vary', 'Origin']];
      if (allows(origin)) {
        out.push(['Access-Control-Allow-Origin', origin], ['Access-Control-Expose-Headers', exposed]);
      }
      return out;
    },
    preflight(origin, method, requested, allow) {
      if (!enabled) return [];
      const out: Array<[string, string]> = [['Vary', 'Origin']];
      if (!allows(origin) || method === undefined || !allow.includes(method.toUpperCase())) return out;
      const wanted = (requested ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean);
      const headers = wanted.filter((h) => CORS_ALLOWED_HEADERS.includes(h));
      out.push(
        ['Access-Control-Allow-Origin', origin],
        ['Access-Control-Allow-Methods', allow.join(', ')],
        ['Access-Control-Max-Age', String(CORS_MAX_AGE)],
      );
      if (headers.length > 0) out.push(['Access-Control-Allow-Headers', headers.join(', ')]);
      return out;
    },
  };
}

// --- internal ---

/**
 * `scheme://*.host[:port]` as a scheme and the suffix an origin must end with
 * (`.host[:port]`); undefined for any other use of `*` (`https://*`, `*.example.com`,
 * `https://a.*.example.com`, `https://**.example.com`).
 */
function subdomainPattern(pattern: string): { scheme: string; suffix: string } | undefined {
  const m = /^(https?):\/\/\*\.([^*]+)$/i.exec(pattern);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  // The rest must make an origin with one label in front of it: a host with a dot (not a
  // top-level name alone), no path, no IP literal.
  const example = `${scheme}://x.${m[2]!}`;
  if (!isOrigin(example)) return undefined;
  const host = new URL(example).hostname.slice(2);
  if (!host.includes('.') || isIP(host) !== 0 || host.startsWith('[')) return undefined;
  return { scheme, suffix: `.${m[2]!.toLowerCase()}` };
}

/** Whether an origin (lower case) is the pattern's scheme, one label, then its suffix. */
function matchesPattern(origin: string, pattern: { scheme: string; suffix: string }): boolean {
  const prefix = `${pattern.scheme}://`;
  if (!origin.startsWith(prefix) || !origin.endsWith(pattern.suffix)) return false;
  const label = origin.slice(prefix.length, origin.length - pattern.suffix.length);
  return LABEL.test(label);
}

/** One DNS label: letters, digits and inner hyphens, at most 63 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function isOrigin(origin: string): boolean {
  if (origin === '*') return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin.toLowerCase();
}
