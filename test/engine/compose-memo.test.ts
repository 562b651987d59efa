import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/text/text.js';
import { createEngine } from '../../src/engine/engine.js';
import { requestKey } from '../../src/engine/memo/compose-memo.js';
import { loadPackStrict } from '../../src/source/load.js';

/** This file's engine: the memo on, and one with caching off. */
const engine = createEngine();
const uncached = createEngine({ cacheBytes: 0 });
const compose = engine.compose;
const tryCompose = engine.tryCompose;

const EXAMPLES = join(resolve(import.meta.dirname, '../..'), 'examples');
const ROBOCO = join(EXAMPLES, 'roboco');

describe('compose memo', () => {
  it('answers a repeated request with the same frozen result', async () => {
    const snapshot = await loadPackStrict(ROBOCO, { env: {} });
    const agent = snapshot.fleet[0]!.id;
    const first = compose(snapshot, { agent, settings: { fable_mode_enabled: 'on' } });
    const again = compose(snapshot, { settings: { fable_mode_enabled: 'on' }, agent });
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.layers)).toBe(true);
    expect(Object.isFrozen(first.layers[0])).toBe(true);
    expect(Object.isFrozen(first.diagnostics)).toBe(true);
  });

  it('cannot be changed by a caller: the next call gets the same bytes', async () => {
    const snapshot = await loadPackStrict(ROBOCO, { env: {} });
    const agent = snapshot.fleet[0]!.id;
    const first = compose(snapshot, { agent });
    const text = first.text;
    expect(() => {
      (first as { text: string }).text = 'changed';
    }).toThrow(TypeError);
    expect(() => (first.layers as unknown[]).push({})).toThrow(TypeError);
    expect(() => {
      (first.layers[0] as { id: string }).id = 'x';
    }).toThrow(TypeError);
    const next = compose(snapshot, { agent });
    expect(next.text).toBe(text);
    expect(next.layers[0]!.id).not.toBe('x');
  });

  it('tells apart requests that differ in any field', async () => {
    const snapshot = await loadPackStrict(ROBOCO, { env: {} });
    const agent = snapshot.fleet[0]!.id;
    const base = compose(snapshot, { agent });
    expect(compose(snapshot, { agent, ambient: 'Now: review.' }).text).not.toBe(base.text);
    expect(compose(snapshot, { agent, ambient: 'Now: review.' }).text).toContain('Now: review.');
    const on = compose(snapshot, { agent, settings: { fable_mode_enabled: 'on' } });
    const off = compose(snapshot, { agent, settings: { fable_mode_enabled: 'off' } });
    expect(on).not.toBe(off);
    const keys = new Set(
      [
        { role: 'a' },
        { team: 'a' },
        { agent: 'a' },
        { ambient: 'a' },
        { settings: { a: 'b' } },
        { vars: { a: 'b' } },
        { settings: { a: 'b', c: 'd' } },
        { settings: { 'a"': 'b' } },
        { settings: { a: 1 } },
        { role: 'a', team: 'b' },
        { role: 'a,team=b' },
      ].map(requestKey),
    );
    expect(keys.size).toBe(11);
    expect(requestKey({ role: 'a', settings: { x: '1', y: '2' } })).toBe(
      requestKey({ settings: { y: '2', x: '1' }, role: 'a', team: undefined }),
    );
  });

  it('keys requests of names only apart from each other and from every other request', () => {
    const requests: object[] = [
      {},
      { role: '' },
      { team: '' },
      { agent: '' },
      { role: '', team: '' },
      { role: 'a' },
      { role: 'a', team: 'b' },
      { role: 'a\u0000', team: 'b' },
      { role: 'a', team: '\u0000b' },
      { role: 'a\u0001' },
      { role: 'a', agent: 'b' },
      { team: 'a', agent: 'b' },
      { role: 'a"b\\' },
      { role: 'a', settings: {} },
      { role: 'a', vars: { x: '1' } },
      { role: 'a', ambient: '' },
      { role: 1 },
      { role: 'a', other: 'b' },
    ];
    const keys = requests.map(requestKey);
    expect(new Set(keys).size).toBe(requests.length);
    // Undefined fields count as absent, and field order never matters.
    expect(requestKey({ role: 'a', team: undefined })).toBe(requestKey({ role: 'a' }));
    expect(requestKey({ team: 'b', role: 'a' })).toBe(requestKey({ role: 'a', team: 'b' }));
  });

  it('a request holding a value with no canonical form has no key (it is composed every time)', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const x of [cycle, new Date(0), new Map(), () => 1, Symbol('s')])
      expect(requestKey({ role: 'a', vars: { x } })).toBeUndefined();
    expect(requestKey({ role: 'a', vars: { x: 1n } })).not.toBe(requestKey({ role: 'a', vars: { x: 1 } }));
  });

  it('keys inherited request fields, as compose reads them', async () => {
    const snapshot = await loadPackStrict(ROBOCO, { env: {} });
    const [a, b] = snapshot.fleet;
    const viaA = compose(snapshot, Object.create({ agent: a!.id }));
    const viaB = compose(snapshot, Object.create({ agent: b!.id }));
    expect(viaA.agent).toBe(a!.id);
    expect(viaB.agent).toBe(b!.id);
    const on = compose(snapshot, Object.create({ agent: a!.id, settings: { fable_mode_enabled: 'on' } }));
    const off = compose(snapshot, Object.create({ agent: a!.id, settings: { fable_mode_enabled: 'off' } }));
    expect(on.settings.fable_mode_enabled).toBe(true);
    expect(off.settings.fable_mode_enabled).toBe(false);
  });

  it('memoises failures too, and composes afresh with caching off', async () => {
    const snapshot = await loadPackStrict(ROBOCO, { env: {} });
    const bad = tryCompose(snapshot, { role: 'no-such-role' });
    expect(bad.ok).toBe(false);
    expect(tryCompose(snapshot, { role: 'no-such-role' })).toBe(bad);
    const agent = snapshot.fleet[1]!.id;
    const a = uncached.compose(snapshot, { agent });
    const b = uncached.compose(snapshot, { agent });
    expect(b).not.toBe(a);
    expect(b.text).toBe(a.text);
  });

  it.each([
    ['roboco', { agent: 'ada', settings: { fable_mode_enabled: 'on' }, ambient: 'Now: review.' }],
    ['crewai', { role: 'market_analyst', vars: { sector: 'energy', quarter: 'Q3' } }],
    ['claude-agents', { role: 'code-reviewer' }],
    ['agents-md', { vars: { cwd: 'frontend/app' }, settings: { project_doc_max_bytes: 100 } }],
  ] as const)(
    '%s: every layer and part hash is the sha256 of its byte range, and everything is frozen',
    async (pack, request) => {
      const snapshot = await loadPackStrict(join(EXAMPLES, pack), { env: {} });
      {
        const result = uncached.compose(snapshot, request);
        const bytes = Buffer.from(result.text);
        const ranges = result.layers.flatMap((l) => [l, ...(l.parts ?? [])]).filter((r) => r.included);
        expect(ranges.length).toBeGreaterThan(0);
        for (const l of result.layers) if (l.included) expect(Object.keys(l).at(-1)).toBe('sha256');
        for (const r of ranges) {
          expect(Object.keys(r)).toContain('sha256');
          expect(r.sha256).toBe(sha256(bytes.subarray(r.start!, r.end!)));
          expect(JSON.parse(JSON.stringify(r)).sha256).toBe(r.sha256);
          expect({ ...r }.sha256).toBe(r.sha256);
        }
        expect(result.sha256).toBe(sha256(bytes));
        // The prompt's hash, read when asked for, is where it always was in the result.
        expect(Object.keys(result).slice(0, 4)).toEqual(['version', 'text', 'sha256', 'bytes']);
        expect(JSON.parse(JSON.stringify(result)).sha256).toBe(sha256(bytes));
        expect(uncached.compose(snapshot, request).sha256).toBe(sha256(bytes));
        const walk = (value: unknown): void => {
          if (value === null || typeof value !== 'object') return;
          expect(Object.isFrozen(value)).toBe(true);
          for (const v of Object.values(value)) walk(v);
        };
        walk(result);
        walk(uncached.tryCompose(snapshot, { role: 'no-such-role' }));
      }
    },
  );

  it('does not keep requests with ambient text (one-off, chosen by the client): composed afresh, frozen, cache untouched', async () => {
    const snapshot = await loadPackStrict(ROBOCO, { env: {} });
    const agent = snapshot.fleet[2]!.id;
    compose(snapshot, { agent });
    const before = engine.cacheUsage();
    const ambient = 'x'.repeat(64 * 1024);
    const a = compose(snapshot, { agent, ambient });
    const b = compose(snapshot, { agent, ambient });
    expect(b).not.toBe(a);
    expect(b.text).toBe(a.text);
    expect(a.text.endsWith(ambient)).toBe(true);
    expect(Object.isFrozen(a.layers)).toBe(true);
    expect(engine.cacheUsage()).toEqual(before);
  });
});
