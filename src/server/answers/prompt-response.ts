import type { Snapshot } from '../../core/build/snapshot.js';
import type { ComposeRequest } from '../../core/compose/compose.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import { type ProviderFormat, providerBody } from '../../formats/registry.js';
import { negotiate } from './accept.js';
import { bytesEtag, type Rendered } from './compose-cache.js';
import type { PromptAnswer } from './prompt-answer.js';

export type { PromptAnswer, PromptAnswers } from './prompt-answer.js';

/** The media types of a prompt's representations, the default first. */
export const PROMPT_TYPES = ['application/json', 'text/plain'] as const;

/**
 * The answer to a prompt request (shared and read-only: callers must not change it): the
 * bare text or the JSON result, as the `Accept` header prefers ({@link negotiate}: JSON
 * without one), or undefined when it accepts neither (a 406). Each
 * representation has its own ETag — the text's is its sha256, the JSON's the sha256 of
 * the JSON bytes (which hold the pack version) — and an `If-None-Match` naming the chosen
 * one answers 304. Shared by the hono route and the node fast path.
 */
export function promptAnswer(
  rendered: Rendered,
  accept: string | undefined,
  ifNoneMatch: string | undefined,
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
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, etag)) {
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
 * provider body (made once per rendered prompt, kept on it), with its own ETag, and 304
 * when `If-None-Match` names it. No `Vary`: the body does not depend on `Accept`.
 */
export function formatAnswer(
  rendered: Rendered,
  snapshot: Snapshot,
  request: ComposeRequest,
  format: ProviderFormat,
  ifNoneMatch: string | undefined,
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
  return ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, etag) ? made.notModified : made.ok;
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

function matchesEtag(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
