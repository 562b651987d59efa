import type { Snapshot } from '../../core/build/snapshot.js';
import type { ComposeRequest } from '../../core/compose/compose.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import { type ProviderFormat, providerBody } from '../../formats/registry.js';
import { errorAnswer } from '../service/errors.js';
import { negotiate } from './accept.js';
import { bytesEtag, type Rendered } from './compose-cache.js';
import type { PromptAnswer } from './prompt-answer.js';

export type { PromptAnswer, PromptAnswers } from './prompt-answer.js';

/**
 * A request's preconditions (RFC 9110 §13.1): its `If-Match` and `If-None-Match` headers,
 * and its method — a 304 answers only a GET or HEAD, any other method is 412.
 */
export interface Preconditions {
  ifMatch?: string;
  ifNoneMatch?: string;
  /** `POST` for `POST /api/compose`; GET (or HEAD) when left out. */
  method?: 'GET' | 'POST';
}

/** The media types of a prompt's representations, the default first. */
export const PROMPT_TYPES = ['application/json', 'text/plain'] as const;

/**
 * The answer to a prompt request (shared and read-only: callers must not change it): the
 * bare text or the JSON result, as the `Accept` header prefers ({@link negotiate}: JSON
 * without one), or undefined when it accepts neither (a 406). Each
 * representation has its own ETag — the text's is its sha256, the JSON's the sha256 of
 * the JSON bytes (which hold the pack version) — and the request's preconditions are
 * evaluated against the chosen one ({@link preconditionFailed}): an `If-None-Match`
 * naming it answers 304 (412 to a POST), an `If-Match` naming none of it 412. Shared by
 * the hono route and the node fast path.
 */
export function promptAnswer(
  rendered: Rendered,
  accept: string | undefined,
  conditions: Preconditions = {},
): PromptAnswer | undefined {
  // A 200 answer depends only on the rendered prompt and the representation: build it
  // once, kept on the prompt itself. (Not in a WeakMap keyed by the prompt: V8's young
  // collections do not drop such entries, so every one-off answer's bytes stayed until a
  // full collection, and their growth outside the heap forced one every few seconds.)
  rendered.answers ??= {};
  const memo = rendered.answers;
  const type = negotiate(accept, PROMPT_TYPES);
  if (type === undefined) return undefined;
  const text = type === 'text/plain';
  const etag = text ? rendered.etag : rendered.jsonEtag;
  const outcome = preconditionOutcome(conditions, etag);
  if (outcome === 'failed') return preconditionFailed(conditions, etag, 'Accept');
  if (outcome === 'not-modified') {
    if (text) memo.textNotModified ??= { status: 304, headers: commonHeaders(rendered, etag) };
    else memo.jsonNotModified ??= { status: 304, headers: commonHeaders(rendered, etag) };
    return (text ? memo.textNotModified : memo.jsonNotModified)!;
  }
  if (text) {
    memo.text ??= {
      status: 200,
      headers: commonHeaders(rendered, etag, 'text/plain; charset=utf-8'),
      body: rendered.textBytes,
    };
    return memo.text;
  }
  memo.json ??= {
    status: 200,
    headers: commonHeaders(rendered, etag, 'application/json'),
    body: rendered.jsonBytes,
  };
  return memo.json;
}

/**
 * The answer of a provider-format request (`?format=openai|anthropic`, src/formats/): the
 * provider body (made once per rendered prompt, kept on it), with its own ETag, and its
 * preconditions evaluated as {@link promptAnswer} does. No `Vary`: the body does not
 * depend on `Accept`.
 */
