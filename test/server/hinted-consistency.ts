import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { compose } from '../../src/core/compose/compose.js';
import type { ReadKind } from '../../src/reload/store.js';
import { startService } from '../../src/server/node/start.js';
import { FIXTURES } from '../helpers.js';
import { snapshotOf, waitFor } from './helpers.js';
import { keysOfStates, type PackState, WriterJournal } from './writer-journal.js';

// Watcher-driven reloads read only the paths file events named (hinted reads). While one
// file, or many files at once, flip between two versions — in place, or by rename-saves,
// into existing folders and a new one — clients read a prompt and every answer must be
// one whole version: its version id (a hash of every file) and its text from the same one
// of the two, never a mix; and the service settles on the last version written. Used by
// hinted-consistency.test.ts (short) and hinted-consistency.slow.test.ts.

/** The service's quiet period (its debounce). */
const QUIET_MS = 250;
/** Files that never change: the hinted reads build on them. */
const STILL = 200;
/** Files a many-file version changes at once, besides base.md and roles/writer.md. */
const MANY = 30;

type Version = 'a' | 'b';
export type Width = 'one file' | 'many files';
export type How = 'written in place' | 'rename-saved';

/** The cases: each width × way of writing, `rewrites` times, reloads started by the watcher only. */
export function hintedConsistency(rewrites: number, cases: ReadonlyArray<[Width, How]>): void {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  describe('hinted reloads while files are rewritten', () => {
    for (const [width, how] of cases) {
      it(`${width} ${how} ${rewrites} times, watcher only: every answer is one whole version`, async () => {
        const base = await mkdtemp(join(tmpdir(), 'strata-hinted-'));
        cleanups.push(() => rm(base, { recursive: true, force: true }));
        const allowed = new Map<string, Version>();
        for (const v of ['a', 'b'] as const) {
          const dir = join(base, `expected-${v}`);
          await writePack(dir, v, width);
          allowed.set(keyOf(await snapshotOf(dir)), v);
        }
        const journal = new WriterJournal(QUIET_MS, filesOf('a', width));
        const root = join(base, 'pack');
        await writePack(root, 'a', width);
        const started = await startService({
          dir: root,
          env: {},
          port: 0,
          // A rewrite's steps come far closer together than this quiet period (unless the
          // machine pauses the writer that long: see WriterJournal).
          debounceMs: QUIET_MS,
          pollMs: 0,
          logger: pino({ level: 'silent' }),
        });
        if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
        const { service } = started;
        cleanups.push(() => service.close());
        const reads: ReadKind[] = [];
        service.store.subscribe((e) => {
          if (e.type === 'attempt' && e.outcome.trigger === 'watch' && e.outcome.read)
            reads.push(e.outcome.read);
        });
        const url = `${service.url}/api/prompts/writer`;
        const failures: string[] = [];
        const answer = async (): Promise<Version | undefined> => {
          const res = await fetch(url, { headers: { accept: 'text/plain' } });
          const text = await res.text();
          if (res.status !== 200) {
            failures.push(`${res.status} ${text}`);
            return undefined;
          }
          const key = `${res.headers.get('x-strata-version')} ${text}`;
          const v = allowed.get(key);
          if (!v) others.set(key, (others.get(key) ?? 0) + 1);
          return v;
        };
        /** Answers of neither version: allowed only from a state that stood the quiet period. */
        const others = new Map<string, number>();
        let done = false;
        const clients = [0, 1].map(async () => {
          while (!done) {
            await answer();
            await new Promise((r) => setTimeout(r, 2));
          }
        });
        for (let i = 0; i < rewrites; i++) {
          const v: Version = i % 2 === 0 ? 'b' : 'a';
          rewrite(root, v, width, how, journal);
          await waitFor(async () => ((await answer()) === v ? true : undefined), 60_000, `version ${v}`);
        }
        done = true;
        await Promise.all(clients);
        const standing = await keysOfStates(journal.standing(), base, writeState, keyOf);
        for (const [key, n] of others)
          if (!standing.has(key)) failures.push(`a mix, ${n} answers: ${JSON.stringify(key)}`);
        expect(failures).toEqual([]);
        // The edits were served through hinted reads.
        expect(reads).toContain('hinted');
      });
    }
  });
}

// --- internal ---

function filesOf(v: Version, width: Width): Record<string, string> {
  const out: Record<string, string> = { 'roles/writer.md': `Writer ${v}.\n` };
  if (width === 'many files') {
    out['base.md'] = `Base ${v}.\n`;
    for (let i = 0; i < MANY; i++) out[`notes/changing-${i}.md`] = `Changing note ${i}, version ${v}.\n`;
    // Version b has a folder version a does not.
    if (v === 'b') for (let i = 0; i < 3; i++) out[`extra/b-only-${i}.md`] = `Only in b, ${i}.\n`;
  }
  return out;
}

async function writePack(dir: string, v: Version, width: Width): Promise<void> {
  await writeState(dir, filesOf(v, width));
}

/** The pack folder in one state of a rewrite: the fixture, the still files and `state`. */
async function writeState(dir: string, state: PackState): Promise<void> {
  await cp(join(FIXTURES, 'server-mini'), dir, { recursive: true });
  mkdirSync(join(dir, 'notes'), { recursive: true });
  for (let i = 0; i < STILL; i++) writeFileSync(join(dir, 'notes', `still-${i}.md`), `Still note ${i}.\n`);
  for (const [path, text] of Object.entries(state)) {
    if (text === null) continue;
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** What an answer of a version is checked by: its version id and its writer prompt. */
function keyOf(snapshot: Snapshot): string {
  return `${snapshot.version} ${compose(snapshot, { role: 'writer' }).text}`;
}

/** Rewrites the pack to a version at once (a new folder for b, removed again for a). */
function rewrite(dir: string, v: Version, width: Width, how: How, journal: WriterJournal): void {
  for (const [path, text] of Object.entries(filesOf(v, width))) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    if (how === 'written in place')
      journal.step({ [path]: text }, () => writeFileSync(join(dir, path), text), { [path]: '' });
    else {
      // An editor's temporary file is hidden: not part of the pack.
      const temp = join(dir, dirname(path), `.${path.split('/').pop()}.tmp~`);
      writeFileSync(temp, text);
      journal.step({ [path]: text }, () => renameSync(temp, join(dir, path)));
    }
  }
  if (v === 'a' && width === 'many files') {
    // The folder only b has goes away, moved out of the pack as a whole.
    const gone = Object.fromEntries(
      Object.keys(filesOf('b', width))
        .filter((p) => p.startsWith('extra/'))
        .map((p) => [p, null]),
    );
    journal.step(gone, () => renameSync(join(dir, 'extra'), join(dir, '..', `extra-gone-${Date.now()}`)));
  }
}
