import { afterAll, describe, expect, it } from 'vitest';
import { composeRendered, renderedBytes } from '../../src/server/answers/compose-cache.js';
import { COPIES_IN_FLIGHT, EXTERNAL_GC_STEP, memoryBound } from '../../src/server/answers/memory-bound.js';
import { DEFAULT_MAX_RENDERS, RenderSlots } from '../../src/server/service/render-slots.js';
import { stopCountWorker } from '../../src/tokens/count-off-thread.js';
import { memoryStore } from './helpers.js';

// Uncached answers are made a few at a time (their copies of the prompt are the memory
// in flight), and a cached answer is sized at what it really holds.

afterAll(async () => {
  await stopCountWorker();
});

describe('render slots', () => {
  it('lets at most maxRenders requests render at once; the rest wait and all are answered', async () => {
    const mem = memoryStore({ 'base.md': 'Base.', 'roles/writer.md': 'Writer.' });
    await mem.store.reload('initial');
    const snapshot = mem.store.state!.snapshot;
    const slots = new RenderSlots(1);
    const seen: Array<{ active: number; waiting: number }> = [];
    const all = Array.from({ length: 5 }, (_, i) =>
      Promise.resolve(composeRendered(snapshot, { role: 'writer', ambient: `Now ${i}.` }, { slots })).then(
        (o) => {
          const { active, waiting } = slots.load();
          seen.push({ active, waiting });
          return o;
        },
      ),
    );
    expect(slots.load()).toMatchObject({ max: 1, active: 1, waiting: 4 });
    const outcomes = await Promise.all(all);
    expect(outcomes.map((o) => o.ok && o.rendered.result.text)).toEqual(
      [0, 1, 2, 3, 4].map((i) => `Base.\n\n---\n\nWriter.\n\n---\n\nNow ${i}.`),
    );
    // Never more than one at once; the queue only shrinks, in order, to nothing. (How far
    // it has gone when each caller hears is the promise machinery's business.)
    expect(seen.every((s) => s.active <= 1)).toBe(true);
    const waiting = seen.map((s) => s.waiting);
    expect(waiting).toEqual([...waiting].sort((a, b) => b - a));
    expect(waiting[0]).toBeLessThan(4);
    expect(slots.load()).toMatchObject({ active: 0, waiting: 0 });
  });

  it('raising the limit starts waiting renders at once; a limit below 1 is a RangeError', async () => {
    const slots = new RenderSlots(1);
    expect(new RenderSlots().max).toBe(DEFAULT_MAX_RENDERS);
    const first = await slots.acquire();
    const second = slots.acquire();
    expect(slots.load()).toMatchObject({ active: 1, waiting: 1 });
    slots.max = 2;
    expect(slots.load()).toMatchObject({ max: 2, active: 2, waiting: 0 });
    (await second)();
    first();
    first();
    expect(slots.load()).toMatchObject({ active: 0, waiting: 0 });
    expect(() => new RenderSlots(0)).toThrow(RangeError);
    expect(() => {
      slots.max = 1.5;
    }).toThrow(RangeError);
  });

  it('sizes a cached answer at its real bytes: one byte per unit of an ASCII text, two otherwise', async () => {
    const mem = memoryStore({ 'base.md': 'a'.repeat(10_000), 'roles/cjk.md': '中'.repeat(10_000) });
    await mem.store.reload('initial');
    const snapshot = mem.store.state!.snapshot;
    const ascii = await composeRendered(snapshot, { role: 'nobody-here' }, { slots: new RenderSlots() });
    expect(ascii.ok).toBe(false);
    const cjk = await composeRendered(snapshot, { role: 'cjk' }, { slots: new RenderSlots() });
    if (!cjk.ok) throw new Error('compose failed');
    const r = cjk.rendered;
    const units = r.result.text.length;
    expect(r.textBytes.byteLength).toBe(10_000 + 7 + 30_000);
    expect(renderedBytes(r)).toBe(
      units * 2 + r.textBytes.byteLength + r.jsonBytes.byteLength + r.result.layers.length * 512 + 4096,
    );
  });
});

describe('memoryBound', () => {
  it('is start-up memory + twice what may be live (cache and renders in flight) + the external collection step', () => {
    const MiB = 2 ** 20;
    expect(
      memoryBound({ startupBytes: 204 * MiB, cacheBytes: 64 * MiB, maxRenders: 4, promptBytes: 2 * MiB }) /
        MiB,
    ).toBe(204 + 2 * (64 + 4 * COPIES_IN_FLIGHT * 2) + EXTERNAL_GC_STEP / MiB);
    expect(memoryBound({ startupBytes: 0, cacheBytes: 0, maxRenders: 1, promptBytes: 0 })).toBe(
      EXTERNAL_GC_STEP,
    );
  });
});
