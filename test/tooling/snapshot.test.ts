import {
  appendFileSync,
  cpSync,
  existsSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/text/text.js';
import { buildLock, DEFAULT_MAX_LOCK_BYTES, formatLock, parseLock } from '../../src/tooling/lock/lock.js';
import { cli, EXAMPLES, okPack, tempDir, writeFiles } from '../helpers.js';

/** A pack that loads without a warning. */
function tinyPack(): string {
  const dir = tempDir();
  writeFiles(dir, { 'base.md': 'Base.\n', 'roles/dev.md': 'Dev.\n', 'roles/qa.md': 'QA.\n' });
  return dir;
}

describe('strata snapshot', () => {
  it('writes a lock of every member, and --check passes until a prompt changes', async () => {
    const dir = tempDir();
    const pack = join(dir, 'pack');
    cpSync(join(EXAMPLES, 'roboco'), pack, { recursive: true });
    const lockFile = join(dir, 'prompts.lock.json');
    const out = await cli(['snapshot', '--dir', pack, '--out', lockFile]);
    expect(out.code).toBe(0);
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    expect(lock.strata_lock).toBe(1);
    expect(lock.settings).toEqual({ fable_mode_enabled: false, ponytail_intensity: 'full' });
    expect(lock.members).toHaveLength(8);
    const compose = await cli(['compose', '--dir', pack, '--agent', 'ada']);
    expect(lock.members[0]).toEqual({
      key: 'ada',
      agent: 'ada',
      role: 'developer',
      team: 'platform',
      sha256: sha256(compose.stdout),
      bytes: Buffer.byteLength(compose.stdout),
      text: compose.stdout,
    });

    const ok = await cli(['snapshot', '--dir', pack, '--check', lockFile]);
    expect([ok.code, ok.stdout]).toEqual([0, `ok: all 8 members match ${lockFile}\n`]);

    // A comment in a YAML file changes the pack version but no prompt: still no drift.
    appendFileSync(join(pack, 'roles.yaml'), '# a comment\n');
    expect((await cli(['snapshot', '--dir', pack, '--check', lockFile])).code).toBe(0);

    appendFileSync(join(pack, 'identities', 'linus.md'), '\nDrifted.\n');
    const drift = await cli(['snapshot', '--dir', pack, '--check', lockFile]);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('--- a/linus\n+++ b/linus\n');
    expect(drift.stdout).toContain('+Drifted.\n');
    expect(drift.stderr).toContain('drift: linus (changed)');
    const json = JSON.parse((await cli(['snapshot', '--dir', pack, '--check', lockFile, '--json'])).stdout);
    expect(json.ok).toBe(false);
    expect(json.drifted.map((d: { key: string; status: string }) => [d.key, d.status])).toEqual([
      ['linus', 'changed'],
    ]);
    expect(json.unchanged).toBe(7);
  });

  it('--no-text stores hashes only; drift is still found', async () => {
    const dir = tempDir();
    const lockFile = join(dir, 'l.json');
    await cli(['snapshot', '--dir', join(EXAMPLES, 'chorus'), '--out', lockFile, '--no-text']);
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    expect(lock.members.map((m: { key: string }) => m.key)).toEqual([
      'role:arbiter',
      'role:implementer',
      'role:maintainer',
      'role:researcher',
      'role:reviewer',
    ]);
    expect(lock.members.every((m: object) => !('text' in m))).toBe(true);
    const env = { CHORUS_DEFAULT_INSTRUCTIONS_PATH: join(EXAMPLES, 'chorus', 'roles.yaml') };
    const drift = await cli(['snapshot', '--dir', join(EXAMPLES, 'chorus'), '--check', lockFile], env);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toMatch(/note: settings differ from the lock: default_instructions_path=/);
  });

  it('hostile input: missing, invalid and foreign lock files; flags', async () => {
    const dir = tempDir();
    const pack = join(EXAMPLES, 'roboco');
    const missing = await cli(['snapshot', '--dir', pack, '--check', join(dir, 'none.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error READ_ERROR: .*none\.json: cannot read lock file: ENOENT\n$/);
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    const bad = await cli(['snapshot', '--dir', pack, '--check', join(dir, 'bad.json')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error BAD_LOCK: .*bad\.json: not JSON/);
    writeFileSync(join(dir, 'pkg.json'), '{"name": "x"}');
    const foreign = await cli(['snapshot', '--dir', pack, '--check', join(dir, 'pkg.json')]);
    expect(foreign.stderr).toMatch(/^error BAD_LOCK: .*not a strata lock file/);
    expect((await cli(['snapshot', '--dir', pack])).code).toBe(2);
    expect((await cli(['snapshot', '--dir', pack, '--out', 'a', '--check', 'b'])).code).toBe(2);
    const noDir = await cli(['snapshot', '--dir', pack, '--out', join(dir, 'no', 'such', 'l.json')]);
    expect(noDir.code).toBe(1);
    expect(noDir.stderr).toMatch(
      /^error WRITE_ERROR: .*cannot write lock file: the folder .*such does not exist \(ENOENT\)\n$/,
    );
  });

  it('a lock whose text does not have its sha256 or bytes is BAD_LOCK, not a pass or an empty diff', async () => {
    const dir = tempDir();
    const pack = tinyPack();
    const lockFile = join(dir, 'l.json');
    expect((await cli(['snapshot', '--dir', pack, '--out', lockFile])).code).toBe(0);
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    const dev = lock.members[0];
    const edits: [string, Record<string, unknown>, string][] = [
      [
        'text',
        { text: `${dev.text}x` },
        `members.0.sha256: member "role:dev"'s text does not have this hash`,
      ],
      [
        'sha',
        { sha256: '0'.repeat(64) },
        `members.0.sha256: member "role:dev"'s text does not have this hash`,
      ],
      ['bytes', { bytes: 5 }, `members.0.bytes: member "role:dev"'s text is 16 bytes, not 5`],
    ];
    for (const [name, edit, where] of edits) {
      const edited = { ...lock, members: [{ ...dev, ...edit }, ...lock.members.slice(1)] };
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(edited));
      const run = await cli(['snapshot', '--dir', pack, '--check', file]);
      expect([run.code, run.stdout, run.stderr]).toEqual([
        1,
        '',
        `error BAD_LOCK: ${file}: not a strata lock file at ${where}\n`,
      ]);
    }
    // Without its text (--no-text), a member's hash and size stand as written.
    const bare = structuredClone(lock);
    for (const m of bare.members) delete m.text;
    expect(parseLock(JSON.stringify(bare), 'l.json').diagnostics).toEqual([]);
  });

  it('one member is said as one: "1 member", not "1 members"', async () => {
    const dir = tempDir();
    const pack = tempDir();
    writeFiles(pack, { 'base.md': 'Base.\n' });
    const lockFile = join(dir, 'l.json');
    const out = await cli(['snapshot', '--dir', pack, '--out', lockFile]);
    expect([out.code, out.stdout]).toEqual([0, `wrote ${lockFile}: 1 member\n`]);
    const ok = await cli(['snapshot', '--dir', pack, '--check', lockFile]);
    expect([ok.code, ok.stdout]).toEqual([0, `ok: the 1 member matches ${lockFile}\n`]);
  });

  it('a lock without texts gives no line counts for a drifted member: ?, not a count of 0 lines', async () => {
    const dir = tempDir();
    const pack = tinyPack();
    const lockFile = join(dir, 'l.json');
    await cli(['snapshot', '--dir', pack, '--out', lockFile, '--no-text']);
    appendFileSync(join(pack, 'roles', 'dev.md'), 'More.\nAnd more.\n');
    const run = await cli(['snapshot', '--dir', pack, '--check', lockFile]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')[1]).toMatch(/^role:dev +dev +- +changed +16→32 +\+16 +\? +\?$/);
    const json = JSON.parse((await cli(['snapshot', '--dir', pack, '--check', lockFile, '--json'])).stdout);
    expect(json.drifted[0]).toMatchObject({ bytesBefore: 16, bytesAfter: 32, linesAfter: 7, diff: '' });
    for (const k of ['linesBefore', 'linesAdded', 'linesRemoved'])
      expect(json.drifted[0]).not.toHaveProperty(k);
  });

  it('a lock file is read only up to --max-lock-bytes (FILE_TOO_LARGE), a device that never ends too; --out keeps to it', async () => {
    const dir = tempDir();
    const pack = tinyPack();
    const lockFile = join(dir, 'l.json');
    expect((await cli(['snapshot', '--dir', pack, '--out', lockFile])).code).toBe(0);
    const size = statSync(lockFile).size;
    const ok = await cli(['snapshot', '--dir', pack, '--check', lockFile, '--max-lock-bytes', String(size)]);
    expect(ok.code).toBe(0);
    const over = await cli([
      'snapshot',
      '--dir',
      pack,
      '--check',
      lockFile,
      '--max-lock-bytes',
      String(size - 1),
    ]);
    expect([over.code, over.stderr]).toEqual([
      1,
      `error FILE_TOO_LARGE: ${lockFile}: file is ${size} bytes; the limit is ${size - 1} (--max-lock-bytes)\n`,
    ]);
    // /dev/zero has no size and never ends: read no further than the limit.
    const zero = await cli(['snapshot', '--dir', pack, '--check', '/dev/zero', '--max-lock-bytes', '4096']);
    expect([zero.code, zero.stderr]).toEqual([
      1,
      'error FILE_TOO_LARGE: /dev/zero: file is more than 4096 bytes; the limit is 4096 (--max-lock-bytes)\n',
    ]);
    // The default holds a whole pack's worth (64 MiB), not one pack file's.
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, '');
    truncateSync(huge, DEFAULT_MAX_LOCK_BYTES + 1);
    const hugeOut = await cli(['snapshot', '--dir', pack, '--check', huge]);
    expect(hugeOut.stderr).toMatch(
      /^error FILE_TOO_LARGE: .*huge\.json: file is 67108865 bytes; the limit is 67108864/,
    );
    const folder = await cli(['snapshot', '--dir', pack, '--check', dir]);
    expect([folder.code, folder.stderr]).toEqual([
      1,
      `error READ_ERROR: ${dir}: cannot read lock file: EISDIR\n`,
    ]);
    // What --out writes, --check reads back with the same limit.
    const small = join(dir, 'small.json');
    const refused = await cli([
      'snapshot',
      '--dir',
      pack,
      '--out',
      small,
      '--max-lock-bytes',
      String(size - 1),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error FILE_TOO_LARGE: .*small\.json: the lock would be \d+ bytes; the limit is/,
    );
    expect(existsSync(small)).toBe(false);
    expect((await cli(['snapshot', '--dir', pack, '--check', lockFile, '--max-lock-bytes', '0'])).code).toBe(
      2,
    );
  });

  it('--ambient-file is read only up to --max-file-bytes', async () => {
    const dir = tempDir();
    const pack = tinyPack();
    const zero = await cli([
      'compose',
      '--dir',
      pack,
      '--ambient-file',
      '/dev/zero',
      '--max-file-bytes',
      '1000000',
    ]);
    expect([zero.code, zero.stderr]).toEqual([
      1,
      'error FILE_TOO_LARGE: /dev/zero: file is more than 1000000 bytes; the limit is 1000000 (--max-file-bytes)\n',
    ]);
    const missing = await cli(['compose', '--dir', pack, '--ambient-file', join(dir, 'none.md')]);
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `error READ_ERROR: ${join(dir, 'none.md')}: cannot read --ambient-file: ENOENT\n`,
    ]);
  });

  it('the lock text is stable and round-trips', () => {
    const snapshot = okPack({ 'base.md': 'B', 'roles/dev.md': 'D' });
    const { lock } = buildLock(snapshot);
    const text = formatLock(lock!);
    expect(formatLock(parseLock(text, 'l.json').lock!)).toBe(text);
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual(['strata_lock', 'preset', 'settings', 'members']);
  });
});
