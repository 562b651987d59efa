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
});
