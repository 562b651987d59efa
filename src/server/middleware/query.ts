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
