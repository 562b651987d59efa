import { createHash } from 'node:crypto';
import { type ComposeOutcome, type ComposeRequest, type ComposeResult, tryCompose } from '../core/compose.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { Snapshot } from '../core/snapshot.js';
import { withTokens } from '../tokens/count.js';

/** A composed prompt ready to send: the result and its JSON, serialised once. */
export interface Rendered {
  result: ComposeResult;
  /** `JSON.stringify(result)`, with token counts (`withTokens`). */
  json: string;
  /** The text answer's quoted ETag: the text's sha256 (the same on every replica). */
  etag: string;
  /** The JSON answer's quoted ETag: the sha256 of the JSON bytes (they hold the version too). */
  jsonEtag: string;
  /** The two bodies as UTF-8 bytes, encoded once rather than on every send. */
  textBytes: Uint8Array<ArrayBuffer>;
  jsonBytes: Uint8Array<ArrayBuffer>;
}

export type RenderOutcome = { ok: true; rendered: Rendered } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Composes through a small per-snapshot cache. A snapshot never changes, so a result
 * is valid for as long as its snapshot is served; a new snapshot starts an empty cache.
 * Requests with ambient text are composed every time.
 */
export function composeRendered(snapshot: Snapshot, request: ComposeRequest): RenderOutcome {
  const key = request.ambient === undefined ? cacheKey(request) : undefined;
  let entries = caches.get(snapshot);
  if (key !== undefined && entries) {
    const hit = entries.get(key);
    if (hit) return hit;
  }
  const outcome = render(tryCompose(snapshot, request), snapshot);
  if (key !== undefined && outcome.ok) {
    if (!entries) {
      entries = new Map();
      caches.set(snapshot, entries);
    }
    if (entries.size >= MAX_ENTRIES) entries.clear();
    entries.set(key, outcome);
  }
  return outcome;
}

/**
 * The cached answer for a request, without composing: undefined unless an earlier
 * {@link composeRendered} of the same snapshot and request succeeded.
 */
export function peekRendered(snapshot: Snapshot, request: ComposeRequest): Rendered | undefined {
  if (request.ambient !== undefined) return undefined;
  const hit = caches.get(snapshot)?.get(cacheKey(request));
  return hit?.ok ? hit.rendered : undefined;
}

/** A quoted strong ETag for a body: its sha256, hex. */
export function bytesEtag(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('hex')}"`;
}

// --- internal ---

const MAX_ENTRIES = 1000;
const caches = new WeakMap<Snapshot, Map<string, RenderOutcome>>();

function render(outcome: ComposeOutcome, snapshot: Snapshot): RenderOutcome {
  if (!outcome.ok) return outcome;
  const { result } = outcome;
  const json = JSON.stringify(withTokens(result, snapshot));
  const jsonBytes = new TextEncoder().encode(json);
  const rendered: Rendered = {
    result,
    json,
    etag: `"${result.sha256}"`,
    jsonEtag: bytesEtag(jsonBytes),
    textBytes: new TextEncoder().encode(result.text),
    jsonBytes,
  };
  return { ok: true, rendered };
}

function cacheKey(request: ComposeRequest): string {
  // JSON-quoted parts cannot run into each other, whatever characters they hold.
  const q = JSON.stringify;
  let key = `${q(request.role ?? null)},${q(request.team ?? null)},${q(request.agent ?? null)}`;
  if (request.settings) {
    for (const name of Object.keys(request.settings).sort())
      key += `,${q(name)}:${q(request.settings[name])}`;
  }
  return key;
}
