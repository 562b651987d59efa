import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import pino from 'pino';
import { expect } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { compose } from '../../src/core/compose/compose.js';
import { sha256 } from '../../src/core/text/text.js';
import { startService } from '../../src/server/node/start.js';
import { copyFixture, MINI, SEP, spawnServe, waitFor } from './helpers.js';
import { keysOfStates, type PackState, WriterJournal } from './writer-journal.js';

// The consistency check behind consistency.test.ts (a short run, the service in this
// process) and consistency.slow.test.ts (the soak: many rewrites, the service in its own
// process): clients ask for a prompt while a writer rewrites the pack between two
// versions; every answer must be one whole version, never a mix.

/** Two valid versions that differ in two files, so a mix of them has a third sha256. */
const VERSIONS = {
  a: { 'base.md': 'Base A.\n', 'roles/writer.md': 'Writer A.\n' },
  b: { 'base.md': 'Base B.\n', 'roles/writer.md': 'Writer B.\n' },
};
const PROMPTS = {
  a: ['Base A.', 'Writer A.'].join(SEP),
  b: ['Base B.', 'Writer B.'].join(SEP),
};
const MIXES = [['Base A.', 'Writer B.'].join(SEP), ['Base B.', 'Writer A.'].join(SEP)];

/** How hard one run pushes. */
export interface Load {
  /** Rewrites of the pack (even, so the last one writes version a). */
  rewrites: number;
  /** Concurrent clients. */
  clients: number;
  /** Answers each client reads at least, however quickly the rewrites go. */
  answersPerClient: number;
  /** `process`: `strata serve` as its own process, as in production; `inline`: `startService` here. */
  service: 'process' | 'inline';
  /**
   * `watch` (default): the service watches the pack; `manual`: `--no-watch`, and every
   * rewrite is followed by `POST /api/prompts/reload` without waiting for it.
   */
  reload?: 'watch' | 'manual';
}

export type Rewrite = (version: 'a' | 'b', i: number) => Promise<void>;
export type Setup = (
  load: Load,
  cleanups: Cleanups,
  journal: WriterJournal,
) => Promise<{ dir: string; rewrite: Rewrite }>;
export type Cleanups = Array<() => Promise<void>>;

/**
 * A plain folder where each file is saved by writing a temp file and renaming it over
 * the old one (as editors and deploy tools do): between the two renames the folder holds
 * a mix of the versions, which the watcher must never serve.
 */
export const renameSaves: Setup = async (_load, cleanups, journal) => {
  const { dir, cleanup } = await copyFixture();
  cleanups.push(cleanup);
  writeVersion(dir, 'a');
  const rewrite: Rewrite = async (v) => {
    for (const [path, text] of Object.entries(VERSIONS[v])) {
      const temp = join(dir, `${path}.tmp~`);
      writeFileSync(temp, text);
      journal.step({ [path]: text }, () => renameSync(temp, join(dir, path)));
    }
  };
  return { dir, rewrite };
};

/**
 * A plain folder whose files are rewritten in place (truncated and written, as `echo >`
 * or a non-atomic deploy does), one after the other: between the writes — and within
 * one — the folder holds a mix.
 */
export const inPlaceWrites: Setup = async (_load, cleanups, journal) => {
  const { dir, cleanup } = await copyFixture();
  cleanups.push(cleanup);
  writeVersion(dir, 'a');
  const rewrite: Rewrite = async (v) => {
    for (const [path, text] of Object.entries(VERSIONS[v]))
      journal.step({ [path]: text }, () => writeFileSync(join(dir, path), text), { [path]: '' });
  };
  return { dir, rewrite };
};

// The rewriters use synchronous file calls: the clients keep this process's event loop
// busy, and each awaited call would wait behind their responses.

/** Writes a version's files into a pack folder at once (before the service reads it). */
function writeVersion(dir: string, v: 'a' | 'b'): void {
  for (const [path, text] of Object.entries(VERSIONS[v])) writeFileSync(join(dir, path), text);
}

