import { createHash } from 'node:crypto';
import type { Snapshot } from '../../core/build/snapshot.js';
import type { ComposeRequest, ComposeResult } from '../../core/compose/compose.js';
import { withLayerWording } from '../../core/compose/explain.js';
import { type Diagnostic, warning } from '../../core/text/diagnostics.js';
import { engineOf, tryCompose } from '../../engine/default-engine.js';
import { cachedComposeSpan, spanRefused, tracedCompose } from '../../telemetry/spans.js';
import {
  DEFAULT_TOKEN_BUDGET_MS,
  TokenBudgetError,
  withTokensOffThread,
} from '../../tokens/count-off-thread.js';
import { tokenizerAvailable } from '../../tokens/tokenizer.js';
import type { RenderSlots } from '../service/render-slots.js';
import { jsonBytes } from './json-bytes.js';
import type { PromptAnswers } from './prompt-answer.js';

/**
 * A composed prompt ready to send. Its two bodies are built on first use and then kept:
 * an answer the cache keeps has both, built once; a one-off answer (a request with
 * ambient text) builds only the representation it sends.
 */
export interface Rendered {
  result: ComposeResult;
  /** Whether the JSON holds the token counts (an uncounted answer is not cached). */
  counted: boolean;
  /** The text answer's quoted ETag: the text's sha256 (the same on every replica). */
  etag: string;
  /** The JSON answer's quoted ETag: the sha256 of the JSON bytes (they hold the version too). */
  readonly jsonEtag: string;
  /** The text as UTF-8 bytes. */
  readonly textBytes: Uint8Array<ArrayBuffer>;
  /**
   * `JSON.stringify` of the result as UTF-8 bytes, with token counts (`withTokens`) unless
   * counting took longer than the request's budget: then without `tokens`, and
   * `result.diagnostics` ends with a `TOKEN_BUDGET_EXCEEDED` warning.
   */
  readonly jsonBytes: Uint8Array<ArrayBuffer>;
  /**
   * The HTTP answers made of this prompt (`promptAnswer` builds each once and keeps it
   * here, so they live exactly as long as the prompt).
   */
  answers?: PromptAnswers;
}

export type RenderOutcome = { ok: true; rendered: Rendered } | { ok: false; diagnostics: Diagnostic[] };

/** How a render may spend time, and the slots it waits for. */
export interface RenderOptions {
  /** The service's render slots: an uncached answer is made in one of them. */
  slots: RenderSlots;
  /**
   * Time budget of the request, from `startedAt`: the token counts (made off the event
   * loop) get what is left of it once the prompt is composed; see `withTokensOffThread`.
   */
  tokenBudgetMs?: number;
  /** When the request started (`performance.now()`; default: now). */
  startedAt?: number;
  /**
   * Whether the answer needs the token counts (default true). A request with ambient
   * text (composed for itself, never kept) answered as text or as a provider body does
   * not: its counts would be made off the event loop and thrown away.
   */
  counts?: boolean;
}

/**
 * Composes through the engine's byte-bounded cache: a snapshot
 * never changes, so a result is valid for as long as its snapshot is served. Requests
 * with ambient text are composed every time. Token counts of uncached texts are made off
 * the event loop; past the budget the prompt is answered without them, with a
 * `TOKEN_BUDGET_EXCEEDED` warning. The event loop gets a turn between the expensive
 * steps (a compose that took {@link TURN_AFTER_MS} or more, count, serialise, encode), so
 * other requests and health probes are answered in between.
 */
export function composeRendered(
  snapshot: Snapshot,
  request: ComposeRequest,
  options: RenderOptions,
): RenderOutcome | Promise<RenderOutcome> {
  // One span a compose (no-op unless the application registers an OpenTelemetry SDK).
  return tracedCompose('strata.compose', request, (done, span) => {
    const report = (outcome: Reused): RenderOutcome => {
      if (outcome.ok) done(outcome.rendered.result, snapshot.preset, outcome.cached);
      else
        spanRefused(
          span,
          outcome.diagnostics.map((d) => d.code),
        );
      return outcome;
    };
    const outcome = renderOrReuse(snapshot, request, options);
    return outcome instanceof Promise ? outcome.then(report) : report(outcome);
  });
}

