import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readPackBundle } from '../../src/source/bundle.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { tempDir } from '../helpers.js';

const enc = new TextEncoder();

/** One raw ustar header (+ data) whose name is given as bytes, checksummed. */
function entry(name: Uint8Array, data: Uint8Array = new Uint8Array()): Buffer {
  const block = new Uint8Array(512);
  block.set(name.subarray(0, 100), 0);
  block.set(enc.encode('0000644\0'), 100);
  block.set(enc.encode('0000000\0'), 108);
  block.set(enc.encode('0000000\0'), 116);
  block.set(enc.encode(`${data.length.toString(8).padStart(11, '0')}\0`), 124);
  block.set(enc.encode('00000000000\0'), 136);
  block[156] = '0'.charCodeAt(0);
  block.set(enc.encode('ustar\u000000'), 257);
  block.fill(0x20, 148, 156);
  const sum = block.reduce((a, b) => a + b, 0);
  block.set(enc.encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
  padded.set(data);
  return Buffer.concat([block, padded]);
}

async function read(entries: Buffer[]) {
  const file = join(tempDir('strata-bundle-'), 'pack.tgz');
  writeFileSync(file, gzipSync(Buffer.concat([...entries, new Uint8Array(1024)])));
  return readPackBundle(file);
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