export function formatAnswer(
  rendered: Rendered,
  snapshot: Snapshot,
  request: ComposeRequest,
  format: ProviderFormat,
  conditions: Preconditions = {},
): PromptAnswer {
  rendered.answers ??= {};
  rendered.answers.formats ??= {};
  const formats = rendered.answers.formats;
  let made = formats[format];
  if (!made) {
    const body = providerBody(snapshot, rendered.result, format, { settings: request.settings });
    const bytes = utf8.encode(JSON.stringify(body));
    const etag = bytesEtag(bytes);
    const headers: Record<string, string> = {
      etag,
      'cache-control': 'no-cache',
      'x-strata-version': snapshot.version,
    };
    const codes = warningCodes(rendered.result.diagnostics);
    if (codes.length > 0) headers['x-strata-warnings'] = codes.join(', ');
    made = {
      ok: { status: 200, headers: { ...headers, 'content-type': 'application/json' }, body: bytes },
      notModified: { status: 304, headers },
    };
    formats[format] = made;
  }
  const etag = made.notModified.headers.etag!;
  const outcome = preconditionOutcome(conditions, etag);
  if (outcome === 'failed') return preconditionFailed(conditions, etag);
  return outcome === 'not-modified' ? made.notModified : made.ok;
}

/** The distinct codes of the warnings, in order (the `X-Strata-Warnings` header). */
export function warningCodes(diagnostics: readonly Diagnostic[]): string[] {
  return [...new Set(diagnostics.filter((d) => d.severity === 'warning').map((d) => d.code))];
}

// --- internal ---

const utf8 = new TextEncoder();

/**
 * A prompt answer's own headers, the content type (when it has a body) last. Built in one
 * order, so every answer's headers share a shape and are listed from its cache (a spread
 * into a new object gave one-off answers a shape to work out each time).
 */
function commonHeaders(rendered: Rendered, etag: string, type?: string): Record<string, string> {
  const headers: Record<string, string> = {
    etag,
    'cache-control': 'no-cache',
    vary: 'Accept',
    'x-strata-version': rendered.result.version,
  };
  const warnings = warningCodes(rendered.result.diagnostics);
  if (warnings.length > 0) headers['x-strata-warnings'] = warnings.join(', ');
  if (type !== undefined) headers['content-type'] = type;
  return headers;
}

/**
 * RFC 9110 §13.2.2, for a representation that exists (every prompt answer here): an
 * `If-Match` that names neither `*` nor this ETag (compared strongly: a weak tag never
 * matches) fails; else an `If-None-Match` that names `*` or this ETag (compared weakly)
 * is a 304 to a GET or HEAD and fails any other method. (The service has no
 * `Last-Modified`, so `If-Unmodified-Since` and `If-Modified-Since` are not evaluated.)
 */
function preconditionOutcome(conditions: Preconditions, etag: string): 'failed' | 'not-modified' | undefined {
  const { ifMatch, ifNoneMatch } = conditions;
  if (ifMatch !== undefined && !matchesEtag(ifMatch, etag, true)) return 'failed';
  if (ifNoneMatch === undefined || !matchesEtag(ifNoneMatch, etag, false)) return undefined;
  return conditions.method === 'POST' ? 'failed' : 'not-modified';
}

/**
 * The 412 `PRECONDITION_FAILED` answer, with the ETag of the representation the request
 * asked for (`Vary: Accept` where `Accept` chose it).
 */
function preconditionFailed(conditions: Preconditions, etag: string, vary?: string): PromptAnswer {
  const message =
    conditions.ifMatch !== undefined && !matchesEtag(conditions.ifMatch, etag, true)
      ? `If-Match names neither * nor the answer's ETag ${etag}: the prompt is not the one the client holds`
      : `If-None-Match names the answer's ETag ${etag}: the prompt is the one the client holds (a POST is answered 412, not 304: RFC 9110 §13.1.2)`;
  const headers: Record<string, string> = vary === undefined ? { etag } : { etag, vary };
  return { ...errorAnswer(412, 'PRECONDITION_FAILED', message, undefined, headers), status: 412 };
}

/**
 * Whether an `If-Match` (`strong`) or `If-None-Match` header names `etag`, or is `*`
 * (RFC 9110 §13.1.1–2: If-None-Match compares weakly, a `W/` tag matching its strong one).
 */
export function matchesEtag(header: string, etag: string, strong: boolean): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return strong ? t === etag : t.replace(/^W\//, '') === etag;
  });
}