/**
 * The cached answer for a request, without composing: undefined unless an earlier
 * {@link composeRendered} of the same snapshot and request succeeded and is still cached.
 */
export function peekRendered(snapshot: Snapshot, request: ComposeRequest): Rendered | undefined {
  if (request.ambient !== undefined) return undefined;
  const hit = rendered(snapshot).get(snapshot, cacheKey(request));
  if (hit) cachedComposeSpan('strata.compose', request, hit.result, snapshot.preset);
  return hit;
}

/** A quoted strong ETag for a body: its sha256, hex. */
export function bytesEtag(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('hex')}"`;
}

/**
 * What a rendered answer holds in memory once both bodies are built, at real size: the
 * text (one byte per unit when it is ASCII, as V8 stores it, else two), both byte arrays,
 * and the result's layer records. The result itself is shared with the compose memo,
 * which counts it too, so a rendered entry stays bounded when that entry is gone.
 */
export function renderedBytes(r: Rendered): number {
  const { text } = r.result;
  const textBytes = r.textBytes.byteLength;
  return (
    (textBytes === text.length ? text.length : text.length * 2) +
    textBytes +
    r.jsonBytes.byteLength +
    r.result.layers.length * 512 +
    4096
  );
}

// --- internal ---

/** Rendered answers, in the byte-bounded cache of the snapshot's engine. */
const rendered = (snapshot: Snapshot) => engineOf(snapshot).cache.view<Rendered>('rendered');

/** What {@link renderOrReuse} gives: an outcome, and whether its answer was a kept one. */
type Reused = (RenderOutcome & { ok: true; cached: boolean }) | (RenderOutcome & { ok: false });

/**
 * {@link composeRendered}'s work: the cached answer, or a new one (`cached` says which).
 * Given at once (no promise, no turn of the event loop) when it is kept, refused, or a
 * one-off text composed quickly in a free slot; else when it is made.
 */
function renderOrReuse(
  snapshot: Snapshot,
  request: ComposeRequest,
  options: RenderOptions,
): Reused | Promise<Reused> {
  const key = request.ambient === undefined ? cacheKey(request) : undefined;
  if (key !== undefined) {
    const hit = rendered(snapshot).get(snapshot, key);
    if (hit) return { ok: true, rendered: hit, cached: true };
  }
  const startedAt = options.startedAt ?? performance.now();
  // At most `maxRenders` requests compose, count and serialise at once (their copies of
  // the prompt are the service's memory in flight); the others wait their turn.
  const free = options.slots.tryAcquire();
  if (free) return renderInSlot(snapshot, request, options, key, startedAt, free);
  return options.slots
    .acquire()
    .then((release) => renderInSlot(snapshot, request, options, key, startedAt, release));
}

/** Makes an answer in a render slot, released when it is made. */
function renderInSlot(
  snapshot: Snapshot,
  request: ComposeRequest,
  options: RenderOptions,
  key: string | undefined,
  startedAt: number,
  release: () => void,
): Reused | Promise<Reused> {
  let now = true;
  try {
    // A request that waited may find its answer made meanwhile.
    const made = key === undefined ? undefined : rendered(snapshot).get(snapshot, key);
    if (made) return { ok: true, rendered: made, cached: true };
    const composedFrom = performance.now();
    const outcome = tryCompose(snapshot, request);
    if (!outcome.ok) return outcome;
    // Other requests and health probes get a turn after a compose that took a while; after
    // a quick one a one-off answer that needs no token counts is given at once (a turn,
    // or only a promise, for every one-off prompt, an `ambient` text of its own, cost the
    // service a third of its rate on them).
    const quick = performance.now() - composedFrom < TURN_AFTER_MS;
    if (quick && key === undefined && options.counts === false)
      return { ok: true, rendered: new RenderedPrompt(outcome.result, outcome.result, false), cached: false };
    now = false;
    return renderLater(snapshot, outcome.result, options, key, startedAt, quick, release);
  } finally {
    if (now) release();
  }
}

