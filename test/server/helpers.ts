import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SseParser } from '../../src/client/sse.js';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { buildSnapshot } from '../../src/engine/default-engine.js';
import { stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { type AppOptions, createApp, type StrataApp } from '../../src/server/app.js';
import { loadPack } from '../../src/source/load.js';
import { checked } from './contract.js';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures');
export const MINI = join(FIXTURES, 'server-mini');
export const SEP = '\n\n---\n\n';

/** The mini pack's prompts, byte for byte. */
export const MINI_PROMPTS = {
  writer: ['Base.', 'Writer.'].join(SEP),
  critic: ['Base.', 'Critic.'].join(SEP),
  w1: ['Base.', 'Writer.', 'Team blue.', 'I am w1.'].join(SEP),
  writerFable: ['Base.', 'Fable.', 'Ethos.', 'Writer.'].join(SEP),
};

/** A copy of a fixture pack in a fresh temp folder (removed by the returned cleanup). */
export async function copyFixture(
  name = 'server-mini',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const base = await mkdtemp(join(tmpdir(), 'strata-server-'));
  const dir = join(base, 'pack');
  await cp(join(FIXTURES, name), dir, { recursive: true });
  return { dir, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** A loaded snapshot of a pack directory (throws when it has errors). */
export async function snapshotOf(dir: string): Promise<Snapshot> {
  const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
  if (!snapshot) throw new Error(`pack has errors: ${JSON.stringify(diagnostics)}`);
  return snapshot;
}

/** An app over a store that reads `dir` (loaded once before returning). */
export async function appFor(
  dir: string,
  options: Partial<AppOptions> = {},
): Promise<StrataApp & { store: SnapshotStore }> {
  const store = new SnapshotStore(stablePackLoader({ dir, env: {} }));
  await store.reload('initial');
  // Every answer the tests receive is checked against the OpenAPI document. On a machine
  // whose cores other work keeps busy, counting a prompt's tokens off the event loop can
  // pass the service's 5 s budget (a TOKEN_BUDGET_EXCEEDED warning no test asked for): the
  // budget here only tells a hang from a slow machine; the budget's own tests set theirs.
  return { ...checked(createApp({ store, heartbeatMs: 0, tokenBudgetMs: 120_000, ...options })), store };
}

/** A store over in-memory files the test can change between reloads. */
export function memoryStore(files: Record<string, string>): {
  store: SnapshotStore;
  files: Map<string, Uint8Array>;
  set(path: string, text: string): void;
} {
  const map = new Map(Object.entries(files).map(([k, v]) => [k, new TextEncoder().encode(v)]));
  const store = new SnapshotStore(async () => buildSnapshot({ files: new Map(map), env: {} }));
  return { store, files: map, set: (path, text) => map.set(path, new TextEncoder().encode(text)) };
}

/**
 * The least a test waits for a condition before it fails: on a machine whose cores other
 * work keeps busy, a reload or a child process's start takes tens of seconds. A shorter
 * bound asked of {@link waitFor} or an event stream is raised to this; the bound only
 * tells a hang from a slow machine, it never decides a test that passes.
 */
export const PATIENCE_MS = 120_000;

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`
 * (at least {@link PATIENCE_MS}: a test waits for a condition, never a time).
 */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = PATIENCE_MS,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + Math.max(timeoutMs, PATIENCE_MS);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reads SSE events from a streaming response: `next(n)` resolves with the next n events. */
export function eventStream(res: Response): {
  next(count?: number, timeoutMs?: number): Promise<Array<{ event: string; data: unknown }>>;
  close(): Promise<void>;
} {
  const parser = new SseParser();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const queue: Array<{ event: string; data: unknown }> = [];
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  return {
    async next(count = 1, timeoutMs = PATIENCE_MS) {
      const deadline = Date.now() + Math.max(timeoutMs, PATIENCE_MS);
      while (queue.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${count} events (got ${queue.length})`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<'timeout'>((r) => {
          timer = setTimeout(() => r('timeout'), left);
        });
        pending ??= reader.read();
        const read = await Promise.race([pending, timeout]);
        clearTimeout(timer);
        if (read === 'timeout') continue;
        pending = undefined;
        if (read.done) throw new Error('event stream ended');
        for (const e of parser.push(decoder.decode(read.value, { stream: true }))) {
          queue.push({ event: e.event, data: JSON.parse(e.data) });
        }
      }
      return queue.splice(0, count);
    },
    close: () => reader.cancel().catch(() => undefined),
  };
}

export const ROOT = resolve(import.meta.dirname, '../..');

/** A running `strata serve`: its URL, its log lines so far, and a stop that gives its exit status. */
export interface ServeRun {
  url: string;
  logs(): string[];
  stop(): Promise<number | null>;
}

/**
 * `strata serve` in this process (the CLI's own `run`, with a stop signal the test
 * aborts); resolves once it logs that it is listening.
 */
export async function serveInProcess(args: string[], env: Record<string, string> = {}): Promise<ServeRun> {
  const { run } = await import('../../src/cli/run.js');
  const stop = new AbortController();
  const lines: string[] = [];
  let buffer = '';
  let stderr = '';
  let listening: ((url: string) => void) | undefined;
  const url = new Promise<string>((resolveUrl) => {
    listening = resolveUrl;
  });
  const exited = run(['serve', ...args], {
    stdout: (text) => {
      buffer += text;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (line.includes('"msg":"listening"')) listening!(JSON.parse(line).url);
      }
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    cwd: ROOT,
    signal: stop.signal,
  });
  const started = await Promise.race([
    url,
    exited.then((code) => {
      throw new Error(`serve exited ${code}: ${stderr}`);
    }),
  ]);
  return {
    url: started,
    logs: () => lines,
    stop: async () => {
      stop.abort('SIGTERM');
      return exited;
    },
  };
}

/** A `strata serve` child process, once it listens: its URL, its log lines so far, and a stop. */
export interface ServeChild {
  url: string;
  child: ChildProcess;
  logs: () => string[];
  /** Sends `signal` (once) and resolves with the exit status. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/** `strata serve` in a child process; resolves once it logs that it is listening. */
export function spawnServe(args: string[], env: Record<string, string> = {}): Promise<ServeChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/strata.ts'), 'serve', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return listening(child);
}

/**
 * A child process running `strata serve` with JSON logs on stdout, once it logs that it is
 * listening (rejects if it exits first, with its stderr).
 */
export async function listening(child: ChildProcess): Promise<ServeChild> {
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d) => {
      buffer += d;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (line.includes('"msg":"listening"')) resolveUrl(JSON.parse(line).url);
      }
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    logs: () => lines,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
