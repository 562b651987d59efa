import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { compose } from '../../src/core/compose/compose.js';
import { startService } from '../../src/server/node/start.js';
import { SETTLED_MS } from '../../src/source/reuse.js';
import { FIXTURES } from '../helpers.js';
import { snapshotOf, waitFor } from './helpers.js';
import { keysOfStates, type PackState, WriterJournal } from './writer-journal.js';

// Incremental reloads under rewrites: a pack with many settled files (reused by every
// read) where one file, or many at once, flip between two versions — in place, by
// rename-saves, or by ConfigMap swaps — while clients read a prompt and the service
// reloads. Every answer must be one whole version: its version id (a hash of every file)
// and its text must belong to the same one of the two, never to a mix. Used by
// incremental-consistency.slow.test.ts (the slow tier).

/** Files that never change: their bytes and parsing are reused by every reload. */
const STILL = 200;
/** Files a many-file version changes at once, besides base.md and roles/writer.md. */
const MANY = 40;

type Version = 'a' | 'b';
export type Width = 'one file' | 'many files';

function filesOf(v: Version, width: Width): Record<string, string> {
  const out: Record<string, string> = { 'roles/writer.md': `Writer ${v}.\n` };
  if (width === 'many files') {
    out['base.md'] = `Base ${v}.\n`;
    for (let i = 0; i < MANY; i++) out[`notes/changing-${i}.md`] = `Changing note ${i}, version ${v}.\n`;
  }
  return out;
}

/**
 * Rewrites the pack to a version. Between steps it gives the service (in this process)
 * a turn and asks it to reload, so reads land between the files of one rewrite.
 */
type Rewrite = (v: Version, i: number, between: () => Promise<void>) => Promise<void>;

/** The pack folder for a version: the fixture, the still files and the version's files. */
async function writePack(dir: string, v: Version, width: Width): Promise<void> {
  await writeState(dir, filesOf(v, width));
}

/** The pack folder in one state of a rewrite: the fixture, the still files and `state`. */
async function writeState(dir: string, state: PackState): Promise<void> {
  await cp(join(FIXTURES, 'server-mini'), dir, { recursive: true });
  mkdirSync(join(dir, 'notes'), { recursive: true });
  for (let i = 0; i < STILL; i++) writeFileSync(join(dir, 'notes', `still-${i}.md`), `Still note ${i}.\n`);
  for (const [path, text] of Object.entries(state)) if (text !== null) writeFileSync(join(dir, path), text);
}

/** The service's quiet period (its debounce). */
const QUIET_MS = 100;

const WRITERS: Record<
  string,
  (
    dir: string,
    width: Width,
    rewrites: number,
    journal: WriterJournal,
  ) => Promise<{ root: string; rewrite: Rewrite }>
> = {
  'written in place': async (dir, width, _rewrites, journal) => {
    await writePack(dir, 'a', width);
    return {
      root: dir,
      rewrite: async (v, _i, between) => {
        for (const [path, text] of Object.entries(filesOf(v, width))) {
          journal.step({ [path]: text }, () => writeFileSync(join(dir, path), text), { [path]: '' });
          await between();
        }
      },
    };
  },
  'rename-saved': async (dir, width, _rewrites, journal) => {
    await writePack(dir, 'a', width);
    return {
      root: dir,
      rewrite: async (v, _i, between) => {
        for (const [path, text] of Object.entries(filesOf(v, width))) {
          // An editor's temporary file is hidden: not part of the pack.
          const temp = join(dir, dirname(path), `.${path.split('/').pop()}.tmp~`);
          writeFileSync(temp, text);
          await between();
          journal.step({ [path]: text }, () => renameSync(temp, join(dir, path)));
          await between();
        }
      },
    };
  },
  // Each swap is atomic: the pack is one whole version or the other, never a mix.
  'swapped as a ConfigMap volume': async (dir, width, rewrites) => {
    // Every version's folder is written up front; a rewrite is the kubelet's swap.
    const staging = `${dir}-staging`;
    await mkdir(dir);
    for (let i = 0; i <= rewrites; i++)
      await writePack(join(staging, `..v${i}`), i % 2 === 0 ? 'a' : 'b', width);
    renameSync(join(staging, '..v0'), join(dir, '..v0'));
    await symlink('..v0', join(dir, '..data'));
    for (const name of ['base.md', 'fleet.yaml', 'roles', 'doctrine', 'teams', 'identities', 'notes'])
      await symlink(`..data/${name}`, join(dir, name));
    let current = '..v0';
    return {
      root: dir,
      rewrite: async (_v, i, between) => {
        const next = `..v${i + 1}`;
        renameSync(join(staging, next), join(dir, next));
        symlinkSync(next, join(dir, '..data_tmp'));
        await between();
        renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
        await between();
        rmSync(join(dir, current), { recursive: true });
        current = next;
      },
    };
  },
};

