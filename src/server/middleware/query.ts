import type { HonoRequest, MiddlewareHandler } from 'hono';
import { sendAnswer } from '../service/answer.js';
import type { AppEnv } from '../service/context.js';
import { errorAnswer } from '../service/errors.js';
import type { RouteTable } from '../service/route-table.js';

/**
 * The app's query step: the query parsed once, strictly ({@link parseQuery}; one that is
 * not percent-encoded UTF-8 is refused, never decoded two ways), and so is, on the API, a
 * parameter the route does not declare (`/api/agents/ada/config?rol=qa` would be ada's
 * own config, `/api/settings?version=previous` the current settings, without a word); a
 * route's path that does not decode is refused too (hono's params keep such a segment
 * undecoded, so `/api/prompts/caf%E9` would be looked up as the role "caf%E9"). The
 * parameters are kept on the request (`c.get('query')`), and hono's `c.req.query()` and
 * `c.req.queries()` (what the validators read) give them: every reader sees the same values.
 */
export function queryOnce(table: RouteTable): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = c.req.url;
    if (url.includes('%')) {
      const path = new URL(url).pathname;
      if (path.includes('%') && decodePart(path) === undefined && table.methods(c.req.path).length > 0)
        return sendAnswer(c, errorAnswer(400, 'BAD_REQUEST', badPathMessage(path)));
    }
    let pairs: Array<[string, string]> = NO_PAIRS;
    if (url.includes('?')) {
      const parsed = parseQuery(new URL(url).search.slice(1));
      if ('bad' in parsed) return sendAnswer(c, errorAnswer(400, 'BAD_REQUEST', badQueryMessage(parsed.bad)));
      if (c.req.path.startsWith('/api/')) {
        const problem = queryProblem(table, c.req.method, c.req.path, parsed);
        if (problem) return sendAnswer(c, problem);
      }
      pairs = parsed;
    }
    c.set('query', pairs);
    const req = c.req as HonoRequest & { [PAIRS]?: ReadonlyArray<readonly [string, string]> };
    req[PAIRS] = pairs;
    req.query = queryOfPairs as typeof req.query;
    req.queries = queriesOfPairs as typeof req.queries;
    return next();
  };
}

/**
 * The 400 answer to a query parameter the route a request names does not declare; undefined
 * when every one fits, or no route takes the method (then 404 or 405 is the answer).
 */
export function queryProblem(
  table: RouteTable,
  method: string,
  path: string,
  pairs: ReadonlyArray<readonly [string, string]>,
) {
  if (pairs.length === 0) return undefined;
  const problem = table.queryProblem(
    method,
    path,
    pairs.map(([key]) => key),
  );
  return problem === undefined ? undefined : errorAnswer(400, 'BAD_REQUEST', problem);
}

/**
 * The parameters as hono's validators read them (`c.req.queries()`, one value a key
 * unless repeated): a key given once maps to its value, a repeated one to its values.
 */
export function validatorQuery(
  pairs: ReadonlyArray<readonly [string, string]>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of pairs) {
    if (key === '') continue;
    if (!Object.hasOwn(out, key)) {
      // As Object.fromEntries makes it: `__proto__` an own key like any other.
      if (key === '__proto__')
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      continue;
    }
    const held = out[key]!;
    out[key] = typeof held === 'string' ? [held, value] : [...held, value];
  }
  return out;
}

/**
 * The parameters of a query string, decoded as HTML forms encode them (`+` is a space,
 * `%XX` a byte) and strictly: every `%` must begin an escape, and the bytes of each key
 * and value must be UTF-8 (no lone surrogates). The lenient decoders silently disagree on
 * anything else — `URLSearchParams` turns bad bytes into U+FFFD, hono's `c.req.query()`
 * keeps the whole value undecoded — so `?ambient=caf%E9` (Latin-1) would be composed as
 * text the client never sent. With one strict decoder every reader of the query (the
 * validators, the `set.`/`var.` reader, the cached-answer fast path) sees the same values,
 * and a query that does not decode is 400 `BAD_REQUEST`.
 *
 * @example
 * parseQuery('team=a+b&set.x=%C3%A9'); // [['team', 'a b'], ['set.x', 'é']]
 * parseQuery('ambient=caf%E9');        // { bad: 'ambient' }
 */
export function parseQuery(query: string): Array<[string, string]> | { bad: string } {
  const out: Array<[string, string]> = [];
  if (query === '') return out;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq === -1 ? part : part.slice(0, eq);
    const key = decodePart(rawKey);
    if (key === undefined) return { bad: rawKey };
    const value = eq === -1 ? '' : decodePart(part.slice(eq + 1));
    if (value === undefined) return { bad: key };
    out.push([key, value]);
  }
  return out;
}

/** The message of the 400 answer to a query {@link parseQuery} refused. */
export function badQueryMessage(bad: string): string {
  return `query parameter ${JSON.stringify(bad)} is not percent-encoded UTF-8 (a % not followed by two hex digits, or bytes that are not UTF-8)`;
}

/** The message of the 400 answer to a path that is not percent-encoded UTF-8. */
export function badPathMessage(path: string): string {
  return `the path ${JSON.stringify(path.slice(0, 200))} is not percent-encoded UTF-8 (a % not followed by two hex digits, or bytes that are not UTF-8)`;
}

/**
 * One key, value or path, decoded strictly (`+` a space, `%XX` bytes that must be UTF-8);
 * undefined when it does not decode.
 */
export function decodePart(raw: string): string | undefined {
  const text = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

// --- internal ---

const NO_PAIRS: Array<[string, string]> = [];
const PAIRS = Symbol('query');

type WithPairs = HonoRequest & { [PAIRS]: ReadonlyArray<readonly [string, string]> };

/** `c.req.query()` over the parsed pairs: every key's first value, or one key's. */
function queryOfPairs(this: WithPairs, key?: string): unknown {
  if (key !== undefined) return this[PAIRS].find(([k]) => k === key)?.[1];
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of this[PAIRS]) if (!Object.hasOwn(out, k) && k !== '') out[k] = v;
  return out;
}

/** `c.req.queries()` over the parsed pairs: every key's values, or one key's. */
function queriesOfPairs(this: WithPairs, key?: string): unknown {
  const all = queriesOf(this[PAIRS]);
  return key === undefined ? all : all[key];
}

function queriesOf(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const [k, v] of pairs) {
    if (k === '') continue;
    const values = out[k];
    if (values) values.push(v);
    else out[k] = [v];
  }
  return out;
}
