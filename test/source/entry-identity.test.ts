import { mkdtempSync, rmSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EntryHash, statLine } from '../../src/source/entry-identity.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-identity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('entry identities', () => {
  it('hash entries so that any change of path, real path, kind, inode, size or times changes the digest', () => {
    const st = statSync(join(dir, '.'));
    const file = join(dir, 'f.md');
    writeFileSync(file, 'A');
    const fst = statSync(file);
    const like = (over: Partial<Stats>) =>
      Object.assign(Object.create(Object.getPrototypeOf(fst)) as Stats, fst, over);
    const digest = (entries: [string, string, Stats][], lines: string[] = []) => {
      const hash = new EntryHash();
      for (const [rel, real, s] of entries) hash.entry(rel, real, s, real);
      for (const line of lines) hash.line(line);
      return hash.digest();
    };
    // Enough entries for several chunks.
    const many = Array.from(
      { length: 3000 },
      (_, i) => [`r/${i}.md`, `/p/r/${i}.md`, fst] as [string, string, Stats],
    );
    const base = digest(many, ['a\0gone']);
    expect(digest(many, ['a\0gone'])).toBe(base);
    const changed = (i: number, entry: [string, string, Stats]) =>
      digest(
        many.map((e, j) => (j === i ? entry : e)),
        ['a\0gone'],
      );
    const seen = new Set([base]);
    for (const variant of [
      changed(5, ['r/5.mdx', '/p/r/5.md', fst]),
      changed(2999, ['r/2999.md', '/q/r/2999.md', fst]),
      changed(1024, ['r/1024.md', '/p/r/1024.md', st]),
      changed(7, ['r/7.md', '/p/r/7.md', like({ ino: fst.ino + 1 })]),
      changed(7, ['r/7.md', '/p/r/7.md', like({ size: fst.size + 1 })]),
      changed(7, ['r/7.md', '/p/r/7.md', like({ mtimeMs: fst.mtimeMs + 0.001 })]),
      changed(7, ['r/7.md', '/p/r/7.md', like({ ctimeMs: fst.ctimeMs + 0.001 })]),
      digest(many, ['b\0gone']),
      digest(many),
      digest(many.slice(1), ['a\0gone']),
    ]) {
      expect(seen.has(variant)).toBe(false);
      seen.add(variant);
    }
    // A line that looks like an entry's text.
    expect(digest([], ['a\0b\0'])).not.toBe(digest([['a', 'b', fst]]));
    expect(new EntryHash().digest()).toBe('');
    const one = new EntryHash();
    one.line('');
    expect(one.digest()).not.toBe('');
  });

  it('take an inode number past 2^53 again as a BigInt (a number cannot hold it exactly)', () => {
    const file = join(dir, 'a.md');
    writeFileSync(file, 'A');
    const st = statSync(file);
    const exact = statSync(file, { bigint: true }).ino;
    expect(statLine(st, file).split('\0')[1]).toBe(String(st.ino));
    // The same stats with an inode a number rounds: the line carries the file's exact inode.
    const big = Object.assign(Object.create(Object.getPrototypeOf(st)) as Stats, st, { ino: 2 ** 60 });
    const line = statLine(big, file).split('\0');
    expect(line[0]).toBe('file');
    expect(line[1]).toBe(String(exact));
    expect(line.slice(2)).toEqual([String(st.size), String(st.mtimeMs), String(st.ctimeMs)]);
  });
});