const TOKEN = 'incremental-token';

/** The version id and writer prompt of each version, loaded from scratch. */
async function expected(base: string, width: Width): Promise<Map<string, Version>> {
  const out = new Map<string, Version>();
  for (const v of ['a', 'b'] as const) {
    const dir = join(base, `expected-${v}`);
    await writePack(dir, v, width);
    out.set(keyOf(await snapshotOf(dir)), v);
  }
  return out;
}

/** What an answer of a version is checked by: its version id and its writer prompt. */
function keyOf(snapshot: Snapshot): string {
  return `${snapshot.version} ${compose(snapshot, { role: 'writer' }).text}`;
}

/**
 * The cases: one file or many files (`widths`), each written in place, rename-saved and swapped as
 * a ConfigMap volume, `rewrites` times (even: the last rewrite writes version a) under
 * manual reloads asked between every step of a rewrite.
 */
export function incrementalConsistency(rewrites: number, widths: readonly Width[]): void {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  describe('incremental reloads while files are rewritten', () => {
    for (const width of widths) {
      for (const [how, setup] of Object.entries(WRITERS)) {
        it(`${width} ${how} ${rewrites} times, manual reloads: every answer is one whole version`, async () => {
          const base = await mkdtemp(join(tmpdir(), 'strata-incremental-'));
          cleanups.push(() => rm(base, { recursive: true, force: true }));
          const allowed = await expected(base, width);
          const journal = new WriterJournal(QUIET_MS, filesOf('a', width));
          const { root, rewrite } = await setup(join(base, 'pack'), width, rewrites, journal);
          // Let the files settle, as a served pack's have, so unchanged ones are reused.
          await new Promise((r) => setTimeout(r, SETTLED_MS + 200));
          const started = await startService({
            dir: root,
            env: {},
            port: 0,
            // The quiet period: a rewrite's steps come far closer together than this, so no
            // state between two of them is quiet long enough to be taken on its own —
            // unless the machine pauses the writer that long (see WriterJournal).
            debounceMs: QUIET_MS,
            pollMs: 0,
            watch: false,
            adminToken: TOKEN,
            logger: pino({ level: 'silent' }),
          });
          if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
          const { service } = started;
          cleanups.push(() => service.close());
          const url = `${service.url}/api/prompts/writer`;
          const failures: string[] = [];
          const reload = () =>
            fetch(`${service.url}/api/prompts/reload`, {
              method: 'POST',
              headers: { authorization: `Bearer ${TOKEN}` },
            }).then(async (res) => {
              const body = await res.text();
              // A pack that kept changing through every read of a reload is PACK_UNSTABLE:
              // the service keeps its last good version, which is still one whole version.
              if (res.status !== 200 && !(res.status === 422 && body.includes('"PACK_UNSTABLE"')))
                failures.push(`reload ${res.status} ${body}`);
            });
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
          let answers = 0;
          const clients = [0, 1].map(async () => {
            while (!done) {
              await answer();
              answers++;
            }
          });
          const reloads: Array<Promise<void>> = [];
          for (let i = 0; i < rewrites; i++) {
            const v: Version = i % 2 === 0 ? 'b' : 'a';
            await rewrite(v, i, async () => {
              reloads.push(reload());
              await new Promise((r) => setImmediate(r));
            });
            reloads.push(reload());
            if (i % 4 === 3) {
              await waitFor(
                async () => ((await reload().then(answer)) === v ? true : undefined),
                60_000,
                `version ${v}`,
              );
            } else await new Promise((r) => setTimeout(r, 1 + (i % 3)));
          }
          // The last rewrite wrote version a (rewrites is even): the service settles on it.
          await waitFor(
            async () => ((await reload().then(answer)) === 'a' ? true : undefined),
            60_000,
            'version a',
          );
          done = true;
          await Promise.all([...clients, ...reloads]);
          const standing = await keysOfStates(journal.standing(), base, writeState, keyOf);
          for (const [key, n] of others)
            if (!standing.has(key)) failures.push(`a mix, ${n} answers: ${JSON.stringify(key)}`);
          expect(failures).toEqual([]);
          expect(answers).toBeGreaterThan(0);
        });
      }
    }
  });
}
