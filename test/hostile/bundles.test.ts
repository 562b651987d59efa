import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readPackBundle } from '../../src/source/bundle.js';
import type { PackLimits } from '../../src/source/limits.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { Slices } from '../../src/source/slices.js';
import { readTar } from '../../src/source/tar.js';
import { cli, ROOT, tempDir } from '../helpers.js';
import { entry, pax, paxBomb } from './tar-entries.js';

const enc = new TextEncoder();

async function read(entries: Buffer[], options: PackLimits = {}) {
  const file = join(tempDir('strata-bundle-'), 'pack.tgz');
  writeFileSync(file, gzipSync(Buffer.concat([...entries, new Uint8Array(1024)])));
  return readPackBundle(file, options);
}

const BASE = entry(enc.encode('base.md'), enc.encode('Base.\n'));

/** Bundles a pack folder could not be: refused with a code, as the folder would be. */
describe('hostile bundles', () => {
  it('an entry name that is not UTF-8 is BUNDLE_BAD_PATH, as the folder refuses it, not read under a lossy name', async () => {
    const latin1 = new Uint8Array([...enc.encode('roles/q'), 0xe9, ...enc.encode('.md')]);
    const bundle = await read([BASE, entry(latin1, enc.encode('QA.\n'))]);
    expect(bundle.diagnostics.map((d) => d.code)).toEqual(['BUNDLE_BAD_PATH']);
    expect(bundle.diagnostics[0]!.message).toContain('not valid UTF-8');
    expect([...bundle.files.keys()]).toEqual(['base.md']);

    const dir = tempDir();
    mkdirSync(join(dir, 'roles'));
    writeFileSync(join(dir, 'base.md'), 'Base.\n');
    writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(latin1)]), 'QA.\n');
    const folder = await readPackDir(dir);
    expect(folder.diagnostics.map((d) => d.code)).toContain('READ_ERROR');
  });

  it('a path that is both a file and a folder is BUNDLE_BAD_ENTRY, whichever comes first', async () => {
    for (const order of [
      ['roles', 'roles/qa.md'],
      ['roles/qa.md', 'roles'],
    ]) {
      const bundle = await read([BASE, ...order.map((p) => entry(enc.encode(p), enc.encode(`${p}\n`)))]);
      expect(bundle.diagnostics.map((d) => d.code)).toEqual(['BUNDLE_BAD_ENTRY']);
      expect(bundle.diagnostics[0]!.message).toContain('"roles" is both a file and a folder');
      expect(bundle.files.size).toBe(2);
    }
  });
});

/**
 * Archives of a pack folder as tar makes them (`tar -czf pack.tgz -C pack .`, on Linux or
 * macOS): what a folder read leaves out is not looked at in the archive either.
 */
