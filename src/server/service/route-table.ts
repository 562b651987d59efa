import type { IncomingHttpHeaders } from 'node:http';
import type { Answer } from './answer.js';
import type { Service } from './context.js';

/**
 * The service's one routing table: every route, as `addRoute` declares it (method, path
 * pattern, operation, the app's handler and, where a route has one, its direct
 * handler), in the order declared. The hono app is registered from the same calls, the
 * `Allow` header of 405 and OPTIONS answers is read from it, and the node server answers
 * a route's requests directly when the route has a direct handler that can answer (a
 * cached prompt, liveness) — so a URL means one thing, whichever path serves it, and a
 * route added with a direct handler is served by both.
 */
export class RouteTable {
  readonly #routes: TableRoute[] = [];
  /**
   * The routes without parameters by `METHOD path`, each the first route that path
   * matches (none declared before it matches it too): found without a pattern tried.
   */
  readonly #exact = new Map<string, TableRoute>();

  /** Declares a route (`addRoute` calls this as it registers the route on the app). */
  add(
    method: string,
    path: string,
    operationId: string,
    direct?: DirectHandler,
    query: RouteQuery = { names: [], prefixes: [] },
  ): void {
    const names: string[] = [];
    const source = path
      .split(/(\{[A-Za-z0-9_]+\})/)
      .map((part) => {
        const param = /^\{([A-Za-z0-9_]+)\}$/.exec(part);
        if (!param) return part.replace(/[.+*?^${}()|[\]\\]/g, '\\$&');
        names.push(param[1]!);
        return '([^/]+)';
      })
      .join('');
    const route: TableRoute = {
      method: method.toUpperCase(),
      head: true,
      path,
      label: path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1'),
      operationId,
      re: new RegExp(`^${source}$`),
      names,
      direct,
      query,
    };
    const key = `${route.method} ${path}`;
    const shadowed = this.#routes.some((r) => r.method === route.method && r.re.test(path));
    if (names.length === 0 && !shadowed && !this.#exact.has(key)) this.#exact.set(key, route);
    this.#routes.push(route);
  }

  /**
   * Why a query does not fit the route a request names: the first parameter the route does
   * not declare (a name it takes, or `PREFIX.KEY` for the prefixes it takes), or a name it
   * takes given twice, as a message; undefined when every one fits or no route takes the
   * method (the app answers 404 or 405).
   */
  queryProblem(method: string, path: string, keys: Iterable<string>): string | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const route = this.#routes.find((r) => r.method === wanted && r.re.test(path));
    if (!route) return undefined;
    const { names, prefixes } = route.query;
    const seen = new Set<string>();
    for (const key of keys) {
      if (names.includes(key)) {
        // Every declared parameter takes one value: a second is said as such, not as a bad value.
        if (seen.has(key))
          return `query parameter ${JSON.stringify(key)} is given more than once; give it once`;
        seen.add(key);
        continue;
      }
      if (prefixes.some((p) => key.length > p.length && key.startsWith(p))) continue;
      const accepted = [...names, ...prefixes.map((p) => `${p}KEY`)];
      return `unknown query parameter ${JSON.stringify(key)}; ${
        accepted.length > 0 ? `accepted: ${accepted.join(', ')}` : `${route.method} ${route.path} takes none`
      }`;
    }
    return undefined;
  }

  /**
   * Says that the GET routes of `path` (a pattern as declared) do not answer HEAD: a GET
   * whose answer is a stream the request opens (`/mcp`) has no HEAD to give. Their path's
   * `Allow` then lists no HEAD.
   */
  withoutHead(path: string): void {
    for (const r of this.#routes) if (r.path === path && r.method === 'GET') r.head = false;
  }

  /** Every route, in the order declared. */
  get routes(): readonly TableRoute[] {
    return this.#routes;
  }

  /**
   * The methods a path accepts (HEAD beside GET, and OPTIONS), in a fixed order; none when
   * no route has the path.
   */
  methods(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.#routes) {
      if (!r.re.test(path)) continue;
      methods.add(r.method);
      if (r.head && r.method === 'GET') methods.add('HEAD');
    }
    if (methods.size === 0) return [];
    methods.add('OPTIONS');
    return METHOD_ORDER.filter((m) => methods.has(m));
  }

  /** Every method some route takes (HEAD beside GET, and OPTIONS), in the same order. */
  allMethods(): string[] {
    const methods = new Set(this.#routes.map((r) => r.method));
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return METHOD_ORDER.filter((m) => methods.has(m));
  }

  /**
   * The route with a direct handler that a request's method and path name (a `HEAD` is
   * its `GET`), with its parameters; undefined when the app must answer (no such route,
   * no direct handler, or a parameter that is percent-encoded: the app decodes those).
   * A path without parameters (`POST /api/compose`) is one look-up.
   */
  direct(method: string, path: string): { route: TableRoute; params: Record<string, string> } | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const exact = this.#exact.get(`${wanted} ${path}`);
    if (exact) return exact.direct ? { route: exact, params: {} } : undefined;
    for (const route of this.#routes) {
      if (route.method !== wanted) continue;
      const m = route.re.exec(path);
      if (!m) continue;
      if (!route.direct) return undefined;
      const params: Record<string, string> = {};
      for (const [i, name] of route.names.entries()) {
        const value = m[i + 1]!;
        if (value.includes('%')) return undefined;
        params[name] = value;
      }
      return { route, params };
    }
    return undefined;
  }
}

/** One route of the table. */
export interface TableRoute {
  /** Upper case: GET, POST, … */
  method: string;
  /** A GET route's: whether a HEAD is answered as it (all but those {@link RouteTable.withoutHead} names). */
  head: boolean;
  /** The documented path pattern, `/api/prompts/{role}` (also the compose metrics' label). */
  path: string;
  /** The pattern as hono writes it, `/api/prompts/:role` (the request metrics' and logs' label). */
  label: string;
  operationId: string;
  re: RegExp;
  names: string[];
  direct?: DirectHandler;
  /** The query parameters the route declares. */
  query: RouteQuery;
}

/** The query parameters a route takes: names, and prefixes of `PREFIX.KEY` names (`set.`, `var.`). */
export interface RouteQuery {
  names: readonly string[];
  prefixes: readonly string[];
}

/** What a direct handler is given: the request as the node server read it. */
export interface DirectRequest {
  /** GET, HEAD or POST. */
  method: string;
  /** The path's parameters, by name (as in the pattern). */
  params: Record<string, string>;
  /** The query's parameters, decoded once (middleware/query.ts `parseQuery`). */
  query: ReadonlyArray<readonly [string, string]>;
  headers: IncomingHttpHeaders;
  /** A POST's body, read and decoded (middleware/body.ts `readBody`). */
  body?: string;
  service: Service;
  /** `performance.now()` when the request came in. */
  startedAt: number;
}

/**
 * Answers a route's request without the app — exactly the status, headers and body the
 * app would answer, through the same functions — or undefined for the app to answer. The
 * node server has checked the Host, parsed the query (refusing what the app refuses) and
 * read a POST's JSON body before calling it; the headers every answer carries are added
 * after (`commonHeaders`).
 */
export type DirectHandler = (req: DirectRequest) => Answer | Promise<Answer> | undefined;

// --- internal ---

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