/**
 * A ConfigMap-style volume: each version is a new timestamped folder (written before the
 * swap, as the kubelet does), swapped in by renaming a ..data_tmp symlink over ..data;
 * the old folder is then deleted. Each swap is atomic: never a mix.
 */
export const configMap: Setup = async (load, cleanups) => {
  const { dir: src, cleanup } = await copyFixture();
  cleanups.push(cleanup);
  for (const [path, text] of Object.entries(VERSIONS.a)) await writeFile(join(src, path), text);
  const dir = join(src, '..', 'volume');
  const staging = join(src, '..', 'staging');
  await mkdir(dir);
  await mkdir(staging);
  // Folders for every version up front, so each rewrite is just the kubelet's swap.
  const files = await readTree(src);
  for (let i = 1; i <= load.rewrites; i++) {
    const version = VERSIONS[i % 2 === 1 ? 'b' : 'a'];
    for (const [path, text] of Object.entries({ ...files, ...version })) {
      mkdirSync(dirname(join(staging, `..v${i}`, path)), { recursive: true });
      writeFileSync(join(staging, `..v${i}`, path), text);
    }
  }
  let current = '..v0';
  await rename(src, join(dir, current));
  await symlink(current, join(dir, '..data'));
  for (const name of ['base.md', 'fleet.yaml', 'roles', 'doctrine', 'teams', 'identities'])
    await symlink(`..data/${name}`, join(dir, name));
  const rewrite: Rewrite = async (_v, i) => {
    const next = `..v${i + 1}`;
    renameSync(join(staging, next), join(dir, next));
    symlinkSync(next, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    rmSync(join(dir, current), { recursive: true });
    current = next;
  };
  return { dir, rewrite };
};

/**
 * Runs the check: starts the service over the pack `setup` makes, rewrites it
 * `load.rewrites` times under `load.clients` clients, and asserts every answer was
 * one whole version. Every 7th rewrite waits until the service serves the version just
 * written (so the waits fall on version a and b in turn, and each is a reload); the other
 * pauses are shorter than the debounce.
 */
export async function checkConsistency(setup: Setup, load: Load, cleanups: Cleanups): Promise<void> {
  const journal = new WriterJournal(QUIET_MS, VERSIONS.a);
  const { dir, rewrite } = await setup(load, cleanups, journal);
  const manual = load.reload === 'manual';
  const args = ['--dir', dir, '--port', '0', '--debounce', '5', '--poll-interval', '0'];
  if (manual) args.push('--no-watch');
  const service =
    load.service === 'process'
      ? await spawnServe(args, manual ? { STRATA_ADMIN_TOKEN: TOKEN } : {})
      : await inline(dir, manual);
  cleanups.push(async () => void (await service.stop()));
  const reloads: Array<Promise<unknown>> = [];
  const reload = () =>
    fetch(`${service.url}/api/prompts/reload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    }).then(async (res) => {
      const body = await res.text();
      // A reload that read a file between its truncation and its write (an in-place writer
      // paused longer than the quiet period) sees that file empty and is held by the reload
      // guard (409 RELOAD_HELD): the whole version being served stays, which is the point.
      if (res.status === 409 && body.includes('"RELOAD_HELD"')) return;
      if (res.status !== 200) failures.push(`reload ${res.status} ${body}`);
    });

  const allowed = new Set([sha256(PROMPTS.a), sha256(PROMPTS.b)]);
  const seen = new Map<string, number>();
  const failures: string[] = [];
  let done = false;
  const served = async (): Promise<string> => {
    if (manual) await reload();
    return (await fetch(`${service.url}/api/prompts/writer`, { headers: { accept: 'text/plain' } })).text();
  };
  const client = async (n: number) => {
    let i = 0;
    while (!done || i < load.answersPerClient) {
      i++;
      const res =
        (n + i) % 2 === 0
          ? await fetch(`${service.url}/api/prompts/writer`, { headers: { accept: 'text/plain' } })
          : await fetch(`${service.url}/api/compose`, {
              method: 'POST',
              body: JSON.stringify({ role: 'writer' }),
              headers: { 'content-type': 'application/json' },
            });
      const body = await res.text();
      if (res.status !== 200) {
        failures.push(`${res.status} ${body}`);
        continue;
      }
      const text = res.headers.get('content-type')?.startsWith('text/plain')
        ? body
        : (JSON.parse(body) as { text: string }).text;
      const sum = sha256(text);
      seen.set(sum, (seen.get(sum) ?? 0) + 1);
      // Text answers are tagged with the text's sha256, JSON answers with the body's.
      if (res.headers.get('etag') !== `"${sha256(body)}"`)
        failures.push(`etag ${res.headers.get('etag')} is not the body's sha256`);
    }
  };
  const clients = Array.from({ length: load.clients }, (_, n) => client(n));
  let waits = 0;
  for (let i = 0; i < load.rewrites; i++) {
    const version = i % 2 === 0 ? 'b' : 'a';
    await rewrite(version, i);
    if (manual) reloads.push(reload());
    if (i % 7 === 6) {
      await waitFor(
        async () => ((await served()) === PROMPTS[version] ? true : undefined),
        60_000,
        `version ${version}`,
      );
      waits++;
    } else {
      await new Promise((r) => setTimeout(r, 1 + (i % 3)));
    }
  }
  // The last rewrite wrote version a (rewrites is even): the service settles on it.
  await waitFor(async () => ((await served()) === PROMPTS.a ? true : undefined), 60_000, 'the last version');
  done = true;
  await Promise.all([...clients, ...reloads]);

  const total = [...seen.values()].reduce((a, b) => a + b, 0);
  expect(failures).toEqual([]);
  expect(total).toBeGreaterThanOrEqual(load.clients * load.answersPerClient);
  // Neither version (a mix): allowed only from a state that stood the quiet period.
  const others = [...seen.keys()].filter((s) => !allowed.has(s));
  const base = await mkdtemp(join(tmpdir(), 'strata-standing-'));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  const standing =
    others.length === 0 ? new Set() : await keysOfStates(journal.standing(), base, writeState, keyOf);
  expect(others.filter((s) => !standing.has(s))).toEqual([]);
  // A mix that could not have stood the quiet period is never served.
  expect(MIXES.map(sha256).filter((s) => seen.has(s) && !standing.has(s))).toEqual([]);
  // Each wait saw the other version than the one before it: at least one swap apiece.
  const metrics = await (await fetch(`${service.url}/metrics`)).text();
  const trigger = manual ? 'manual' : 'watch';
  const swaps = Number(
    new RegExp(`strata_reloads_total\\{outcome="swapped",trigger="${trigger}"\\} (\\d+)`).exec(
      metrics,
    )?.[1] ?? 0,
  );
  expect(swaps).toBeGreaterThanOrEqual(waits);
  expect(await served()).toBe(PROMPTS.a);
}

// --- internal ---

const TOKEN = 'consistency-token';
/** The service's quiet period: its debounce (5 ms), raised to the reader's least (20 ms). */
const QUIET_MS = 20;

/** The pack folder in one state of a rewrite: the fixture with `state`'s files. */
async function writeState(dir: string, state: PackState): Promise<void> {
  await cp(MINI, dir, { recursive: true });
  for (const [path, text] of Object.entries(state)) if (text !== null) await writeFile(join(dir, path), text);
}

/** What an answer is checked by: its text's sha256. */
function keyOf(snapshot: Snapshot): string {
  return sha256(compose(snapshot, { role: 'writer' }).text);
}

async function inline(dir: string, manual: boolean): Promise<{ url: string; stop(): Promise<unknown> }> {
  const started = await startService({
    dir,
    env: {},
    port: 0,
    debounceMs: 5,
    pollMs: 0,
    watch: !manual,
    adminToken: manual ? TOKEN : undefined,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(`pack has errors: ${JSON.stringify(started.diagnostics)}`);
  return { url: started.service.url, stop: () => started.service.close() };
}

async function readTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      out[relative(root, path)] = await readFile(path, 'utf8');
    }
  }
  return out;
}
