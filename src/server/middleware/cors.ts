// Cross-origin access, off by default and enabled per origin (`strata serve --cors ORIGIN`,
// repeatable; `*` allows any origin). Shared by the hono app and the node fast path, so
// both answer the same headers.

/** Response headers a browser script may read. */
export const CORS_EXPOSED_HEADERS = ['ETag', 'X-Strata-Version', 'X-Strata-Warnings', 'X-Request-Id'];
/** Request headers a preflight may announce. */
export const CORS_ALLOWED_HEADERS = [
  'accept',
  'authorization',
  'cache-control',
  'content-type',
  'if-none-match',
  'last-event-id',
  'x-request-id',
];
/** How long a browser may cache a preflight answer, in seconds. */
export const CORS_MAX_AGE = 600;

/** The CORS policy of one service. */
export interface Cors {
  /** True when at least one origin is allowed. */
  readonly enabled: boolean;
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
 * The policy for a list of origins (`https://app.example.com`, `http://localhost:5173`,
 * or `*`). Throws a TypeError naming a malformed origin.
 *
 * @example
 * const cors = createCors(['https://console.example.com']);
 * cors.headers('https://console.example.com'); // [['Vary', 'Origin'], ['Access-Control-Allow-Origin', …], …]
 */
export function createCors(origins: readonly string[] = []): Cors {
  for (const origin of origins) {
    if (!isOrigin(origin))
      throw new TypeError(
        `CORS origin ${JSON.stringify(origin)} is not an origin: give scheme://host[:port] (no path) or *`,
      );
  }
  const any = origins.includes('*');
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  const enabled = origins.length > 0;
  const allows = (origin: string | undefined): origin is string =>
    origin !== undefined && (any || allowed.has(origin.toLowerCase()));
  const exposed = CORS_EXPOSED_HEADERS.join(', ');
  return {
    enabled,
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