describe('bundles of real folders', () => {
  const folder = [
    entry(enc.encode('./'), new Uint8Array(), '5'),
    entry(enc.encode('./roles/'), new Uint8Array(), '5'),
    pax('LIBARCHIVE.xattr.com.apple.provenance', 'AQAA'),
    entry(enc.encode('./roles/qa.md'), enc.encode('QA.\n')),
    entry(enc.encode('./roles/._qa.md'), enc.encode('AppleDouble')),
    entry(enc.encode('./.git/'), new Uint8Array(), '5'),
    ...Array.from({ length: 20 }, (_, i) => entry(enc.encode(`./.git/objects/o${i}`), enc.encode('x'))),
    entry(enc.encode('./node_modules/.bin/tsc'), new Uint8Array(), '2', '../typescript/bin/tsc'),
    // GNU tar's long link target (pnpm's links into .pnpm/ are longer than 100 bytes).
    entry(
      enc.encode('././@LongLink'),
      enc.encode(`../.pnpm/${'x'.repeat(120)}/node_modules/vite/bin/vite.js\0`),
      'K',
    ),
    entry(enc.encode('./node_modules/.bin/vite'), new Uint8Array(), '2', '../.pnpm/xxxx'),
    pax('path', './base.md'),
    entry(enc.encode('./base.md'), enc.encode('Base.\n')),
  ];

  it('counts every entry of the archive against --max-files: hidden entries and extended headers too', async () => {
    // 31 headers: the folders, the pax headers, the AppleDouble file, .git and its 20
    // objects, the links in node_modules, GNU's long link name, the two files.
    const bundle = await read(folder, { maxFiles: 31 });
    expect(bundle.diagnostics).toEqual([]);
    expect([...bundle.files.keys()].sort()).toEqual(['base.md', 'roles/qa.md']);
    const over = await read(folder, { maxFiles: 30 });
    expect(over.diagnostics.map((d) => d.code)).toEqual(['TOO_MANY_FILES']);
    expect(over.diagnostics[0]!.message).toContain('every tar entry counts');
  });

  it('a link in a hidden or dependency folder is not looked at; one in the pack is still BUNDLE_LINK', async () => {
    const bundle = await read([
      ...folder,
      entry(enc.encode('./roles/dev.md'), new Uint8Array(), '2', 'qa.md'),
    ]);
    expect(bundle.diagnostics.map((d) => [d.code, d.file])).toEqual([['BUNDLE_LINK', 'roles/dev.md']]);
  });

  it('entries refused one by one still count: a flood of links stops at --max-files', async () => {
    const links = Array.from({ length: 500 }, (_, i) =>
      entry(enc.encode(`l${i}.md`), new Uint8Array(), '2', '/etc/passwd'),
    );
    const bundle = await read([BASE, ...links], { maxFiles: 10 });
    expect(bundle.diagnostics.length).toBe(10);
    expect(bundle.diagnostics.at(-1)!.code).toBe('TOO_MANY_FILES');
  });
});

/**
 * A bundle is read as a folder is: opened without blocking and refused unless it is a
 * regular file, every entry counted, the archive read in slices within the read timeout,
 * and an unchanged bundle not read again.
 */
