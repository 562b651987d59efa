import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStamps } from '../../src/source/file-stamps.js';
import { PackCheck } from '../../src/source/pack-check.js';
import { type DiskPackFiles, readPackDir } from '../../src/source/read-dir.js';
import { FileReuse, SETTLED_MS } from '../../src/source/reuse.js';
import { tempDir } from '../helpers.js';
import { apply, EDIT, observe, plainPack } from './pack-edits.js';

// The poll's identity check: what it finds, handed to a hinted read, must give exactly
// what a full read gives; when it finds nothing, the pack is what the last read read; and
// it opens no file (only the read it hands its paths to does, and only those).

const made: string[] = [];
const pack = () => plainPack(made);
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Everything the check finds: the folders' paths, then a whole sweep's (undefined: read it whole). */
async function found(check: PackCheck): Promise<string[] | undefined> {
  const paths = await await check.folders();
  if (paths === undefined) return undefined;
  for (;;) {
    const slice = check.sweep(Number.POSITIVE_INFINITY);
    if (slice.changed === undefined) return undefined;
    paths.push(...slice.changed);
    if (slice.done) return [...new Set(paths)].sort();
  }
}

/** Lets a pack's files settle, so that their identities pin their content (setup, not a timing assertion). */
const settle = () => new Promise((r) => setTimeout(r, SETTLED_MS + 100));

