import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteCache } from '../../src/engine/byte-cache.js';

describe('ByteCache', () => {
  it('drops the least recently used entries past the budget', () => {
    const cache = new ByteCache<string>(30);
    cache.set('a', 'A', 10);
    cache.set('b', 'B', 10);
    cache.set('c', 'C', 10);
    expect(cache.get('a')).toBe('A'); // the oldest: moved to the recent end
    cache.set('d', 'D', 10);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual(['A', 'C', 'D']);
    expect(cache.bytes).toBe(30);
  });

  it('keeps a hot entry however many others pass through, and never holds more than the budget', () => {
    const cache = new ByteCache<number>(100 * 8);
    cache.set('hot', -1, 8);
    for (let i = 0; i < 10_000; i++) {
      cache.set(`k${i}`, i, 8);
      expect(cache.get('hot')).toBe(-1);
      expect(cache.bytes).toBeLessThanOrEqual(800);
    }
    expect(cache.size).toBe(100);
  });

  it('does not keep an entry larger than the budget, and a budget of 0 keeps nothing', () => {
    const cache = new ByteCache<string>(10);
    cache.set('big', 'x', 11);
    expect(cache.get('big')).toBeUndefined();
    cache.set('a', 'A', 5);
    cache.maxBytes = 0;
    expect(cache.size).toBe(0);
  });

  it('keeps and drops what a model of the same rules keeps and drops, for any sequence of stores, reads, deletes and budgets', () => {
    type Op = ['set', string, number] | ['get', string] | ['delete', string] | ['budget', number] | ['clear'];
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 5, arbitrary: fc.tuple(fc.constant('set' as const), key, fc.integer({ min: 0, max: 12 })) },
      { weight: 4, arbitrary: fc.tuple(fc.constant('get' as const), key) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('delete' as const), key) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('budget' as const), fc.integer({ min: 0, max: 40 })) },
      { weight: 1, arbitrary: fc.constant(['clear'] as Op) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const cache = new ByteCache<number>(30);
        // The model: entries from least to most recently used, each with its tick.
        let order: Array<{ key: string; value: number; bytes: number; tick: number }> = [];
        let tick = 0;
        let max = 30;
        const evict = () => {
          while (order.reduce((n, e) => n + e.bytes, 0) > max) order.shift();
        };
        ops.forEach((o, i) => {
          if (o[0] === 'set') {
            cache.set(o[1], i, o[2]);
            order = order.filter((e) => e.key !== o[1]);
            if (o[2] <= max) order.push({ key: o[1], value: i, bytes: o[2], tick: ++tick });
            evict();
          } else if (o[0] === 'get') {
            const entry = order.find((e) => e.key === o[1]);
            expect(cache.get(o[1])).toBe(entry?.value);
            // An entry in the older half moves to the recent end.
            if (entry && tick - entry.tick > order.length >> 1) {
              order = order.filter((e) => e !== entry);
              entry.tick = ++tick;
              order.push(entry);
            }
          } else if (o[0] === 'delete') {
            cache.delete(o[1]);
            order = order.filter((e) => e.key !== o[1]);
          } else if (o[0] === 'budget') {
            cache.maxBytes = o[1];
            max = o[1];
            evict();
          } else {
            cache.clear();
            order = [];
          }
          expect(cache.size).toBe(order.length);
          expect(cache.bytes).toBe(order.reduce((n, e) => n + e.bytes, 0));
        });
      }),
      { numRuns: 2000 },
    );
  });
});
