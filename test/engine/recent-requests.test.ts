import { mkdirSync } from 'node:fs';
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
import { tempDir, writeFiles } from '../helpers.js';

const ROBOCO = join(resolve(import.meta.dirname, '../..'), 'examples', 'roboco');

/** An outcome that says which it is. */
const outcome = (i: number) => OUTCOMES[i]!;
const OUTCOMES = Array.from({ length: 20 }, (_, i) => ({ key: `k${i}` }));

/** The kept list after `requests`, the outcome of each known by its index. */
function kept(requests: object[]) {
  let recent: ReturnType<typeof withRecent>['recent'] | undefined;
  requests.forEach((r, i) => {
    recent = withRecent(recent, r, outcome(i), 0).recent;
  });
  return recent!;
}

/** Which outcome `findRecent` found (its key), if any. */
function found(recent: Parameters<typeof findRecent>[0], request: object): string | undefined {
  return (findRecent(recent, request) as { key: string } | undefined)?.key;
}

describe('recent requests (the memo of settings and vars requests)', () => {
  it('finds an equal request whatever its key order, and only an equal one', () => {
    const recent = kept([{ role: 'a', settings: { x: '1', y: [1, { z: true }] } }]);
    expect(found(recent, { settings: { y: [1, { z: true }], x: '1' }, role: 'a' })).toBe('k0');
    expect(found(recent, { role: 'a', settings: { x: '1', y: [1, { z: true }] }, team: undefined })).toBe(
      'k0',
    );
    for (const other of [
      { role: 'a', settings: { x: '2', y: [1, { z: true }] } },
      { role: 'a', settings: { x: '1', y: [1, { z: 'true' }] } },
      { role: 'a', settings: { x: '1', y: [1, { z: true }, 2] } },
      { role: 'a', settings: { x: '1', y: [1, { z: true, w: 0 }] } },
      { role: 'a', settings: { x: '1' } },
      { role: 'a', settings: { x: '1', y: [1, { z: true }] }, vars: {} },
      { role: 'a', settings: { x: 1, y: [1, { z: true }] } },
    ])
      expect(found(recent, other)).toBeUndefined();
  });

  it('never takes NaN, holes, non-plain objects or a __proto__ field as equal to something else', () => {
    expect(found(kept([{ vars: { n: Number.NaN } }]), { vars: { n: Number.NaN } })).toBeUndefined();
    expect(found(kept([{ vars: { n: [undefined] } }]), { vars: { n: new Array(1) } })).toBeUndefined();
    expect(found(kept([{ vars: { n: {} } }]), { vars: { n: new Date(0) } })).toBeUndefined();
    const proto = JSON.parse('{"settings": {"__proto__": "x"}}');
    const recent = kept([proto]);
    expect(found(recent, { settings: {} })).toBeUndefined();
    expect(found(recent, JSON.parse('{"settings": {"__proto__": "x"}}'))).toBe('k0');
    // A field named like a prototype member, at the top or inside, is a field like any other.
    const top = kept([JSON.parse('{"__proto__": "x", "settings": {"constructor": "y"}}')]);
    expect(found(top, JSON.parse('{"__proto__": "x", "settings": {"constructor": "y"}}'))).toBe('k0');
    expect(found(top, JSON.parse('{"__proto__": "z", "settings": {"constructor": "y"}}'))).toBeUndefined();
    expect(found(top, { settings: { constructor: 'y' } })).toBeUndefined();
    expect(found(kept([{ settings: {} }]), { settings: { toString: 'y' } })).toBeUndefined();
    expect(
      found(kept([{ settings: { a: '1' } }]), { constructor: 'y', settings: { a: '1' } }),
    ).toBeUndefined();
  });

  it('keeps a copy: a request changed after it was answered is not the kept one', () => {
    const request = { role: 'a', settings: { x: '1' } as Record<string, string> };
    const recent = kept([request]);
    request.settings.x = '2';
    expect(found(recent, request)).toBeUndefined();
    expect(found(recent, { role: 'a', settings: { x: '1' } })).toBe('k0');
  });

  it(`keeps the newest ${RECENT_PER_NAMES} requests of a name, once each`, () => {
    const requests = Array.from({ length: RECENT_PER_NAMES + 2 }, (_, i) => ({ role: 'a', vars: { i } }));
    let recent: ReturnType<typeof withRecent>['recent'] | undefined;
    for (const r of [...requests, requests[RECENT_PER_NAMES]!])
      recent = withRecent(recent, r, outcome(r.vars.i), 0).recent;
    // The last one asked again comes first; the oldest two are gone.
    const newest = [
      RECENT_PER_NAMES,
      RECENT_PER_NAMES + 1,
      ...Array.from({ length: 6 }, (_, i) => RECENT_PER_NAMES - 1 - i),
    ];
    expect(recent!.map((r) => (r.outcome as { key: string }).key)).toEqual(newest.map((i) => `k${i}`));
    expect(found(recent!, requests[0]!)).toBeUndefined();
    expect(found(recent!, requests[2]!)).toBe('k2');
  });

  it('has a short key of the names and values, none for a request it cannot write', () => {
    expect(recentKey({ role: 'a' })).not.toBe(recentKey({ team: 'a' }));
    expect(recentKey({ role: 'a', team: undefined })).toBe(recentKey({ role: 'a' }));
    expect(recentKey({ vars: { cwd: 'a' } })).not.toBe(recentKey({ vars: { cwd: 'b' } }));
    expect(recentKey({ role: 'a', settings: { x: 1, y: true } })).toBe(
      'a\u0000\u0000\u0000' + '1\u0000true\u0000\u0002',
    );
    expect(recentKey({ role: 7 })).toBeUndefined();
    expect(recentKey({ vars: { x: { nested: 'y' } } })).toBeUndefined();
    expect(recentKey({ vars: { x: 'y'.repeat(2000) } })).toBeUndefined();
  });

  it('keeps many distinct requests of one name apart (one working directory each)', async () => {
    const engine = createEngine();
    const cwds = Array.from({ length: RECENT_PER_NAMES + 4 }, (_, i) => `team-${i}/app`);
    const dir = tempDir('strata-recent-');
    writeFiles(dir, {
      'AGENTS.md': 'Run the tests.\n',
      ...Object.fromEntries(cwds.map((cwd, i) => [`${cwd}/AGENTS.md`, `Team ${i}.\n`])),
    });
    mkdirSync(join(dir, '.git'));
    const s = await loadPackStrict(dir, { env: {} });
    expect(s.preset).toBe('agents-md');
    for (const round of [1, 2, 3])
      for (const cwd of cwds) {
        const memo = engine.tryCompose(s, { vars: { cwd } });
        const core = coreCompose(s, { vars: { cwd } });
        expect([round, cwd, memo.ok && memo.result.text]).toEqual([round, cwd, core.ok && core.result.text]);
        if (round > 1) expect(engine.tryCompose(s, structuredClone({ vars: { cwd } }))).toBe(memo);
      }
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
