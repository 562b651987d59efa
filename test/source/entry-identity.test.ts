import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Lines, statLine } from '../../src/source/entry-identity.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-identity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('entry identities', () => {
  it('hash their lines in chunks to the digest of the lines joined with newlines', () => {
    const lines = Array.from(
      { length: 5000 },
      (_, i) => `roles/role-${i}.md\0/pack/roles/role-${i}.md\0file\0${i}`,
    );
    const hashed = new Lines();
    for (const line of lines) hashed.add(line);
    expect(hashed.digest()).toBe(createHash('sha256').update(lines.join('\n')).digest('hex'));
    expect(new Lines().digest()).toBe('');
    const one = new Lines();
    one.add('');
    expect(one.digest()).toBe(createHash('sha256').update('').digest('hex'));
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
