import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/engine/default-engine.js';
import { type LoadRequest, SnapshotStore } from '../../src/reload/store.js';

// Which paths the store asks its loader to read: each reload's hints, and the union of
// the hints of the requests one follow-up reload serves (or the whole pack).

const FILES = new Map([['base.md', new TextEncoder().encode('Base.')]]);

describe('what a reload asks the loader to read', () => {
  it("passes a reload's paths, and nothing for a full reload; the outcome says how it was read", async () => {
    const { store, requests } = gatedStore();
    const hinted = await store.reload('watch', { hints: ['roles/a.md'] });
    const full = await store.reload('manual');
    expect(requests).toEqual([{ hints: ['roles/a.md'] }, {}]);
    expect(hinted.read).toBe('hinted');
    expect(full.read).toBe('full');
  });

  it('a follow-up reload reads the union of the paths of the requests it serves', async () => {
    const { store, requests, release } = gatedStore(true);
    const first = store.reload('watch', { hints: ['a.md'] });
    await new Promise((r) => setTimeout(r, 0));
    const rest = [
      store.reload('watch', { hints: ['c.md', 'b.md'] }),
      store.reload('watch', { hints: ['b.md'] }),
    ];
    release();
    await Promise.all([first, ...rest]);
    expect(requests).toEqual([{ hints: ['a.md'] }, { hints: ['b.md', 'c.md'] }]);
  });

  it('any full request among them makes the follow-up read the whole pack', async () => {
    const { store, requests, release } = gatedStore(true);
    const first = store.reload('watch', { hints: ['a.md'] });
    await new Promise((r) => setTimeout(r, 0));
    const rest = [store.reload('watch', { hints: ['b.md'] }), store.reload('manual')];
    release();
    await Promise.all([first, ...rest]);
    expect(requests).toEqual([{ hints: ['a.md'] }, {}]);
    // The next reload starts a new set.
    await store.reload('watch', { hints: ['d.md'] });
    expect(requests.at(-1)).toEqual({ hints: ['d.md'] });
  });
});

describe('a reload that changed under it', () => {
  it('is asked with how the pack was read, and superseded when stale', async () => {
    const { store } = gatedStore();
    const asked: Array<string | undefined> = [];
    const stale = (read: 'hinted' | 'full' | undefined) => {
      asked.push(read);
      return read === 'hinted';
    };
    const hinted = await store.reload('watch', { hints: ['a.md'], stale });
    const full = await store.reload('watch', { stale });
    expect(asked).toEqual(['hinted', 'full']);
    expect(hinted).toMatchObject({ outcome: 'superseded', read: 'hinted' });
    expect(full).toMatchObject({ outcome: 'swapped', read: 'full' });
  });
});

// --- internal ---

function gatedStore(gated = false) {
  const requests: LoadRequest[] = [];
  let release!: () => void;
  const gate = gated
    ? new Promise<void>((r) => {
        release = r;
      })
    : Promise.resolve();
  const store = new SnapshotStore(async (request) => {
    requests.push(request);
    if (requests.length === 1) await gate;
    return { ...buildSnapshot({ files: FILES, env: {} }), read: request.hints ? 'hinted' : 'full' };
  });
  return { store, requests, release: () => release() };
}
