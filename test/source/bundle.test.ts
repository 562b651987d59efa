import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createBundle, readPackBundle } from '../../src/source/bundle.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { writeTar } from '../../src/source/tar.js';
import { cli, EXAMPLES, tempDir } from '../helpers.js';

const enc = new TextEncoder();

/** One raw tar header (+ data) with any name, type and link target, checksummed. */
function entry(name: string, opts: { type?: string; link?: string; data?: Uint8Array; size?: number } = {}) {
  const data = opts.data ?? new Uint8Array();
  const block = new Uint8Array(512);
  block.set(enc.encode(name).subarray(0, 100), 0);
  block.set(enc.encode('0000644\0'), 100);
  block.set(enc.encode('0000000\0'), 108);
  block.set(enc.encode('0000000\0'), 116);
  block.set(enc.encode(`${(opts.size ?? data.length).toString(8).padStart(11, '0')}\0`), 124);
  block.set(enc.encode('00000000000\0'), 136);
  block[156] = (opts.type ?? '0').charCodeAt(0);
  if (opts.link) block.set(enc.encode(opts.link), 157);
  block.set(enc.encode('ustar\u000000'), 257);
  block.fill(0x20, 148, 156);
  const sum = block.reduce((a, b) => a + b, 0);
  block.set(enc.encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
  padded.set(data);
  return Buffer.concat([block, padded]);
}

const END = new Uint8Array(1024);
const BASE = entry('base.md', { data: enc.encode('Base.\n') });

async function readBytes(bytes: Uint8Array, options = {}) {
  const dir = tempDir('strata-bundle-');
  const file = join(dir, 'pack.tgz');
  writeFileSync(file, bytes);
  return readPackBundle(file, options);
}

function codesOf(read: { diagnostics: Array<{ code: string; file?: string }> }) {
  return read.diagnostics.map((d) => (d.file ? `${d.code} ${d.file}` : d.code));
}

describe('pack bundles', () => {
  it('hold every file of a nested pack, byte for byte, and read back the same', async () => {
    const dir = await readPackDir(join(EXAMPLES, 'roboco'));
    expect(dir.files.size).toBe(42);
    const read = await readBytes(createBundle(dir.files));
    expect(read.diagnostics).toEqual([]);
    expect([...read.files.keys()].sort()).toEqual([...dir.files.keys()].sort());
    for (const [path, bytes] of dir.files)
      expect(Buffer.from(read.files.get(path)!).equals(Buffer.from(bytes)), path).toBe(true);
  });

  it('are deterministic: same files, same bytes, whatever the order given', async () => {
    const a = new Map([
      ['b.md', enc.encode('B')],
      ['a/x.md', enc.encode('X')],
    ]);
    const b = new Map([...a].reverse());
    expect(Buffer.from(createBundle(a)).equals(Buffer.from(createBundle(b)))).toBe(true);
    const bytes = createBundle(a);
    expect([...bytes.subarray(4, 8)]).toEqual([0, 0, 0, 0]); // gzip mtime 0
  });

  it('keep long paths (pax records)', async () => {
    const long = `${'deep/'.repeat(40)}file.md`;
    const read = await readBytes(gzipSync(writeTar([{ path: long, bytes: enc.encode('x') }])));
    expect([...read.files.keys()]).toEqual([long]);
  });

  it('skip hidden entries and accept ./-prefixed names (tar -C pack .)', async () => {
    const tar = Buffer.concat([
      entry('./', { type: '5' }),
      entry('./base.md', { data: enc.encode('Base.') }),
      entry('./.git/config', { data: enc.encode('x') }),
      END,
    ]);
    const read = await readBytes(gzipSync(tar));
    expect(read.diagnostics).toEqual([]);
    expect([...read.files.keys()]).toEqual(['base.md']);
  });

  it.each([
    ['a ../ entry', [entry('../evil.md', { data: enc.encode('x') })], ['BUNDLE_BAD_PATH']],
    ['a nested ../ entry', [entry('roles/../../evil.md')], ['BUNDLE_BAD_PATH']],
    ['an absolute path', [entry('/etc/cron.d/evil', { data: enc.encode('x') })], ['BUNDLE_BAD_PATH']],
    [
      'a symlink out',
      [entry('roles/dev.md', { type: '2', link: '/etc/passwd' })],
      ['BUNDLE_LINK roles/dev.md'],
    ],
    ['a hard link', [entry('roles/dev.md', { type: '1', link: 'base.md' })], ['BUNDLE_LINK roles/dev.md']],
    ['a FIFO', [entry('fifo', { type: '6' })], ['SPECIAL_FILE fifo']],
    ['a device', [entry('dev', { type: '3' })], ['SPECIAL_FILE dev']],
    ['an unknown entry type', [entry('odd', { type: 'V' })], ['BUNDLE_BAD_ENTRY odd']],
    ['a path given twice', [entry('base.md', { data: enc.encode('Again.') })], ['BUNDLE_BAD_ENTRY base.md']],
    [
      'an oversized entry',
      [entry('big.md', { data: new Uint8Array(1024 * 1024 + 1).fill(0x61) })],
      ['FILE_TOO_LARGE big.md'],
    ],
  ])('refuse %s with its code', async (_name, entries, expected) => {
    const read = await readBytes(gzipSync(Buffer.concat([BASE, ...entries, END])));
    expect(codesOf(read)).toEqual(expected);
    expect(read.files.has('base.md')).toBe(true);
    expect([...read.files.keys()].filter((p) => p !== 'base.md')).toEqual([]);
  });

  it.each([
    [
      'a gzip stream cut short',
      () => gzipSync(Buffer.concat([BASE, END])).subarray(0, 40),
      'BUNDLE_TRUNCATED',
    ],
    ['a tar cut inside an entry', () => gzipSync(Buffer.concat([BASE.subarray(0, 600)])), 'BUNDLE_TRUNCATED'],
    ['a tar without its end marker', () => gzipSync(BASE), 'BUNDLE_TRUNCATED'],
    [
      'a header with a bad checksum',
      () => {
        const bad = Buffer.from(BASE);
        bad[0] = 0x63;
        return gzipSync(Buffer.concat([bad, END]));
      },
      'BUNDLE_CORRUPT',
    ],
    ['a file that is not an archive', () => enc.encode('base.md: hello\n'), 'BUNDLE_CORRUPT'],
  ])('refuse %s', async (_name, make, code) => {
    expect(codesOf(await readBytes(make()))).toEqual([code]);
  });

  it('refuse an archive that unpacks past the pack limit (a gzip bomb), a bundle file over it, and too many entries', async () => {
    const bomb = gzipSync(Buffer.concat([entry('a.md', { data: new Uint8Array(4 * 1024 * 1024) }), END]));
    expect(
      codesOf(await readBytes(bomb, { maxPackBytes: 1024 * 1024, maxFileBytes: 8 * 1024 * 1024 })),
    ).toEqual(['PACK_TOO_LARGE']);
    expect(codesOf(await readBytes(bomb, { maxPackBytes: 100 }))).toEqual(['PACK_TOO_LARGE']);
    const many = gzipSync(Buffer.concat([...Array.from({ length: 11 }, (_, i) => entry(`f${i}.md`)), END]));
    expect(codesOf(await readBytes(many, { maxFiles: 10 }))).toEqual(['TOO_MANY_FILES']);
  });

  it('a file of a pack given as the pack says what --dir takes', async () => {
    const dir = tempDir('strata-bundle-');
    writeFileSync(join(dir, 'base.md'), 'Base.\n');
    const { code, stdout, stderr } = await cli(['compose', '--dir', join(dir, 'base.md')]);
    expect([code, stdout]).toEqual([1, '']);
    expect(stderr).toBe(
      'error BUNDLE_CORRUPT: the file is neither a gzip’d tar nor a tar archive: a pack is read from its folder, or from a bundle strata bundle writes (for a file of a pack, name its folder)\n',
    );
  });

  it('refuse a symlink out on the CLI: strata validate --dir bundle exits 1 with the code', async () => {
    const dir = tempDir('strata-bundle-');
    const file = join(dir, 'pack.tgz');
    writeFileSync(
      file,
      gzipSync(Buffer.concat([BASE, entry('secret.md', { type: '2', link: '/etc/shadow' }), END])),
    );
    const { code, stdout, stderr } = await cli(['validate', '--dir', file]);
    expect(code).toBe(1);
    expect(stdout + stderr).toContain('BUNDLE_LINK');
  });
});

describe('strata bundle', () => {
  it('writes the pack as one file that composes like the folder', async () => {
    const dir = tempDir('strata-bundle-');
    const out = join(dir, 'pack.tgz');
    const made = await cli(['bundle', '--dir', join(EXAMPLES, 'roboco'), '--out', out]);
    expect(made.code).toBe(0);
    for (const agent of ['ada', 'grace', 'barbara']) {
      const fromDir = await cli(['compose', '--dir', join(EXAMPLES, 'roboco'), '--agent', agent]);
      const fromBundle = await cli(['compose', '--dir', out, '--agent', agent]);
      expect(fromBundle).toEqual(fromDir);
    }
  });

  it("refuses to write the bundle where the pack would read it, which would fail the pack's next load", async () => {
    const dir = tempDir('strata-bundle-');
    writeFileSync(join(dir, 'base.md'), 'Base.\n');
    const refused = await cli(['bundle', '--dir', dir, '--out', join(dir, 'pack.tgz')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error WRITE_ERROR: ${join(dir, 'pack.tgz')}: would be the pack's file pack.tgz: a bundle among the pack's own text files fails its next load (INVALID_UTF8); give --out a path outside the pack\n`,
    );
    expect(readdirSync(dir)).toEqual(['base.md']);
    expect((await cli(['validate', '--dir', dir])).code).toBe(0);
    // A hidden name the pack does not read, and an AGENTS.md project's folder, take it.
    expect((await cli(['bundle', '--dir', dir, '--out', join(dir, '.pack.tgz')])).code).toBe(0);
    const project = tempDir('strata-bundle-');
    writeFileSync(join(project, 'AGENTS.md'), 'Root.\n');
    expect((await cli(['bundle', '--dir', project, '--out', join(project, 'pack.tgz')])).code).toBe(0);
    expect((await cli(['validate', '--dir', project])).code).toBe(0);
  });

  it('prints a ConfigMap manifest with the bundle as binaryData', async () => {
    const { code, stdout } = await cli([
      'bundle',
      '--dir',
      join(EXAMPLES, 'roboco'),
      '--configmap',
      'strata-prompts',
    ]);
    expect(code).toBe(0);
    const { parse } = await import('yaml');
    const doc = parse(stdout);
    expect(doc).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strata-prompts' } });
    const bytes = Buffer.from(doc.binaryData['pack.tgz'], 'base64');
    const read = await readBytes(bytes);
    expect(read.files.size).toBe(42);
  });

  it('refuses a pack with errors, a bad name, no output, and a pack over the ConfigMap limit', async () => {
    const dir = tempDir('strata-bundle-');
    mkdirSync(join(dir, 'pack'));
    writeFileSync(join(dir, 'pack', 'strata.yaml'), 'extends: [nope\n');
    expect((await cli(['bundle', '--dir', join(dir, 'pack'), '--out', join(dir, 'x.tgz')])).code).toBe(1);
    expect((await cli(['bundle', '--dir', join(EXAMPLES, 'roboco'), '--configmap', 'Bad_Name'])).code).toBe(
      2,
    );
    expect((await cli(['bundle', '--dir', join(EXAMPLES, 'roboco')])).code).toBe(2);

    const big = join(dir, 'big');
    mkdirSync(join(big, 'roles'), { recursive: true });
    writeFileSync(join(big, 'base.md'), 'Base.');
    // Hardly compressible text: 3 × 600 KiB of base64 of random bytes.
    for (const n of [1, 2, 3])
      writeFileSync(join(big, 'roles', `r${n}.md`), randomBytes(450 * 1024).toString('base64'));
    const res = await cli(['bundle', '--dir', big, '--configmap', 'big']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('CONFIGMAP_TOO_LARGE');
    expect(res.stderr).toContain('git-sync');
  });

  it('is read through a symlink, as a ConfigMap mounts it', async () => {
    const dir = tempDir('strata-bundle-');
    await cli(['bundle', '--dir', join(EXAMPLES, 'roboco'), '--out', join(dir, 'real.tgz')]);
    symlinkSync('real.tgz', join(dir, 'pack.tgz'));
    const res = await cli(['compose', '--dir', join(dir, 'pack.tgz'), '--agent', 'ada']);
    expect(res.code).toBe(0);
  });
});