/**
 * The rest of an answer's making (after a turn of the event loop when its compose took a
 * while), in the slot it releases once the answer is made.
 */
async function renderLater(
  snapshot: Snapshot,
  result: ComposeResult,
  options: RenderOptions,
  key: string | undefined,
  startedAt: number,
  quick: boolean,
  release: () => void,
): Promise<Reused> {
  try {
    if (!quick) await turn();
    if (key === undefined && options.counts === false)
      return { ok: true, rendered: new RenderedPrompt(result, result, false), cached: false };
    const budgetMs = options.tokenBudgetMs ?? DEFAULT_TOKEN_BUDGET_MS;
    const left = Math.max(0, startedAt + budgetMs - performance.now());
    const done = await render(result, snapshot, left);
    // An answer without its token counts is not kept: the next request counts again.
    if (key !== undefined && done.counted) {
      await turn();
      void done.jsonBytes;
      await turn();
      void done.textBytes;
      rendered(snapshot).set(snapshot, key, done, renderedBytes(done));
    }
    return { ok: true, rendered: done, cached: false };
  } finally {
    release();
  }
}

const utf8 = new TextEncoder();
/** A compose that took this long (ms) or longer is followed by a turn of the event loop. */
const TURN_AFTER_MS = 1;
/** Lets the event loop handle what is pending (new connections, other requests) first. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function render(result: ComposeResult, snapshot: Snapshot, budgetMs: number): Promise<Rendered> {
  // Without the optional tokenizer, answers carry no counts (the service says so once, at start).
  if (!tokenizerAvailable()) return new RenderedPrompt(result, result, true);
  try {
    const body = await withTokensOffThread(result, snapshot, { budgetMs });
    return new RenderedPrompt(result, body, true);
  } catch (e) {
    if (!(e instanceof TokenBudgetError)) throw e;
    // Counts are auxiliary: the prompt is answered without them, and says so.
    const uncounted = {
      ...result,
      diagnostics: [
        ...result.diagnostics,
        warning(
          'TOKEN_BUDGET_EXCEEDED',
          `${e.message}; the prompt is answered without token counts (a later request counts them)`,
        ),
      ],
    };
    return new RenderedPrompt(uncounted, uncounted, false);
  }
}

/** A {@link Rendered} whose bodies are built on first use, each once. */
class RenderedPrompt implements Rendered {
  readonly etag: string;
  answers: PromptAnswers | undefined;
  #body: ComposeResult | undefined;
  #json: { bytes: Uint8Array<ArrayBuffer>; etag: string } | undefined;
  #text: Uint8Array<ArrayBuffer> | undefined;

  constructor(
    readonly result: ComposeResult,
    body: ComposeResult,
    readonly counted: boolean,
  ) {
    this.etag = `"${result.sha256}"`;
    this.#body = body;
  }

  get jsonBytes(): Uint8Array<ArrayBuffer> {
    return this.#serialised().bytes;
  }

  get jsonEtag(): string {
    return this.#serialised().etag;
  }

  get textBytes(): Uint8Array<ArrayBuffer> {
    this.#text ??= utf8.encode(this.result.text);
    return this.#text;
  }

  #serialised(): { bytes: Uint8Array<ArrayBuffer>; etag: string } {
    if (!this.#json) {
      // The text is written straight into the bytes (no JSON string of the answer is
      // made); the counted body is not kept.
      const bytes = jsonBytes(withLayerWording(this.#body!), 'text');
      this.#json = { bytes, etag: bytesEtag(bytes) };
      this.#body = undefined;
    }
    return this.#json;
  }
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