describe('the poll finds what changed without reading', () => {
  it('over random edit sequences (no events named): its paths, read hinted, give what a full read gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(EDIT, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        async (batches) => {
          const dir = pack();
          const reuse = new FileReuse();
          const check = new PackCheck(dir, { reuse });
          let last: DiskPackFiles = await readPackDir(dir, { reuse });
          for (const batch of batches) {
            for (const edit of batch) apply(dir, edit);
            const paths = await found(check);
            const full = await readPackDir(dir, { reuse: new FileReuse() });
            if (paths === undefined) last = await readPackDir(dir, { reuse });
            else if (paths.length === 0) expect(observe(full)).toEqual(observe(last));
            else {
              last = await readPackDir(dir, { reuse, hints: paths });
              expect(last.hinted).toBe(true);
            }
            expect(observe(last)).toEqual(observe(full));
          }
        },
      ),
      { numRuns: 30, seed: 2929 },
    );
  });

  it('finds nothing in a pack at rest, and only the files that changed once they have settled', async () => {
    const dir = pack();
    await settle();
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    expect((await readPackDir(dir, { reuse })).filesRead).toBe(8);
    expect(await found(check)).toEqual([]);
    expect(await found(check)).toEqual([]);
    writeFileSync(join(dir, 'roles/r1.md'), 'Role 1, rewritten in place.');
    // An editor's save: a new file renamed over the old one (the same names in the folder).
    writeFileSync(join(dir, 'roles/.r2.md.swp'), 'Role 2, saved.');
    renameSync(join(dir, 'roles/.r2.md.swp'), join(dir, 'roles/r2.md'));
    writeFileSync(join(dir, 'teams/deep/new.md'), 'New.');
    rmSync(join(dir, 'teams/t0.md'));
    const paths = await found(check);
    expect(paths).toEqual(['roles/r1.md', 'roles/r2.md', 'teams/deep/new.md', 'teams/t0.md']);
    const read = await readPackDir(dir, { reuse, hints: paths });
    expect(read.hinted).toBe(true);
    // The three files that are there now; nothing else opened.
    expect(read.filesRead).toBe(3);
    expect(observe(read)).toEqual(observe(await readPackDir(dir, { reuse: new FileReuse() })));
  });

  it('a folder whose names did not change is stamped again and not looked at after', async () => {
    const dir = pack();
    await settle();
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    await readPackDir(dir, { reuse });
    // A file made and removed: the folder changed, its names did not.
    writeFileSync(join(dir, 'roles/tmp.md'), 'x');
    rmSync(join(dir, 'roles/tmp.md'));
    const stamps = reuse.lastRead(dir)!.folders;
    expect(stamps.same('roles', statSync(join(dir, 'roles')))).toBe(false);
    await settle();
    expect(await check.folders()).toEqual([]);
    expect(stamps.same('roles', statSync(join(dir, 'roles')))).toBe(true);
  });

  it('a .git symlink to nothing marks no repository here either: its folder is looked at, not read whole', async () => {
    const dir = pack();
    symlinkSync('../gone', join(dir, 'roles', '.git'));
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    expect((await readPackDir(dir, { reuse })).gitFolders).toBeUndefined();
    // A file made and removed: the folder changed, its names did not.
    writeFileSync(join(dir, 'roles/tmp.md'), 'x');
    rmSync(join(dir, 'roles/tmp.md'));
    await settle();
    expect(await check.folders()).toEqual([]);
  });

  it('a .git whose symlinks loop is for a whole read to say, not a failed poll', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    await readPackDir(dir, { reuse });
    symlinkSync('.git', join(dir, 'roles', '.git'));
    await settle();
    expect(await check.folders()).toBeUndefined();
    expect((await readPackDir(dir, { reuse })).blocked).toEqual(new Set(['roles/.git']));
  });

  it('cannot tell without a whole read: no read kept, a read with a problem, a root aimed elsewhere', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    expect(await check.folders()).toBeUndefined();
    expect(check.sweep(Number.POSITIVE_INFINITY)).toEqual({ changed: [], done: true });

    // A file over the size limit (refused): whether it is mended only a read can tell.
    writeFileSync(join(dir, 'roles/big.md'), 'x'.repeat(100));
    await readPackDir(dir, { reuse, maxFileBytes: 50 });
    expect(await check.folders()).toBeUndefined();
    rmSync(join(dir, 'roles/big.md'));
    await readPackDir(dir, { reuse, maxFileBytes: 50 });
    expect(await check.folders()).toEqual([]);

    const base = tempDir('strata-check-link-');
    made.push(base);
    const link = join(base, 'current');
    symlinkSync(dir, link);
    const linked = new PackCheck(link, { reuse });
    await readPackDir(link, { reuse });
    expect(await linked.folders()).toEqual([]);
    const other = pack();
    rmSync(link);
    symlinkSync(other, link);
    expect(await linked.folders()).toBeUndefined();
  });

  it('a pack read through a symlink is read whole when any folder changed', async () => {
    const dir = pack();
    symlinkSync('roles', join(dir, 'people'));
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    await readPackDir(dir, { reuse });
    await settle();
    await readPackDir(dir, { reuse });
    expect(await check.folders()).toEqual([]);
    writeFileSync(join(dir, 'roles/new.md'), 'New.');
    expect(await check.folders()).toBeUndefined();
  });

  it('a new folder is a path to look at; a gone one too', async () => {
    const dir = pack();
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    await readPackDir(dir, { reuse });
    mkdirSync(join(dir, 'squads/blue'), { recursive: true });
    writeFileSync(join(dir, 'squads/blue/lead.md'), 'Lead.');
    rmSync(join(dir, 'teams/deep'), { recursive: true });
    expect(await check.folders()).toEqual(['squads', 'teams/deep']);
  });
});

describe('files outside the pack that path settings name', () => {
  it('are the same until one is written, replaced or removed', async () => {
    const dir = tempDir('strata-stamps-');
    made.push(dir);
    const file = join(dir, 'defaults.md');
    writeFileSync(file, 'Defaults.');
    await settle();
    const stamps = new FileStamps();
    const check = new PackCheck(dir, { stamps });
    expect(check.sameFiles([file])).toBe(false);
    stamps.set(file, statSync(file, { bigint: true }), Date.now());
    expect(check.sameFiles([file])).toBe(true);
    writeFileSync(file, 'Defaults, changed.');
    expect(check.sameFiles([file])).toBe(false);
    // A file changed within a second of its read pins nothing: read again.
    stamps.set(file, statSync(file, { bigint: true }), Date.now());
    expect(check.sameFiles([file])).toBe(false);
  });
});
