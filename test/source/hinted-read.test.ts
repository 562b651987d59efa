import { appendFileSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { sameBytes } from '../../src/engine/incremental/same-bytes.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { FileReuse, SETTLED_MS } from '../../src/source/reuse.js';
import { readStablePack } from '../../src/source/stable-read.js';
import { tempDir } from '../helpers.js';
import { apply, codesOf, EDIT, observe, plainPack } from './pack-edits.js';

// A hinted read (only the paths a watcher named, on top of the last complete read) must
// give exactly what a full read of the same folder gives at the same moment: the same
// files, the same refusals and the same diagnostics. When it cannot be sure, it is a full
// read (and says so: `hinted` is unset).

const made: string[] = [];
const pack = () => plainPack(made);
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('a hinted read gives what a full read gives', () => {
  it('over random edit sequences, with the exact paths each edit changed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(EDIT, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        async (batches) => {
          const dir = pack();
          const reuse = new FileReuse();
          await readPackDir(dir, { reuse });
          for (const batch of batches) {
            const hints = batch.flatMap((edit) => apply(dir, edit));
            const hinted = await readPackDir(dir, { reuse, hints });
            const full = await readPackDir(dir, { reuse: new FileReuse() });
            expect(observe(hinted)).toEqual(observe(full));
            expect({ batch, hinted: hinted.hinted }).toEqual({ batch, hinted: true });
          }
        },
      ),
      { numRuns: 40, seed: 1414 },
    );
  });

  it('over random edit sequences near the file and byte limits (a hinted read or the full one, the same answer)', async () => {
    const limits = { maxFiles: 22, maxPackBytes: 160 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(EDIT, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        async (batches) => {
          const dir = pack();
          const reuse = new FileReuse();
          await readPackDir(dir, { reuse, ...limits });
          for (const batch of batches) {
            const hints = batch.flatMap((edit) => apply(dir, edit));
            const hinted = await readPackDir(dir, { reuse, hints, ...limits });
            const full = await readPackDir(dir, { reuse: new FileReuse(), ...limits });
            expect(observe(hinted)).toEqual(observe(full));
          }
        },
      ),
      { numRuns: 30, seed: 1415 },
    );
  });

  it('a hinted read keeps the reuse cache whole: a full read after it reuses every unchanged file', async () => {
    const dir = pack();
    // Files changed less than SETTLED_MS ago are always read again: let the pack settle
    // (setup, not a timing assertion).
    await new Promise((r) => setTimeout(r, SETTLED_MS + 100));
    const reuse = new FileReuse();
    await readPackDir(dir, { reuse });
    writeFileSync(join(dir, 'roles/r1.md'), 'Changed.');
    mkdirSync(join(dir, 'squads/blue'), { recursive: true });
    writeFileSync(join(dir, 'squads/blue/lead.md'), 'Lead.');
    const hinted = await readPackDir(dir, { reuse, hints: ['roles/r1.md', 'squads'] });
    expect(hinted.hinted).toBe(true);
    const full = await readPackDir(dir, { reuse });
    expect(full.hinted).toBeUndefined();
    expect(observe(full)).toEqual(observe(hinted));
    // The bytes objects of unchanged files are the ones the hinted read kept.
    for (const [path, bytes] of full.files)
      if (!['roles/r1.md', 'squads/blue/lead.md'].includes(path))
        expect(sameBytes(bytes, hinted.files.get(path)), path).toBe(true);
  });

  it('a file read again with the bytes it had is handed on as the kept bytes (a hinted or a full read)', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    const first = await readPackDir(dir, { reuse });
    // Rewritten with the same bytes: another identity, the same content.
    writeFileSync(join(dir, 'roles/r1.md'), 'Role 1.');
    writeFileSync(join(dir, 'roles/r2.md'), 'Role 2.');
    const hinted = await readPackDir(dir, { reuse, hints: ['roles/r1.md'] });
    expect({ hinted: hinted.hinted, read: hinted.filesRead }).toEqual({ hinted: true, read: 1 });
    expect(sameBytes(hinted.files.get('roles/r1.md'), first.files.get('roles/r1.md'))).toBe(true);
    const full = await readPackDir(dir, { reuse });
    expect(full.filesRead).toBeGreaterThan(0);
    for (const path of ['roles/r1.md', 'roles/r2.md'])
      expect(sameBytes(full.files.get(path), first.files.get(path)), path).toBe(true);
    // Other bytes are new bytes.
    writeFileSync(join(dir, 'roles/r1.md'), 'Role 1, changed.');
    const changed = await readPackDir(dir, { reuse, hints: ['roles/r1.md'] });
    expect(sameBytes(changed.files.get('roles/r1.md'), first.files.get('roles/r1.md'))).toBe(false);
  });

  it('hidden paths it does not walk into are not part of the pack; those it does are', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    await readPackDir(dir, { reuse, hidden: ['.claude'] });
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git/HEAD'), 'ref');
    mkdirSync(join(dir, '.claude/agents'), { recursive: true });
    writeFileSync(join(dir, '.claude/agents/a.md'), 'Agent.');
    const hints = ['.git', '.git/HEAD', '.claude'];
    const hinted = await readPackDir(dir, { reuse, hints, hidden: ['.claude'] });
    expect(hinted.hinted).toBe(true);
    expect(observe(hinted)).toEqual(
      observe(await readPackDir(dir, { reuse: new FileReuse(), hidden: ['.claude'] })),
    );
    expect(hinted.files.has('.claude/agents/a.md')).toBe(true);
  });

  it('two hinted reads of the same paths agree while nothing changed, and not after a hinted file changed', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    const full = await readPackDir(dir, { reuse });
    const hints = ['roles/r1.md'];
    const a = await readPackDir(dir, { reuse, hints });
    const b = await readPackDir(dir, { reuse, hints });
    expect(a.identity).toBe(b.identity);
    expect(a.identity).not.toBe(full.identity);
    appendFileSync(join(dir, 'roles/r1.md'), ' More.');
    const c = await readPackDir(dir, { reuse, hints });
    expect(c.hinted).toBe(true);
    expect(c.identity).not.toBe(b.identity);
    expect(new TextDecoder().decode(c.files.get('roles/r1.md'))).toBe('Role 1. More.');
  });

  it('the consistent read passes the hints through and takes a quiet hinted read', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    await readStablePack(dir, { reuse, quietMs: 20 });
    writeFileSync(join(dir, 'roles/r2.md'), 'Two.');
    const read = await readStablePack(dir, { reuse, quietMs: 20, hints: ['roles/r2.md'] });
    expect(read.hinted).toBe(true);
    expect(read.diagnostics).toEqual([]);
    expect(observe(read)).toEqual(observe(await readPackDir(dir, { reuse: new FileReuse() })));
  });
});

