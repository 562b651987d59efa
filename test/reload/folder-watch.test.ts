import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FolderWatch, watchFolders } from '../../src/reload/folder-watch.js';
import { waitFor as waitForValue } from '../server/helpers.js';

/** Waits (generously) until `check` holds. */
const waitFor = (check: () => boolean) => waitForValue(() => (check() ? true : undefined));

// One kernel watch per folder, none per file: every event is reported as the path it
// names, folders that appear are watched, folders that go are let go.

let watcher: FolderWatch | undefined;
afterEach(() => watcher?.close());

async function start(root: string, options: { depth?: 0; ignored?: (p: string) => boolean } = {}) {
  const events: string[] = [];
  const errors: unknown[] = [];
  watcher = watchFolders([root], {
    ...options,
    onEvent: (p) => events.push(p),
    onError: (e) => errors.push(e),
  });
  await watcher.ready;
  return { events, errors };
}

describe('watchFolders', () => {
  it('watches each folder once, and reports changes to files in any of them by path', async () => {
    const root = await mkdtemp(join(tmpdir(), 'strata-fw-'));
    mkdirSync(join(root, 'roles', 'deep'), { recursive: true });
    for (let i = 0; i < 50; i++) writeFileSync(join(root, 'roles', `r${i}.md`), `${i}`);
    writeFileSync(join(root, 'roles', 'deep', 'd.md'), 'd');
    const { events, errors } = await start(root);
    expect([...watcher!.folders].sort()).toEqual(
      [root, join(root, 'roles'), join(root, 'roles', 'deep')].sort(),
    );
    writeFileSync(join(root, 'roles', 'r7.md'), 'seven');
    writeFileSync(join(root, 'roles', 'deep', 'd.md'), 'deeper');
    await waitFor(
      () =>
        events.includes(join(root, 'roles', 'r7.md')) && events.includes(join(root, 'roles', 'deep', 'd.md')),
    );
    expect(errors).toEqual([]);
  });

  it('watches a folder that appears (made, or renamed in) and lets go of one that goes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'strata-fw-'));
    const { events } = await start(root);
    mkdirSync(join(root, 'teams'));
    await waitFor(() => watcher!.folders.includes(join(root, 'teams')));
    writeFileSync(join(root, 'teams', 'a.md'), 'a');
    await waitFor(() => events.includes(join(root, 'teams', 'a.md')));
    const outside = await mkdtemp(join(root, 'tmp-'));
    mkdirSync(join(outside, 'inner'));
    renameSync(outside, join(root, 'moved'));
    await waitFor(() => watcher!.folders.includes(join(root, 'moved', 'inner')));
    writeFileSync(join(root, 'moved', 'inner', 'b.md'), 'b');
    await waitFor(() => events.includes(join(root, 'moved', 'inner', 'b.md')));
    rmSync(join(root, 'moved'), { recursive: true });
    await waitFor(() => !watcher!.folders.some((f) => f.startsWith(join(root, 'moved'))));
    expect(events).toContain(join(root, 'moved'));
  });

  it('leaves ignored paths out, follows a symlinked folder once, and watches only the named folder at depth 0', async () => {
    const root = await mkdtemp(join(tmpdir(), 'strata-fw-'));
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    const { events } = await start(root, { ignored: (p) => p.includes(`${join(root, '.git')}`) });
    expect(watcher!.folders).not.toContain(join(root, '.git'));
    // The link and its target are one folder: watched once.
    expect(watcher!.folders.filter((f) => f.endsWith('real') || f.endsWith('alias'))).toHaveLength(1);
    writeFileSync(join(root, '.git', 'x'), 'x');
    writeFileSync(join(root, 'real', 'r.md'), 'r');
    await waitFor(() => events.some((e) => e.endsWith('r.md')));
    expect(events.some((e) => e.includes('.git'))).toBe(false);
    watcher!.close();
    const flat = await start(root, { depth: 0 });
    expect(watcher!.folders).toEqual([root]);
    writeFileSync(join(root, 'top.md'), 't');
    await waitFor(() => flat.events.includes(join(root, 'top.md')));
  });
});
