import { renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { type PackWatcher, watchPack } from '../../src/reload/watch.js';
import { tempDir, writeFiles } from '../helpers.js';
import { waitFor } from '../server/helpers.js';
import { WriterJournal } from '../server/writer-journal.js';

/**
 * Hostile writers around a served pack, one test per finding: reloads must never serve
 * a torn pack, and must not be starved by what is not the pack.
 */

const stops: Array<() => unknown> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function pack(base: string): string {
  const dir = tempDir();
  writeFiles(dir, { 'base.md': base, 'roles/writer.md': 'Writer.\n' });
  return dir;
}

/**
 * Rewrites `path` every couple of milliseconds until the test ends (or `stop`); each write
 * goes in `journal` when given, as the pack-relative `rel`.
 */
function churn(
  path: string,
  text: (i: number) => string,
  journal?: { log: WriterJournal; rel: string },
): () => void {
  let i = 0;
  const timer = setInterval(() => {
    const next = text(i++);
    if (!journal) writeFileSync(path, next);
    else journal.log.step({ [journal.rel]: next }, () => writeFileSync(path, next), { [journal.rel]: '' });
  }, 2);
  const stop = () => clearInterval(timer);
  stops.push(stop);
  return stop;
}

async function started(dir: string, quietMs = 20): Promise<SnapshotStore> {
  const store = new SnapshotStore(stablePackLoader({ dir, env: {}, quietMs }));
  expect((await store.reload('initial')).outcome).toBe('swapped');
  return store;
}

function watched(dir: string, store: SnapshotStore): Promise<void> {
  const watcher: PackWatcher = watchPack(dir, store, { debounceMs: 20, pollMs: 0 });
  stops.push(() => watcher.close());
  return watcher.ready;
}

const base = (store: SnapshotStore) => store.state?.snapshot.files.get('base.md')?.prompt;

describe('hostile writers and reloads', () => {
  it('a manual reload while files keep changing is a failed reload (PACK_UNSTABLE), never a swap of a read that never agreed', async () => {
    const dir = pack('Base 0.\n');
    const store = await started(dir);
    const before = store.state!.snapshot.version;
    // Changed just now, and again every couple of milliseconds for as long as the test runs.
    const journal = new WriterJournal(20, { 'base.md': 'Base 0.\n' });
    journal.step({ 'base.md': 'Base changing.\n' }, () =>
      writeFileSync(join(dir, 'base.md'), 'Base changing.\n'),
    );
    const stop = churn(join(dir, 'base.md'), (i) => `Base ${i} ${'x'.repeat(i % 50)}.\n`, {
      log: journal,
      rel: 'base.md',
    });
    const outcome = await store.reload('manual');
    stop();
    if (outcome.outcome === 'swapped') {
      // Only a machine that paused the writer for the quiet period lets a read agree: the
      // version taken is then one that stood that long.
      const standing = journal.standing().map((state) => state['base.md']?.trim());
      expect(standing).toContain(base(store));
    } else {
      expect(outcome.outcome).toBe('failed');
      expect(outcome.diagnostics.map((d) => d.code)).toEqual(['PACK_UNSTABLE']);
      expect(store.state!.snapshot.version).toBe(before);
    }
  });

  it('a slow writer pausing mid-file is not served half-written', async () => {
    const dir = pack('Base old.\n');
    // The service's quiet period is its debounce (100 ms by default); the writer pauses less.
    const store = await started(dir, 800);
    const full = `Base new: ${'y'.repeat(4000)}.\n`;
    const half = full.slice(0, 2000);
    const journal = new WriterJournal(800, { 'base.md': 'Base old.\n' });
    journal.step({ 'base.md': half }, () => writeFileSync(join(dir, 'base.md'), half));
    const reload = store.reload('manual');
    await new Promise((r) => setTimeout(r, 100));
    journal.step({ 'base.md': full }, () => writeFileSync(join(dir, 'base.md'), full));
    const outcome = await reload;
    // The reload either waited for the whole file or gave up; it never took the half —
    // unless the machine paused the writer for the whole quiet period in the middle.
    const halfStood = journal.standing().some((state) => state['base.md'] === half);
    if (outcome.outcome === 'swapped')
      expect([full.trim(), ...(halfStood ? [half.trim()] : [])]).toContain(base(store));
    else expect(base(store)).toBe('Base old.');
    await store.reload('manual');
    expect(base(store)).toBe(full.trim());
  });

  it('churn in a hidden (dot) file does not starve the watcher', async () => {
    const dir = pack('Base 1.\n');
    const store = await started(dir);
    await watched(dir, store);
    churn(join(dir, '.base.md.swp'), (i) => `swap ${i}\n`);
    churn(join(dir, 'roles', '.lock'), (i) => `${i}\n`);
    writeFileSync(join(dir, 'base.md'), 'Base 2.\n');
    await waitFor(() => (base(store) === 'Base 2.' ? true : undefined), 30_000, 'the edit to be served');
  });

  it('a pack root that is a swapped symlink (git-sync --link, a current release link) is noticed by the watcher, not only the poll', async () => {
    const parent = tempDir();
    writeFiles(join(parent, 'releases', 'one'), { 'base.md': 'Release one.\n', 'roles/writer.md': 'W.\n' });
    writeFiles(join(parent, 'releases', 'two'), { 'base.md': 'Release two.\n', 'roles/writer.md': 'W.\n' });
    const root = join(parent, 'current');
    symlinkSync(join('releases', 'one'), root);
    const store = await started(root);
    expect(store.state!.snapshot.root).toBe(join(parent, 'releases', 'one'));
    await watched(root, store);
    symlinkSync(join('releases', 'two'), join(parent, 'current.tmp'));
    renameSync(join(parent, 'current.tmp'), root);
    await waitFor(() => (base(store) === 'Release two.' ? true : undefined), 30_000, 'the new release');
    expect(store.state!.snapshot.root).toBe(join(parent, 'releases', 'two'));
    // …and the watcher now follows the new release's files.
    writeFileSync(join(parent, 'releases', 'two', 'base.md'), 'Release two, edited.\n');
    await waitFor(() => (base(store) === 'Release two, edited.' ? true : undefined), 30_000, 'the edit');
  });
});
