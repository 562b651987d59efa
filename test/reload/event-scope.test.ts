import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { EventScope } from '../../src/reload/event-scope.js';
import { stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore, type StoreEvent } from '../../src/reload/store.js';
import { watchPack } from '../../src/reload/watch.js';
import { openPack } from '../../src/source/open.js';
import { tempDir, writeFiles } from '../helpers.js';
import { waitFor } from '../server/helpers.js';

// A file event is about the pack only when the pack can select the file: build output
// beside a project's AGENTS.md files starts no reload.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function projectRoot(): string {
  const dir = tempDir('strata-events-');
  dirs.push(dir);
  writeFiles(dir, {
    'AGENTS.md': 'Root rules.\n',
    'src/AGENTS.md': 'Source rules.\n',
    'target/debug/main.o': 'object\n',
  });
  return dir;
}

describe('EventScope', () => {
  it('counts what the pack can select, folders, symlinks and watched folders; not other files', async () => {
    const dir = projectRoot();
    mkdirSync(join(dir, 'target', 'new'));
    symlinkSync(join(dir, 'src'), join(dir, 'linked'));
    const { snapshot } = await openPack({ kind: 'dir', dir }, { env: {} });
    const scope = new EventScope();
    const none = (_path: string) => false;
    const counts = (rel: string, watched = none) => scope.counts(snapshot!, rel, join(dir, rel), watched);
    expect(counts('AGENTS.md')).toBe(true);
    expect(counts('src/AGENTS.md')).toBe(true);
    expect(counts('strata.yaml')).toBe(true); // gone, but it decides the pack
    expect(counts('base.md')).toBe(true); // it would make the folder another layout
    expect(counts('target/debug/main.o')).toBe(false);
    expect(counts('target/debug/gone.o')).toBe(false);
    expect(counts('target/new')).toBe(true); // a folder may hold files that count
    expect(counts('linked')).toBe(true);
    // A folder moved away (gone) or replaced by a file: it was watched, so it counts.
    expect(counts('target/moved', (p) => p === join(dir, 'target/moved'))).toBe(true);
    expect(counts('target/debug/main.o', (p) => p === join(dir, 'target/debug/main.o'))).toBe(true);
  });

  it('a pack without `files:` counts every event', async () => {
    const dir = tempDir('strata-events-');
    dirs.push(dir);
    writeFiles(dir, { 'base.md': 'Base.\n', 'notes/x.bin': 'x' });
    const { snapshot } = await openPack({ kind: 'dir', dir }, { env: {} });
    expect(snapshot!.preset).toBe('roboco');
    expect(new EventScope().counts(snapshot!, 'notes/x.bin', join(dir, 'notes/x.bin'), () => false)).toBe(
      true,
    );
  });
});

describe('watching a project root', () => {
  it('build output churn starts no reload; an AGENTS.md edit is served', async () => {
    const dir = projectRoot();
    const store = new SnapshotStore(stablePackLoader({ dir, env: {} }));
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    await store.reload('initial');
    const watcher = watchPack(dir, store, { debounceMs: 20, pollMs: 0 });
    try {
      await watcher.ready;
      const watchReads = () => events.filter((e) => e.type === 'attempt' && e.outcome.trigger === 'watch');
      // The full read once the watcher is ready.
      await waitFor(() => (watchReads().length > 0 ? true : undefined), 30_000, 'the ready read');
      const before = watchReads().length;
      for (let i = 0; i < 50; i++) await writeFile(join(dir, 'target', 'debug', `f${i}.o`), `object ${i}\n`);
      await writeFile(join(dir, 'target', 'debug', 'main.o'), 'relinked\n');
      // Time for those events to start a read if they counted (setup: a read that should
      // not happen cannot be waited for; with the events counted, one happens here).
      await new Promise((r) => setTimeout(r, 300));
      await writeFile(join(dir, 'src', 'AGENTS.md'), 'Source rules, v2.\n');
      const text = () => {
        const s = store.state?.snapshot;
        const out = s && tryCompose(s, { vars: { cwd: 'src' } });
        return out?.ok ? out.result.text : undefined;
      };
      await waitFor(() => (text()?.includes('Source rules, v2.') ? true : undefined), 30_000, 'the edit');
      // Only the AGENTS.md edit was read: every read since names a path the pack selects.
      const reads = watchReads().slice(before);
      expect(reads.map((e) => (e.type === 'attempt' ? e.outcome.outcome : ''))).toEqual(['swapped']);
    } finally {
      await watcher.close();
    }
  });
});
