import { cpSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { readOnce, stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore, type StoreEvent } from '../../src/reload/store.js';
import { type PackWatcher, watchPack } from '../../src/reload/watch.js';
import { copyFixture, SEP, waitFor } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function watched(
  dir: string,
  pollMs = 0,
): Promise<{ store: SnapshotStore; watcher: PackWatcher; events: StoreEvent[] }> {
  const store = new SnapshotStore(stablePackLoader({ dir, env: {} }));
  const events: StoreEvent[] = [];
  store.subscribe((e) => events.push(e));
  await store.reload('initial');
  const watcher = watchPack(dir, store, { debounceMs: 50, pollMs });
  cleanups.push(() => watcher.close());
  await watcher.ready;
  return { store, watcher, events };
}

function writerText(store: SnapshotStore): string | undefined {
  const snapshot = store.state?.snapshot;
  if (!snapshot) return undefined;
  const outcome = tryCompose(snapshot, { role: 'writer' });
  return outcome.ok ? outcome.result.text : undefined;
}

async function pack(): Promise<string> {
  const { dir, cleanup } = await copyFixture();
  cleanups.push(cleanup);
  return dir;
}

describe('watching a pack directory', () => {
  it('serves an edit', async () => {
    const dir = await pack();
    const { store } = await watched(dir);
    await writeFile(join(dir, 'roles/writer.md'), 'Writer v2.\n');
    await waitFor(
      () => (writerText(store) === ['Base.', 'Writer v2.'].join(SEP) ? true : undefined),
      30_000,
      'the edit',
    );
  });

  it('serves an edit through a hinted read (only the paths the events named), after one full read once the watcher is ready', async () => {
    const dir = await pack();
    const { store, events } = await watched(dir);
    const attempts = () => events.flatMap((e) => (e.type === 'attempt' ? [e.outcome] : []));
    await waitFor(
      () => attempts().find((o) => o.trigger === 'watch' && o.read === 'full'),
      30_000,
      'the full read once the watcher is ready',
    );
    await writeFile(join(dir, 'roles/writer.md'), 'Writer v2.\n');
    await waitFor(
      () => (writerText(store) === ['Base.', 'Writer v2.'].join(SEP) ? true : undefined),
      30_000,
      'the edit',
    );
    const swap = attempts().find(
      (o) => o.outcome === 'swapped' && o.version === store.state!.snapshot.version,
    );
    expect(swap).toMatchObject({ trigger: 'watch', read: 'hinted' });
    expect(store.lastRead).toBe('hinted');
    // A new folder with a role in it, and a rename-save: hinted too, and served.
    await mkdir(join(dir, 'roles/more'));
    await writeFile(join(dir, 'roles/more/critic.md'), 'Critic, nested.\n');
    await writeFile(join(dir, 'roles/writer.md.tmp'), 'Writer v3.\n');
    await rename(join(dir, 'roles/writer.md.tmp'), join(dir, 'roles/writer.md'));
    await waitFor(
      () =>
        writerText(store) === ['Base.', 'Writer v3.'].join(SEP) &&
        store.state!.snapshot.files.has('roles/more/critic.md')
          ? true
          : undefined,
      30_000,
      'the second edit',
    );
    const full = new SnapshotStore(stablePackLoader({ dir, env: {} }));
    await full.reload('manual');
    expect(store.state!.snapshot.version).toBe(full.state!.snapshot.version);
    const last = attempts().find(
      (o) => o.outcome === 'swapped' && o.version === store.state!.snapshot.version,
    );
    expect(last).toMatchObject({ trigger: 'watch', read: 'hinted' });
  });

  it('keeps the old prompt when an edit breaks the pack, reports it, and recovers on the next good write', async () => {
    const dir = await pack();
    const { store, events } = await watched(dir);
    const good = store.state!.snapshot.version;
    await writeFile(join(dir, 'roles/writer.md'), '---\nname: Writer\nno closing line\n');
    const failure = await waitFor(() => store.lastError ?? undefined, 30_000, 'the reload error');
    expect(failure.diagnostics[0]).toMatchObject({
      code: 'BAD_FRONTMATTER',
      file: 'roles/writer.md',
      line: 1,
    });
    expect(store.state!.snapshot.version).toBe(good);
    expect(writerText(store)).toBe(['Base.', 'Writer.'].join(SEP));

    await writeFile(join(dir, 'roles/writer.md'), 'Writer v3.\n');
    await waitFor(
      () => (writerText(store) === ['Base.', 'Writer v3.'].join(SEP) ? true : undefined),
      30_000,
      'recovery',
    );
    expect(store.lastError).toBeNull();
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
  });

  it('reloads on an editor-style save: write a temp file, rename it over the original', async () => {
    const dir = await pack();
    const { store } = await watched(dir);
    const temp = join(dir, 'roles/.writer.md.swp');
    await writeFile(temp, 'Writer saved.\n');
    await rename(temp, join(dir, 'roles/writer.md'));
    await waitFor(
      () => (writerText(store) === ['Base.', 'Writer saved.'].join(SEP) ? true : undefined),
      30_000,
      'the rename-save',
    );
  });

  it('reloads on a Kubernetes ConfigMap update (..data symlink swap, old folder deleted)', async () => {
    const { dir: src, cleanup } = await copyFixture();
    cleanups.push(cleanup);
    const dir = join(src, '..', 'configmap');
    await mkdir(dir);
    // The kubelet's layout: ..<timestamp>/ holds the files, ..data points at it, and the
    // visible names are symlinks through ..data.
    await rename(src, join(dir, '..2024_01_01_00_00_00.000000001'));
    await symlink('..2024_01_01_00_00_00.000000001', join(dir, '..data'));
    for (const name of ['base.md', 'fleet.yaml', 'roles', 'doctrine', 'teams', 'identities']) {
      await symlink(`..data/${name}`, join(dir, name));
    }
    const { store, events } = await watched(dir);
    expect(writerText(store)).toBe(['Base.', 'Writer.'].join(SEP));

    // An update: a new timestamped folder, ..data_tmp → it, renamed over ..data, old folder removed.
    const next = '..2024_01_01_00_01_00.000000002';
    await mkdir(join(dir, next));
    const { cp } = await import('node:fs/promises');
    await cp(join(dir, '..2024_01_01_00_00_00.000000001'), join(dir, next), { recursive: true });
    await writeFile(join(dir, next, 'roles/writer.md'), 'Writer from the ConfigMap.\n');
    await writeFile(join(dir, next, 'base.md'), 'Base v2.\n');
    await symlink(next, join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await rm(join(dir, '..2024_01_01_00_00_00.000000001'), { recursive: true });

    await waitFor(
      () => (writerText(store) === ['Base v2.', 'Writer from the ConfigMap.'].join(SEP) ? true : undefined),
      30_000,
      'the ConfigMap swap',
    );
    expect(events.some((e) => e.type === 'error')).toBe(false);
  });

  it('the poll reads again, by itself, files that changed too recently for their identity to pin them', async () => {
    const dir = await pack();
    const { events } = await watched(dir, 100);
    await waitFor(
      () => (events.some((e) => e.type === 'attempt' && e.outcome.trigger === 'poll') ? true : undefined),
      30_000,
      'a poll',
    );
  });
});

// A watcher that throttled its events per path (as chokidar did: a second `change` within
// 50 ms, an `unlink` within 100 ms, dropped) would miss this: a change made just after a
// read of the one before it must still be read. The loader below makes that change itself, right after
// its first read, so the change always falls in that window.
describe('a change just after a read is read too (watcher only, no poll)', () => {
  it('a rename-save right after the read of the previous one', async () => {
    const dir = await pack();
    const save = (text: string) => {
      writeFileSync(join(dir, 'roles/writer.md.tmp~'), text);
      renameSync(join(dir, 'roles/writer.md.tmp~'), join(dir, 'roles/writer.md'));
    };
    const store = await changingAfterFirstRead(dir, () => save('Writer 2.\n'));
    save('Writer 1.\n');
    await waitFor(
      () => (writerText(store) === ['Base.', 'Writer 2.'].join(SEP) ? true : undefined),
      30_000,
      'the save made after the read',
    );
  });

  it('a ConfigMap ..data swap right after the read of the previous one', async () => {
    const { dir: src, cleanup } = await copyFixture();
    cleanups.push(cleanup);
    const dir = join(src, '..', 'configmap');
    await mkdir(dir);
    await rename(src, join(dir, '..v0'));
    await symlink('..v0', join(dir, '..data'));
    for (const name of ['base.md', 'fleet.yaml', 'roles', 'doctrine', 'teams', 'identities'])
      await symlink(`..data/${name}`, join(dir, name));
    for (const v of ['..v1', '..v2']) {
      cpSync(join(dir, '..v0'), join(dir, v), { recursive: true });
      writeFileSync(join(dir, v, 'roles/writer.md'), `Writer ${v.slice(3)}.\n`);
    }
    let current = '..v0';
    const swap = (next: string) => {
      symlinkSync(next, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      rmSync(join(dir, current), { recursive: true });
      current = next;
    };
    const store = await changingAfterFirstRead(dir, () => swap('..v2'));
    swap('..v1');
    await waitFor(
      () => (writerText(store) === ['Base.', 'Writer 2.'].join(SEP) ? true : undefined),
      30_000,
      'the swap made after the read',
    );
  });
});

/**
 * A store over `dir` (read once per reload, no stability wait) whose first reload after
 * start-up calls `change` as soon as it has read the pack; watched with the poll off.
 */
async function changingAfterFirstRead(dir: string, change: () => void): Promise<SnapshotStore> {
  let armed = false;
  const store = new SnapshotStore(async () => {
    const read = await readOnce({ dir, env: {} });
    if (armed) {
      armed = false;
      change();
    }
    return read;
  });
  await store.reload('initial');
  const watcher = watchPack(dir, store, { debounceMs: 5, pollMs: 0 });
  cleanups.push(() => watcher.close());
  await watcher.ready;
  armed = true;
  return store;
}
