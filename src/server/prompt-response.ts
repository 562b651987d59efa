import type { Rendered } from './compose-cache.js';

/** A composed prompt's HTTP answer, independent of the server framework. */
export interface PromptAnswer {
  status: 200 | 304;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** UTF-8 bytes; undefined for 304. */
  body?: Uint8Array<ArrayBuffer>;
}

/**
 * The answer to a prompt request (shared and read-only: callers must not change it): the bare text for `Accept: text/plain` (preferred over
 * JSON), else the JSON result; `ETag` is the text's sha256 and a matching
 * `If-None-Match` answers 304. Shared by the hono route and the node fast path.
 */
export function promptAnswer(
  rendered: Rendered,
  accept: string | undefined,
  ifNoneMatch: string | undefined,
): PromptAnswer {
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, rendered.etag)) {
    return { status: 304, headers: commonHeaders(rendered) };
  }
  // A 200 answer depends only on the rendered prompt and the format: build it once.
  let memo = answers.get(rendered);
  if (!memo) {
    memo = {};
    answers.set(rendered, memo);
  }
  if (wantsText(accept)) {
    memo.text ??= {
      status: 200,
      headers: { ...commonHeaders(rendered), 'content-type': 'text/plain; charset=utf-8' },
      body: rendered.textBytes,
    };
    return memo.text;
  }
  memo.json ??= {
    status: 200,
    headers: { ...commonHeaders(rendered), 'content-type': 'application/json' },
    body: rendered.jsonBytes,
  };
  return memo.json;
}

// --- internal ---

const answers = new WeakMap<Rendered, { text?: PromptAnswer; json?: PromptAnswer }>();

function commonHeaders(rendered: Rendered): Record<string, string> {
  return {
    etag: rendered.etag,
    'cache-control': 'no-cache',
    vary: 'Accept',
    'x-strata-version': rendered.result.version,
  };
}

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
