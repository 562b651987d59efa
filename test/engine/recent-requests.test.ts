import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose as coreCompose } from '../../src/core/compose/compose.js';
import { createEngine } from '../../src/engine/engine.js';
import {
  findRecent,
  RECENT_PER_NAMES,
  recentKey,
  withRecent,
} from '../../src/engine/memo/recent-requests.js';
import { loadPackStrict } from '../../src/source/load.js';

const ROBOCO = join(resolve(import.meta.dirname, '../..'), 'examples', 'roboco');

/** The kept list after `requests`, each known by its index as its key. */
function kept(requests: object[]) {
  let recent: ReturnType<typeof withRecent>['recent'] | undefined;
  requests.forEach((r, i) => {
    recent = withRecent(recent, r, `k${i}`).recent;
  });
  return recent!;
}

describe('recent requests (the memo of settings and vars requests)', () => {
  it('finds an equal request whatever its key order, and only an equal one', () => {
    const recent = kept([{ role: 'a', settings: { x: '1', y: [1, { z: true }] } }]);
    expect(findRecent(recent, { settings: { y: [1, { z: true }], x: '1' }, role: 'a' })).toBe('k0');
    expect(
      findRecent(recent, { role: 'a', settings: { x: '1', y: [1, { z: true }] }, team: undefined }),
    ).toBe('k0');
    for (const other of [
      { role: 'a', settings: { x: '2', y: [1, { z: true }] } },
      { role: 'a', settings: { x: '1', y: [1, { z: 'true' }] } },
      { role: 'a', settings: { x: '1', y: [1, { z: true }, 2] } },
      { role: 'a', settings: { x: '1', y: [1, { z: true, w: 0 }] } },
      { role: 'a', settings: { x: '1' } },
      { role: 'a', settings: { x: '1', y: [1, { z: true }] }, vars: {} },
      { role: 'a', settings: { x: 1, y: [1, { z: true }] } },
    ])
      expect(findRecent(recent, other)).toBeUndefined();
  });

  it('never takes NaN, holes, non-plain objects or a __proto__ field as equal to something else', () => {
    expect(findRecent(kept([{ vars: { n: Number.NaN } }]), { vars: { n: Number.NaN } })).toBeUndefined();
    expect(findRecent(kept([{ vars: { n: [undefined] } }]), { vars: { n: new Array(1) } })).toBeUndefined();
    expect(findRecent(kept([{ vars: { n: {} } }]), { vars: { n: new Date(0) } })).toBeUndefined();
    const proto = JSON.parse('{"settings": {"__proto__": "x"}}');
    const recent = kept([proto]);
    expect(findRecent(recent, { settings: {} })).toBeUndefined();
    expect(findRecent(recent, JSON.parse('{"settings": {"__proto__": "x"}}'))).toBe('k0');
  });

  it('keeps a copy: a request changed after it was answered is not the kept one', () => {
    const request = { role: 'a', settings: { x: '1' } as Record<string, string> };
    const recent = kept([request]);
    request.settings.x = '2';
    expect(findRecent(recent, request)).toBeUndefined();
    expect(findRecent(recent, { role: 'a', settings: { x: '1' } })).toBe('k0');
  });

  it(`keeps the newest ${RECENT_PER_NAMES} requests of a name, once each`, () => {
    const requests = Array.from({ length: RECENT_PER_NAMES + 2 }, (_, i) => ({ role: 'a', vars: { i } }));
    let recent: ReturnType<typeof withRecent>['recent'] | undefined;
    for (const r of [...requests, requests[RECENT_PER_NAMES]!])
      recent = withRecent(recent, r, `k${r.vars.i}`).recent;
    // The last one asked again comes first; the oldest two are gone.
    const newest = [
      RECENT_PER_NAMES,
      RECENT_PER_NAMES + 1,
      ...Array.from({ length: 6 }, (_, i) => RECENT_PER_NAMES - 1 - i),
    ];
    expect(recent!.map((r) => r.key)).toEqual(newest.map((i) => `k${i}`));
    expect(findRecent(recent!, requests[0]!)).toBeUndefined();
    expect(findRecent(recent!, requests[2]!)).toBe('k2');
  });

  it('has a short key that says which names are absent', () => {
    expect(recentKey({ role: 'a' })).not.toBe(recentKey({ team: 'a' }));
    expect(recentKey({ role: 'a', team: undefined })).toBe(recentKey({ role: 'a' }));
    expect(recentKey({ role: 7 })).toBeUndefined();
  });

  it('gives every request, in any order, what the core composes for it', async () => {
    const engine = createEngine();
    const s = await loadPackStrict(ROBOCO, { env: {} });
    const requests = [];
    for (const fable of ['on', 'off'])
      for (const pony of ['lite', 'full', 'ultra', 'none'])
        requests.push({
          role: 'developer',
          settings: { fable_mode_enabled: fable, ponytail_intensity: pony },
        });
    // More distinct requests of one role than are kept as recent, each asked three times.
    const order = [...requests, ...requests.reverse(), ...requests].map((r) => structuredClone(r));
    for (const request of order) {
      const memo = engine.tryCompose(s, request);
      const core = coreCompose(s, request);
      expect(memo.ok).toBe(core.ok);
      if (memo.ok && core.ok) expect(memo.result.text).toBe(core.result.text);
      else if (!memo.ok && !core.ok)
        expect(memo.diagnostics.map((d) => d.code)).toEqual(core.diagnostics.map((d) => d.code));
    }
  });
});
