import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readPackBundle } from '../../src/source/bundle.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { tempDir } from '../helpers.js';

const enc = new TextEncoder();

/** One raw ustar header (+ data) whose name is given as bytes, checksummed. */
function entry(name: Uint8Array, data: Uint8Array = new Uint8Array(), type = '0', link = ''): Buffer {
  const block = new Uint8Array(512);
  block.set(name.subarray(0, 100), 0);
  block.set(enc.encode('0000644\0'), 100);
  block.set(enc.encode('0000000\0'), 108);
  block.set(enc.encode('0000000\0'), 116);
  block.set(enc.encode(`${data.length.toString(8).padStart(11, '0')}\0`), 124);
  block.set(enc.encode('00000000000\0'), 136);
  block[156] = type.charCodeAt(0);
  block.set(enc.encode(link), 157);
  block.set(enc.encode('ustar\u000000'), 257);
  block.fill(0x20, 148, 156);
  const sum = block.reduce((a, b) => a + b, 0);
  block.set(enc.encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
  padded.set(data);
  return Buffer.concat([block, padded]);
}

async function read(entries: Buffer[], options: { maxFiles?: number } = {}) {
  const file = join(tempDir('strata-bundle-'), 'pack.tgz');
  writeFileSync(file, gzipSync(Buffer.concat([...entries, new Uint8Array(1024)])));
  return readPackBundle(file, options);
}

/** A pax extended header (as bsdtar writes for a file's extended attributes) for the next entry. */
function pax(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const record = `${body.length + String(body.length + 3).length}${body}`;
  return entry(enc.encode('./PaxHeaders/x'), enc.encode(record), 'x');
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

  it('counts files and folders as a folder read does: hidden entries and extended headers are not counted', async () => {
    // base.md, roles, roles/qa.md: three, as the folder read of the same pack counts.
    const bundle = await read(folder, { maxFiles: 3 });
    expect(bundle.diagnostics).toEqual([]);
    expect([...bundle.files.keys()].sort()).toEqual(['base.md', 'roles/qa.md']);
    const dir = tempDir();
    mkdirSync(join(dir, 'roles'));
    writeFileSync(join(dir, 'base.md'), 'Base.\n');
    writeFileSync(join(dir, 'roles', 'qa.md'), 'QA.\n');
    expect((await readPackDir(dir, { maxFiles: 3 })).diagnostics).toEqual([]);
    expect((await read(folder, { maxFiles: 2 })).diagnostics.map((d) => d.code)).toEqual(['TOO_MANY_FILES']);
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
