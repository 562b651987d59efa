import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PathIndex } from '../../src/source/path-index.js';

describe('PathIndex', () => {
  it('numbers paths in order and finds them, through deletes and growth, as a map would (property)', () => {
    const op = fc.oneof(
      fc.record({ add: fc.string({ maxLength: 6 }) }),
      fc.record({ del: fc.string({ maxLength: 6 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const index = new PathIndex();
        const model = new Map<string, number>();
        let next = 0;
        for (const o of ops) {
          if ('add' in o) {
            if (model.has(o.add)) continue;
            expect(index.add(o.add)).toBe(next);
            model.set(o.add, next++);
          } else {
            expect(index.delete(o.del)).toBe(model.get(o.del) ?? -1);
            model.delete(o.del);
          }
        }
        expect(index.size).toBe(model.size);
        expect(index.count).toBe(next);
        for (const [path, n] of model) expect(index.find(path)).toBe(n);
        expect(index.find('\0absent')).toBe(-1);
        expect([...index.paths()]).toEqual([...model.keys()]);
        const copy = index.clone();
        copy.add('\0new');
        expect(index.find('\0new')).toBe(-1);
        expect(copy.find('\0new')).toBe(next);
      }),
      { numRuns: 300 },
    );
  });

  it('holds tens of thousands of paths', () => {
    const index = new PathIndex();
    for (let i = 0; i < 50_000; i++) index.add(`roles/role-${i}.md`);
    for (let i = 0; i < 50_000; i += 2) index.delete(`roles/role-${i}.md`);
    for (let i = 0; i < 50_000; i++) expect(index.find(`roles/role-${i}.md`)).toBe(i % 2 ? i : -1);
    expect(index.size).toBe(25_000);
  });
});