describe('bundles read like folders', () => {
  const BASE_ONLY = () => [BASE];

  it('a FIFO in the bundle’s place is SPECIAL_FILE at once: no thread waits in open() for a writer', async () => {
    const dir = tempDir('strata-fifo-');
    const fifo = join(dir, 'pack.tgz');
    execFileSync('mkfifo', [fifo]);
    // In a process of its own: a reader that blocked would hold its thread for good.
    const script = `const { openPack } = await import(${JSON.stringify(join(ROOT, 'src/source/open.ts'))});
      for (const source of [{ kind: 'bundle', file: process.argv[1] }, { kind: 'dir', dir: process.argv[1] }])
        console.log((await openPack(source)).diagnostics.map((d) => d.code).join());`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, fifo], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const code = await Promise.race([exited, sleep(30_000).then(() => 'blocked' as const)]);
    if (code === 'blocked') child.kill('SIGKILL');
    expect(code).toBe(0);
    expect(stdout).toBe('SPECIAL_FILE\nSPECIAL_FILE\n');

    const validate = await cli(['validate', '--dir', fifo]);
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain('SPECIAL_FILE');
  });

  it.each([
    ['global pax headers', () => entry(enc.encode('pax_global_header'), enc.encode('9 a=bcd\n'), 'g')],
    ['pax headers', () => pax('comment', 'x')],
    ['GNU long names', () => entry(enc.encode('././@LongLink'), enc.encode('a-long-name.md\0'), 'L')],
    ['hidden files', () => entry(enc.encode('.hidden/x'), enc.encode('x'))],
  ])('%s count against --max-files', async (_, make) => {
    const flood = Array.from({ length: 20 }, make);
    const over = await read(
      [...BASE_ONLY(), ...flood, entry(enc.encode('roles/qa.md'), enc.encode('QA.\n'))],
      {
        maxFiles: 10,
      },
    );
    expect(over.diagnostics.map((d) => d.code)).toEqual(['TOO_MANY_FILES']);
    expect(over.files.has('roles/qa.md')).toBe(false);
  });

  it('extended headers count against --max-pack-bytes: ten of 60 KB are over 512 KiB', async () => {
    const records = enc.encode(`${'8 aa=bb\n'.repeat(7_500)}`);
    const headers = Array.from({ length: 10 }, () => entry(enc.encode('PaxHeader'), records, 'x'));
    const over = await read([...headers, ...BASE_ONLY()], { maxPackBytes: 512 * 1024 });
    expect(over.diagnostics.map((d) => d.code)).toEqual(['PACK_TOO_LARGE']);
    expect(over.files.size).toBe(0);
    // Under the limit, the same archive is read: each header, 512 bytes and its data, counted.
    expect((await read([...headers, ...BASE_ONLY()], { maxPackBytes: 1024 * 1024 })).diagnostics).toEqual([]);
  });

  it('the pax-record bomb (150 KB holding 70 MiB of records) is PACK_TOO_LARGE; strata validate exits 1', async () => {
    const file = join(tempDir('strata-bomb-'), 'pack.tgz');
    writeFileSync(file, paxBomb(70));
    expect((await readPackBundle(file)).diagnostics.map((d) => d.code)).toEqual(['PACK_TOO_LARGE']);
    const validate = await cli(['validate', '--dir', file]);
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain('PACK_TOO_LARGE');
    // Allowed more bytes, it is read (in slices), and its one file is there.
    const allowed = await readPackBundle(file, { maxPackBytes: 128 * 1024 * 1024 });
    expect(allowed.diagnostics).toEqual([]);
    expect([...allowed.files.keys()]).toEqual(['base.md']);
  });

  it('the archive is read in slices: the event loop gets a turn between entries', async () => {
    const tar = gunzipSync(paxBomb(1));
    let turns = 0;
    let reading = true;
    const turn = () => {
      turns++;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    const limits = { maxFileBytes: 1024, maxEntries: 100, maxBytes: 4 * 1024 * 1024 };
    // Slices of no time at all: a turn after every entry (16 extended headers and the file).
    const out = await readTar(tar, limits, new Slices(Number.POSITIVE_INFINITY, 0));
    reading = false;
    expect([...out.files.keys()]).toEqual(['base.md']);
    expect(turns).toBeGreaterThanOrEqual(17);
  });

  it('a read past --read-timeout is READ_TIMEOUT', async () => {
    const file = join(tempDir('strata-bomb-'), 'pack.tgz');
    writeFileSync(file, paxBomb(60));
    const read = await readPackBundle(file, { maxPackBytes: 128 * 1024 * 1024, readTimeoutMs: 1 });
    expect(read.diagnostics.map((d) => d.code)).toEqual(['READ_TIMEOUT']);
    expect(read.files.size).toBe(0);
  });

  it('an unchanged bundle is not read again: the same files come back, after a touch too; a changed one is read', async () => {
    const file = join(tempDir('strata-bundle-'), 'pack.tgz');
    writeFileSync(file, gzipSync(Buffer.concat([...BASE_ONLY(), new Uint8Array(1024)])));
    const first = await readPackBundle(file);
    expect(first.diagnostics).toEqual([]);
    expect((await readPackBundle(file)).files).toBe(first.files);
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    expect((await readPackBundle(file)).files).toBe(first.files);
    // Other limits read it again.
    expect((await readPackBundle(file, { maxFiles: 99 })).files).not.toBe(first.files);
    writeFileSync(
      file,
      gzipSync(Buffer.concat([entry(enc.encode('base.md'), enc.encode('New.\n')), new Uint8Array(1024)])),
    );
    const changed = await readPackBundle(file);
    expect(changed.files).not.toBe(first.files);
    expect(new TextDecoder().decode(changed.files.get('base.md'))).toBe('New.\n');
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
