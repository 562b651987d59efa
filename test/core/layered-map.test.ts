import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LayeredMap, MAX_LAYERED } from '../../src/engine/incremental/layered-map.js';

// A layered map answers like the flat map it stands for, whatever the layering.

describe('LayeredMap', () => {
  it('answers like a copy of the base with the changes applied, over any number of layers', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.array(fc.tuple(fc.nat(), fc.integer()), { maxLength: 5 }), { maxLength: 8 }),
        (keys, layers) => {
          const base = new Map(keys.map((k, i) => [k, i]));
          let layered: ReadonlyMap<string, number> = base;
          const flat = new Map(base);
          for (const layer of layers) {
            const changes = new Map(layer.map(([i, v]) => [keys[i % keys.length]!, v]));
            layered = LayeredMap.over(layered, changes);
            for (const [k, v] of changes) flat.set(k, v);
          }
          expect([...layered]).toEqual([...flat]);
          expect([...layered.keys()]).toEqual([...flat.keys()]);
          expect([...layered.values()]).toEqual([...flat.values()]);
          expect(layered.size).toBe(flat.size);
          const seen: Array<[string, number]> = [];
          layered.forEach((v, k) => {
            seen.push([k, v]);
          });
          expect(seen).toEqual([...flat]);
          for (const k of keys) {
            expect(layered.get(k)).toBe(flat.get(k));
            expect(layered.has(k)).toBe(true);
          }
          expect(layered.get('not a key')).toBeUndefined();
          expect(layered.has('not a key')).toBe(false);
          // The keys that may differ from the base cover every one that does.
          const changed = LayeredMap.changedKeys(base, layered)!;
          for (const k of keys) if (flat.get(k) !== base.get(k)) expect(changed).toContain(k);
        },
      ),
    );
  });

  it('never adds keys', () => {
    expect(() => LayeredMap.over(new Map([['a', 1]]), new Map([['b', 2]]))).toThrow(RangeError);
  });

  it('does not stack layers, and folds them into a flat map past its limit', () => {
    const base = new Map(Array.from({ length: MAX_LAYERED + 10 }, (_, i) => [`k${i}`, i]));
    const one = LayeredMap.over(base, new Map([['k1', -1]]));
    const two = LayeredMap.over(one, new Map([['k2', -2]]));
    expect(LayeredMap.changedKeys(base, two)?.sort()).toEqual(['k1', 'k2']);
    expect(LayeredMap.changedKeys(one, two)?.sort()).toEqual(['k1', 'k2']);
    expect(LayeredMap.changedKeys(new Map(base), two)).toBeUndefined();
    const all = LayeredMap.over(two, new Map([...base].map(([k, v]) => [k, v + 1])));
    expect(all).toBeInstanceOf(Map);
    expect(all.get('k1')).toBe(2);
  });
});
