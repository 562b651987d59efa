import type { Rendered } from './compose-cache.js';

/** A composed prompt's HTTP answer, independent of the server framework. */
export interface PromptAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  /** UTF-8 bytes; undefined for 304. */
  body?: Uint8Array<ArrayBuffer>;
}

/**
 * The answer to a prompt request: the bare text for `Accept: text/plain` (preferred over
 * JSON), else the JSON result; `ETag` is the text's sha256 and a matching
 * `If-None-Match` answers 304. Shared by the hono route and the node fast path.
 */
export function promptAnswer(
  rendered: Rendered,
  accept: string | undefined,
  ifNoneMatch: string | undefined,
): PromptAnswer {
  const headers: Record<string, string> = {
    ETag: rendered.etag,
    'Cache-Control': 'no-cache',
    Vary: 'Accept',
    'X-Strata-Version': rendered.result.version,
  };
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, rendered.etag)) return { status: 304, headers };
  if (wantsText(accept)) {
    headers['Content-Type'] = 'text/plain; charset=utf-8';
    return { status: 200, headers, body: rendered.textBytes };
  }
  headers['Content-Type'] = 'application/json';
  return { status: 200, headers, body: rendered.jsonBytes };
}

// --- internal ---

/** True when the client prefers text/plain over JSON. */
function wantsText(accept: string | undefined): boolean {
  if (!accept) return false;
  const text = accept.indexOf('text/plain');
  if (text === -1) return false;
  const jsonAt = accept.indexOf('application/json');
  return jsonAt === -1 || text < jsonAt;
}

function matchesEtag(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
