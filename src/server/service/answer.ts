import type { Context } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';

/**
 * An answer as the service builds it, whichever adapter sends it: the hono app turns it
 * into a Response ({@link sendAnswer}), the node server writes it to the socket as it is
 * (`node/fast-path.ts`). The headers are the route's own (content type, ETag, …); the
 * headers every answer carries (security headers, request id, CORS) are added by one
 * function, `commonHeaders` (middleware/headers.ts), on both paths.
 */
export interface Answer {
  status: number;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string>>;
  /** The body's bytes (none for 304 and HEAD-only answers). */
  body?: Uint8Array<ArrayBuffer>;
  /** The headers as node's flat `[name, value, …]` list with Content-Length, once {@link rawHeaders} made it. */
  raw?: string[];
  /**
   * Set on an answer that the same request gets again for as long as the service holds
   * the same pack versions (a composed prompt's): what answering it again records (the
   * compose metrics, the span). The node server's direct path keeps such answers
   * (`node/answer-memo.ts`).
   */
  again?: () => void;
}

/** A JSON answer: the value serialised once, `Content-Type: application/json`. */
export function jsonAnswer(value: unknown, status = 200, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: utf8.encode(JSON.stringify(value)),
  };
}

/** An answer's headers as node's flat `[name, value, …]` list, with Content-Length; built once per answer. */
export function rawHeaders(answer: Answer): string[] {
  if (!answer.raw) {
    // A loop, not `Object.entries(…).flat()`: flat() costs microseconds per answer, and
    // a one-off answer (an `ambient` text of its own) makes its list every time.
    const raw: string[] = [];
    const { headers } = answer;
    for (const name in headers) raw.push(name, headers[name]!);
    if (answer.body !== undefined) raw.push('content-length', String(answer.body.byteLength));
    answer.raw = raw;
  }
  return answer.raw;
}

/** The hono Response of an answer. */
export function sendAnswer(c: Context, answer: Answer): Response {
  const headers = answer.headers as Record<string, string>;
  if (answer.body === undefined) return c.body(null, answer.status as StatusCode, headers);
  return c.body(answer.body, answer.status as ContentfulStatusCode, headers);
}

// --- internal ---

const utf8 = new TextEncoder();
