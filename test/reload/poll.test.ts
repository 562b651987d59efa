import { cpSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { PackPoll, type PollTarget } from '../../src/reload/poll.js';
import { stablePackLoader } from '../../src/reload/read.js';
import { type LoadRequest, type ReloadOutcome, SnapshotStore } from '../../src/reload/store.js';
import { watchPack } from '../../src/reload/watch.js';
import type { PackCheck, SweepSlice } from '../../src/source/pack-check.js';
import { SETTLED_MS } from '../../src/source/reuse.js';
import { EXAMPLES, ROOT, tempDir, writeFiles } from '../helpers.js';
import { waitFor } from '../server/helpers.js';

const stops: Array<() => unknown> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A check that answers from a script, and counts what it was asked. */
function fakeCheck(answers: {
  folders?: () => string[] | undefined;
  sweep?: () => SweepSlice;
  same?: boolean;
}) {
  const asked = { folders: 0, sweeps: 0, files: 0 };
  const check = {
    folders: async () => {
      asked.folders++;
      return answers.folders ? answers.folders() : [];
    },
    sweep: () => {
      asked.sweeps++;
      return answers.sweep?.() ?? { changed: [], done: true };
    },
    sameFiles: () => {
      asked.files++;
      return answers.same ?? true;
    },
  } as unknown as PackCheck;
  return { check, asked };
}

function fakeTarget(idle = true) {
  const notified: (string | undefined)[] = [];
  let wholeReads = 0;
  const target: PollTarget & { idle: boolean } = {
    idle,
    notify: (path) => notified.push(path),
    poll: () => {
      wholeReads++;
      return Promise.resolve();
    },
  };
  return { target, notified, wholeReads: () => wholeReads };
}

function started(poll: PackPoll): PackPoll {
  stops.push(() => poll.close());
  return poll;
}

describe('the backstop poll', () => {
  it('tells the schedule each path the check finds, and nothing while nothing changed', async () => {
    let round = 0;
    const { check, asked } = fakeCheck({ folders: () => (++round === 3 ? ['roles/a.md', 'teams'] : []) });
    const { target, notified } = fakeTarget();
    started(new PackPoll(check, target, { external: () => [] }, { pollMs: 5 }));
    await waitFor(() => (asked.folders >= 5 ? true : undefined), 30_000, 'five polls');
    expect(notified).toEqual(['roles/a.md', 'teams']);
  });

  it('sweeps every file in slices, each slice followed by a pause, and tells what a slice found', async () => {
    let slices = 0;
    const { check, asked } = fakeCheck({
      sweep: () => {
        slices++;
        return slices % 4 === 0 ? { changed: ['x.md'], done: true } : { changed: [], done: false };
      },
    });
    const { target, notified } = fakeTarget();
    started(new PackPoll(check, target, { external: () => [] }, { pollMs: 5, share: 0.5 }));
    await waitFor(() => (asked.sweeps >= 8 ? true : undefined), 30_000, 'two sweeps');
    expect(notified.slice(0, 2)).toEqual(['x.md', 'x.md']);
  });

  it('does nothing while the schedule is busy', async () => {
    const { check, asked } = fakeCheck({});
    const { target } = fakeTarget(false);
    started(new PackPoll(check, target, { external: () => [] }, { pollMs: 2 }));
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toEqual({ folders: 0, sweeps: 0, files: 0 });
    target.idle = true;
    await waitFor(() => (asked.folders > 0 ? true : undefined), 30_000, 'a poll once idle');
  });

  it('reads the pack whole when the check cannot tell, or when a file outside it changed; a bundle whole', async () => {
    const { check } = fakeCheck({ folders: () => undefined });
    const { target, wholeReads } = fakeTarget();
    started(new PackPoll(check, target, { external: () => [] }, { pollMs: 2 }));
    await waitFor(() => (wholeReads() > 0 ? true : undefined), 30_000, 'a whole read');

    const outside = fakeCheck({ same: false });
    const told = fakeTarget();
    started(
      new PackPoll(outside.check, told.target, { external: () => ['/etc/org/defaults.md'] }, { pollMs: 2 }),
    );
    await waitFor(() => (told.wholeReads() > 0 ? true : undefined), 30_000, 'a change outside');

    const bundle = fakeCheck({});
    const reread = fakeTarget();
    started(new PackPoll(bundle.check, reread.target, { bundle: true, external: () => [] }, { pollMs: 2 }));
    await waitFor(() => (reread.wholeReads() > 0 ? true : undefined), 30_000, 'a bundle read again');
    expect(bundle.asked.folders).toBe(0);
  });
});

describe('a watcher that gets no events (the poll alone)', () => {
  it('reads nothing while the pack is at rest, and only the changed file once one changes', async () => {
    const dir = tempDir('strata-poll-');
    stops.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFiles(dir, { 'base.md': 'Base.\n', 'roles/writer.md': 'Writer.\n', 'roles/editor.md': 'Editor.\n' });
    // Files changed less than SETTLED_MS before a read are read again by the next one:
    // let them settle (setup, not a timing assertion).
    await new Promise((r) => setTimeout(r, SETTLED_MS + 100));
    const loads: LoadRequest[] = [];
    const loader = stablePackLoader({ dir, env: {}, quietMs: 20 });
    const store = new SnapshotStore((request) => {
      loads.push(request);
      return loader(request);
    });
    await store.reload('initial');
    const outcomes: ReloadOutcome[] = [];
    store.subscribe((e) => {
      if (e.type === 'attempt') outcomes.push(e.outcome);
    });
    const watcher = watchPack(dir, store, { debounceMs: 20, pollMs: 10, events: false });
    stops.push(() => watcher.close());
    await watcher.ready;
    // Many polls over a pack at rest: not one read.
    await new Promise((r) => setTimeout(r, 300));
    expect(loads).toHaveLength(1);

    // An editor's save, which no event reports here.
    writeFileSync(join(dir, 'roles/.writer.md.tmp'), 'Writer v2.\n');
    renameSync(join(dir, 'roles/.writer.md.tmp'), join(dir, 'roles/writer.md'));
    const writer = () => {
      const outcome = tryCompose(store.state!.snapshot, { role: 'writer' });
      return outcome.ok && outcome.result.text.endsWith('Writer v2.') ? true : undefined;
    };
    await waitFor(writer, 30_000, 'the edit served by the poll');
    const swapped = outcomes.find((o) => o.outcome === 'swapped')!;
    expect(swapped).toMatchObject({ trigger: 'poll', read: 'hinted', filesRead: 1 });
    expect(loads[1]).toEqual({ hints: ['roles/writer.md'] });
  });

  it('reads the pack whole once a file outside it that a path setting names changed', async () => {
    const base = tempDir('strata-poll-outside-');
    stops.push(() => rmSync(base, { recursive: true, force: true }));
    const pack = join(base, 'pack');
    const defaults = join(base, 'org', 'defaults.md');
    cpSync(join(EXAMPLES, 'chorus'), pack, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'org-defaults'), join(base, 'org'), { recursive: true });
    // Settled files (setup, not a timing assertion): the poll finds nothing in the pack itself.
    await new Promise((r) => setTimeout(r, SETTLED_MS + 100));
    const store = new SnapshotStore(
      stablePackLoader({ dir: pack, env: { CHORUS_DEFAULT_INSTRUCTIONS_PATH: defaults }, quietMs: 20 }),
    );
    await store.reload('initial');
    const watcher = watchPack(pack, store, { debounceMs: 20, pollMs: 10, events: false });
    stops.push(() => watcher.close());
    await watcher.ready;
    writeFileSync(defaults, 'Organisation-wide defaults, revised.\n');
    await waitFor(
      () => {
        const outcome = tryCompose(store.state!.snapshot, { role: 'arbiter' });
        return outcome.ok && outcome.result.text.endsWith('Organisation-wide defaults, revised.')
          ? true
          : undefined;
      },
      30_000,
      'the revised defaults served by the poll',
    );
  });
});