describe('a hinted read falls back to a full read', () => {
  // Each case: the pack, a change, the hints; the read must be full and equal a fresh one.
  const cases: Array<{
    name: string;
    setup?: (dir: string) => void;
    change: (dir: string) => void;
    hints: string[];
    options?: { maxFileBytes?: number; maxFiles?: number; maxPackBytes?: number };
    codes?: string[];
  }> = [
    {
      name: 'when nothing was read before',
      change: () => {},
      hints: ['roles/r1.md'],
    },
    {
      name: 'when the last read met a symlink',
      setup: (dir) => symlinkSync('r1.md', join(dir, 'roles/alias.md')),
      change: (dir) => writeFileSync(join(dir, 'roles/r1.md'), 'New.'),
      hints: ['roles/r1.md'],
    },
    {
      name: 'when the last read had a diagnostic',
      setup: (dir) => writeFileSync(join(dir, 'big.md'), 'x'.repeat(200)),
      change: (dir) => writeFileSync(join(dir, 'roles/r1.md'), 'New.'),
      hints: ['roles/r1.md'],
      options: { maxFileBytes: 100 },
      codes: ['FILE_TOO_LARGE'],
    },
    {
      name: 'for a hint through ..',
      change: (dir) => writeFileSync(join(dir, 'roles/r1.md'), 'New.'),
      hints: ['roles/../roles/r1.md'],
    },
    {
      name: 'for a hinted path that is now a symlink',
      change: (dir) => {
        rmSync(join(dir, 'roles/r1.md'));
        symlinkSync('r2.md', join(dir, 'roles/r1.md'));
      },
      hints: ['roles/r1.md'],
    },
    {
      name: 'for a hinted path that is now a symlink out of the pack',
      change: (dir) => {
        rmSync(join(dir, 'roles/r1.md'));
        symlinkSync('/etc/hostname', join(dir, 'roles/r1.md'));
      },
      hints: ['roles/r1.md'],
      codes: ['PATH_OUTSIDE_PACK'],
    },
    {
      name: 'for a hinted file over the size limit',
      change: (dir) => writeFileSync(join(dir, 'roles/r1.md'), 'x'.repeat(200)),
      hints: ['roles/r1.md'],
      options: { maxFileBytes: 100 },
      codes: ['FILE_TOO_LARGE'],
    },
    {
      name: 'for a new folder named like a file',
      change: (dir) => mkdirSync(join(dir, 'roles/odd.md')),
      hints: ['roles/odd.md'],
      codes: ['SPECIAL_FILE'],
    },
    {
      name: 'when a hinted path’s folder vanished without being hinted',
      change: (dir) => rmSync(join(dir, 'roles'), { recursive: true }),
      hints: ['roles/r1.md'],
    },
    {
      name: 'when a hinted path lies in a folder the last read did not have',
      change: (dir) => {
        mkdirSync(join(dir, 'squads'));
        writeFileSync(join(dir, 'squads/a.md'), 'A.');
      },
      hints: ['squads/a.md'],
    },
    {
      name: 'when a hinted path’s folder became a symlink',
      change: (dir) => {
        renameSync(join(dir, 'teams'), join(dir, 'teams-real'));
        symlinkSync('teams-real', join(dir, 'teams'));
      },
      hints: ['teams/t1.md'],
    },
    {
      name: 'when a folder listed again holds a symlink',
      change: (dir) => symlinkSync('r1.md', join(dir, 'roles/alias.md')),
      hints: ['roles'],
    },
    {
      name: 'when the pack grows past the file limit',
      setup: () => {},
      change: (dir) => {
        for (let i = 0; i < 5; i++) writeFileSync(join(dir, `extra${i}.md`), 'x');
      },
      hints: ['extra0.md', 'extra1.md', 'extra2.md', 'extra3.md', 'extra4.md'],
      options: { maxFiles: 12 },
      codes: ['TOO_MANY_FILES'],
    },
    {
      name: 'when the pack grows past the byte limit',
      change: (dir) => writeFileSync(join(dir, 'roles/r1.md'), 'x'.repeat(120)),
      hints: ['roles/r1.md'],
      options: { maxPackBytes: 150 },
      codes: ['PACK_TOO_LARGE'],
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const dir = pack();
      c.setup?.(dir);
      const reuse = new FileReuse();
      if (c.name !== 'when nothing was read before') await readPackDir(dir, { reuse, ...c.options });
      c.change(dir);
      const hinted = await readPackDir(dir, { reuse, hints: c.hints, ...c.options });
      expect(hinted.hinted).toBeUndefined();
      const full = await readPackDir(dir, { reuse: new FileReuse(), ...c.options });
      expect(observe(hinted)).toEqual(observe(full));
      expect(hinted.diagnostics.map((d) => d.code)).toEqual(c.codes ?? []);
    });
  }

  it('on a ConfigMap volume', async () => {
    const dir = tempDir('strata-hinted-cm-');
    made.push(dir);
    mkdirSync(join(dir, '..2026_01'));
    writeFileSync(join(dir, '..2026_01/base.md'), 'Base.');
    symlinkSync('..2026_01', join(dir, '..data'));
    symlinkSync('..data/base.md', join(dir, 'base.md'));
    const reuse = new FileReuse();
    await readPackDir(dir, { reuse });
    const read = await readPackDir(dir, { reuse, hints: ['base.md'] });
    expect(read.hinted).toBeUndefined();
    expect([...read.files.keys()]).toEqual(['base.md']);
  });

  it('when the last read was made with other hidden folders or limits', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    await readPackDir(dir, { reuse, hidden: [] });
    expect(
      (await readPackDir(dir, { reuse, hints: ['roles/r1.md'], hidden: ['.claude'] })).hinted,
    ).toBeUndefined();
    expect((await readPackDir(dir, { reuse, hints: ['roles/r1.md'], hidden: ['.claude'] })).hinted).toBe(
      true,
    );
    expect((await readPackDir(dir, { reuse, hints: ['roles/r1.md'], maxFiles: 500 })).hinted).toBeUndefined();
  });

  it('after a read that stopped at a limit, even once the pack is back under it', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    await readPackDir(dir, { reuse, maxFiles: 12 });
    writeFileSync(join(dir, 'extra.md'), 'x');
    writeFileSync(join(dir, 'extra2.md'), 'x');
    expect(codesOf(await readPackDir(dir, { reuse, maxFiles: 12 }))).toEqual(['TOO_MANY_FILES']);
    rmSync(join(dir, 'extra2.md'));
    // The last complete read did not have extra.md: only a full read finds it.
    const read = await readPackDir(dir, { reuse, hints: ['extra2.md'], maxFiles: 12 });
    expect(read.hinted).toBeUndefined();
    expect(read.files.has('extra.md')).toBe(true);
  });

  it('when the folder named now leads to another root', async () => {
    const base = tempDir('strata-hinted-link-');
    made.push(base);
    const a = join(base, 'a');
    const b = join(base, 'b');
    for (const d of [a, b]) {
      mkdirSync(d);
      writeFileSync(join(d, 'base.md'), `Base ${d === a ? 'A' : 'B'}.`);
    }
    const link = join(base, 'current');
    symlinkSync('b', link);
    const reuse = new FileReuse();
    await readPackDir(link, { reuse });
    rmSync(link);
    symlinkSync('a', link);
    await readPackDir(link, { reuse });
    writeFileSync(join(b, 'base.md'), 'Base B, changed while not watched.');
    rmSync(link);
    symlinkSync('b', link);
    const read = await readPackDir(link, { reuse, hints: ['other.md'] });
    expect(read.hinted).toBeUndefined();
    expect(new TextDecoder().decode(read.files.get('base.md'))).toBe('Base B, changed while not watched.');
  });
});
