import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult } from '../core/compose/compose.js';
import { tokenConfig } from './config.js';
import { rememberCount, type TokenizedResult, uncountedTexts, withTokens } from './count.js';
import { getTokenizer, type TokenizerName } from './tokenizer.js';

// Token counting that cannot block the event loop: `withTokensOffThread` is
// `withTokens` with every uncached text over a few KB counted in a worker thread,
// under a time budget. The service renders through it, so a request with a long
// ambient text or a large prompt keeps `/healthz` and every cached answer responsive.

/** Thrown when counting a request's texts took longer than its budget. */
export class TokenBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(`counting tokens took longer than the ${budgetMs} ms budget`);
    this.name = 'TokenBudgetError';
  }
}

/** The default time budget for one request's token counts. */
export const DEFAULT_TOKEN_BUDGET_MS = 5_000;
/** Uncached texts up to this many UTF-16 units in all are counted inline (cheaper than a message). */
export const INLINE_COUNT_CHARS = 2048;

/**
 * {@link withTokens}, with the uncached texts counted in the worker thread when they are
 * longer than {@link INLINE_COUNT_CHARS} in all. Rejects with {@link TokenBudgetError}
 * when the worker has not answered within `budgetMs`.
 *
 * @example
 * const tokenized = await withTokensOffThread(result, snapshot, { budgetMs: 5000 });
 */
export async function withTokensOffThread(
  result: ComposeResult,
  snapshot: Snapshot,
  options: { budgetMs?: number } = {},
): Promise<TokenizedResult> {
  const tk = getTokenizer(tokenConfig(snapshot).tokenizer);
  const missing = uncountedTexts(result, snapshot, tk);
  let chars = 0;
  for (const m of missing) chars += m.text.length;
  if (chars <= INLINE_COUNT_CHARS) return withTokens(result, snapshot, tk);
  const remember = (counts: number[]) => {
    for (const [i, m] of missing.entries()) rememberCount(snapshot, tk, m.hash, counts[i]!);
  };
  const counts = await countOffThread(
    tk.name,
    missing.map((m) => m.text),
    options.budgetMs ?? DEFAULT_TOKEN_BUDGET_MS,
    remember,
  );
  remember(counts);
  const known = new Map(missing.map((m, i) => [m.hash, counts[i]!]));
  return withTokens(result, snapshot, tk, known);
}

/**
 * Counts texts in the worker thread (started on first use; it does not keep the process
 * alive). Rejects with {@link TokenBudgetError} after `budgetMs`; the worker's answer,
 * if it comes later, goes to `late` (so a cache can keep counts already paid for).
 */
export async function countOffThread(
  tokenizer: TokenizerName,
  texts: string[],
  budgetMs: number,
  late?: (counts: number[]) => void,
): Promise<number[]> {
  // The budget is for counting: it starts once the worker has loaded the encoding.
  await warmCountWorker(tokenizer);
  return send(tokenizer, texts, budgetMs, late);
}

/** Starts the worker and loads an encoding's tables in it (service start-up); once per encoding. */
export function warmCountWorker(tokenizer: TokenizerName): Promise<void> {
  ensureWorker();
  let ready = warmed.get(tokenizer);
  if (!ready) {
    ready = send(tokenizer, ['warm up'], 120_000).then(() => undefined);
    ready.catch(() => warmed.delete(tokenizer));
    warmed.set(tokenizer, ready);
  }
  return ready;
}

/** Stops the worker thread (a later count starts a new one); pending counts are rejected. */
export async function stopCountWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  warmed.clear();
  await w?.terminate();
}

// --- internal ---

function send(
  tokenizer: TokenizerName,
  texts: string[],
  budgetMs: number,
  late?: (counts: number[]) => void,
): Promise<number[]> {
  const worker = ensureWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (late) pending.set(id, { budgetMs, resolve: late, reject: () => {} });
      else pending.delete(id);
      reject(new TokenBudgetError(budgetMs));
    }, budgetMs);
    timer.unref();
    pending.set(id, {
      budgetMs,
      resolve: (counts) => {
        clearTimeout(timer);
        resolve(counts);
      },
      reject: (e) => {
        clearTimeout(timer);
        reject(e);
      },
    });
    // Counts still waiting in the queue well past their budget are dropped by the worker.
    const dropAfter = Date.now() + Math.max(budgetMs, 0) + DROP_GRACE_MS;
    worker.postMessage({ id, tokenizer, texts, dropAfter });
  });
}

interface Pending {
  budgetMs: number;
  resolve(counts: number[]): void;
  reject(e: Error): void;
}

/**
 * How long past its budget a count may still wait in the worker's queue: late counts are
 * kept for the next request, but a queue of counts nobody waits for is dropped.
 */
const DROP_GRACE_MS = 1000;
const pending = new Map<number, Pending>();
/** Encodings whose tables the current worker has loaded (or is loading). */
const warmed = new Map<TokenizerName, Promise<void>>();
let nextId = 1;
let worker: Worker | undefined;

function ensureWorker(): Worker {
  if (worker) return worker;
  const w = startWorker();
  w.unref();
  w.on('message', (m: { id: number; counts: number[] | null }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.counts) p?.resolve(m.counts);
    else p?.reject(new TokenBudgetError(p.budgetMs));
  });
  const fail = (e: Error) => {
    if (worker === w) {
      worker = undefined;
      warmed.clear();
    }
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(e);
    }
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`token counting worker exited with code ${code}`)));
  worker = w;
  return w;
}

/** The built worker (`count-worker.js`), or from the TypeScript sources through tsx. */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./count-worker.js', here));
  const tsxDir = dirname(createRequire(here).resolve('tsx/package.json'));
  const tsx = pathToFileURL(join(tsxDir, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./count-worker.ts', here).href;
  const code = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true });
}
