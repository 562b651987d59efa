import { createHash } from 'node:crypto';
import { type ComposeOutcome, type ComposeRequest, type ComposeResult, tryCompose } from '../core/compose.js';
import { type Diagnostic, warning } from '../core/diagnostics.js';
import { withLayerWording } from '../core/explain.js';
import type { Snapshot } from '../core/snapshot.js';
import { snapshotCache } from '../core/snapshot-cache.js';
import { TokenBudgetError, withTokensOffThread } from '../tokens/count-off-thread.js';

/** A composed prompt ready to send: the result and its JSON, serialised once. */
export interface Rendered {
  result: ComposeResult;
  /**
   * `JSON.stringify(result)`, with token counts (`withTokens`) unless counting took longer
   * than the request's budget: then without `tokens`, and `result.diagnostics` ends with a
   * `TOKEN_BUDGET_EXCEEDED` warning.
   */
  json: string;
  /** Whether `json` holds the token counts (an uncounted answer is not cached). */
  counted: boolean;
  /** The text answer's quoted ETag: the text's sha256 (the same on every replica). */
  etag: string;
  /** The JSON answer's quoted ETag: the sha256 of the JSON bytes (they hold the version too). */
  jsonEtag: string;
  /** The two bodies as UTF-8 bytes, encoded once rather than on every send. */
  textBytes: Uint8Array<ArrayBuffer>;
  jsonBytes: Uint8Array<ArrayBuffer>;
}

export type RenderOutcome = { ok: true; rendered: Rendered } | { ok: false; diagnostics: Diagnostic[] };

/** How a render may spend time. */
export interface RenderOptions {
  /** Time budget for the request's token counts (they run off the event loop); see `withTokensOffThread`. */
  tokenBudgetMs?: number;
}

/**
 * Composes through the shared byte-bounded snapshot cache (`snapshotCache`): a snapshot
 * never changes, so a result is valid for as long as its snapshot is served. Requests
 * with ambient text are composed every time. Token counts of uncached texts are made off
 * the event loop; past the budget the prompt is answered without them, with a
 * `TOKEN_BUDGET_EXCEEDED` warning.
 */
export async function composeRendered(
  snapshot: Snapshot,
  request: ComposeRequest,
  options: RenderOptions = {},
): Promise<RenderOutcome> {
  const key = request.ambient === undefined ? cacheKey(request) : undefined;
  if (key !== undefined) {
    const hit = rendered.get(snapshot, key);
    if (hit) return { ok: true, rendered: hit };
  }
  const outcome = tryCompose(snapshot, request);
  if (!outcome.ok) return outcome;
  const done = await render(outcome, snapshot, options);
  // An answer without its token counts is not kept: the next request counts again.
  if (key !== undefined && done.counted) rendered.set(snapshot, key, done, renderedBytes(done));
  return { ok: true, rendered: done };
}

/**
 * The cached answer for a request, without composing: undefined unless an earlier
 * {@link composeRendered} of the same snapshot and request succeeded and is still cached.
 */
export function peekRendered(snapshot: Snapshot, request: ComposeRequest): Rendered | undefined {
  if (request.ambient !== undefined) return undefined;
  return rendered.get(snapshot, cacheKey(request));
}

/** A quoted strong ETag for a body: its sha256, hex. */
export function bytesEtag(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('hex')}"`;
}

// --- internal ---

const rendered = snapshotCache<Rendered>('rendered');

async function render(
  outcome: Extract<ComposeOutcome, { ok: true }>,
  snapshot: Snapshot,
  options: RenderOptions,
): Promise<Rendered> {
  let { result } = outcome;
  let body: ComposeResult;
  let counted = true;
  try {
    body = await withTokensOffThread(result, snapshot, { budgetMs: options.tokenBudgetMs });
  } catch (e) {
    if (!(e instanceof TokenBudgetError)) throw e;
    // Counts are auxiliary: the prompt is answered without them, and says so.
    counted = false;
    result = {
      ...result,
      diagnostics: [
        ...result.diagnostics,
        warning(
          'TOKEN_BUDGET_EXCEEDED',
          `${e.message}; the prompt is answered without token counts (a later request counts them)`,
        ),
      ],
    };
    body = result;
  }
  const json = JSON.stringify(withLayerWording(body));
  const jsonBytes = new TextEncoder().encode(json);
  return {
    result,
    counted,
    json,
    etag: `"${result.sha256}"`,
    jsonEtag: bytesEtag(jsonBytes),
    textBytes: new TextEncoder().encode(result.text),
    jsonBytes,
  };
}

/** An upper bound of what a rendered answer holds: both strings, both byte arrays, the layers. */
function renderedBytes(r: Rendered): number {
  return (
    r.result.text.length * 2 +
    r.json.length * 2 +
    r.textBytes.byteLength +
    r.jsonBytes.byteLength +
    r.result.layers.length * 512 +
    2048
  );
}

function cacheKey(request: ComposeRequest): string {
  // JSON-quoted parts cannot run into each other, whatever characters they hold.
  const q = JSON.stringify;
  let key = `${q(request.role ?? null)},${q(request.team ?? null)},${q(request.agent ?? null)}`;
  if (request.settings) {
    for (const name of Object.keys(request.settings).sort())
      key += `,${q(name)}:${q(request.settings[name])}`;
  }
  if (request.vars) {
    key += ';vars';
    for (const name of Object.keys(request.vars).sort()) key += `,${q(name)}:${q(request.vars[name])}`;
  }
  return key;
}
