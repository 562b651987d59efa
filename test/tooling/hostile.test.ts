import { appendFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, EXAMPLES, tempDir } from '../helpers.js';

const ROBOCO = join(EXAMPLES, 'roboco');

describe('hostile input: a clear coded error and exit status, never a stack trace', () => {
  it.each([
    [['validate']],
    [['diff', '--base-set', 'fable_mode_enabled=on']],
    [['snapshot', '--out', '/tmp/never-written.json']],
    [['config', '--role', 'qa']],
    [['export', '--agent', 'ada', '--target', 'claude', '--out', '/tmp']],
  ])('%j on a missing directory is PACK_NOT_FOUND, exit 1', async (args) => {
    const r = await cli([...args, '--dir', '/nonexistent/pack']);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).toMatch(/^error PACK_NOT_FOUND/m);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/INTERNAL|\n\s+at /);
  });

  it('a folder where a file is expected is READ_ERROR (registry, lock file)', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    const gen = await cli(['generate', '--registry', join(dir, 'folder'), '--out', join(dir, 'out')]);
    expect(gen.code).toBe(1);
    expect(gen.stderr).toMatch(/^error READ_ERROR: .*folder: cannot read the verbs registry: EISDIR\n$/);
    const snap = await cli(['snapshot', '--dir', ROBOCO, '--check', join(dir, 'folder')]);
    expect(snap.code).toBe(1);
    expect(snap.stderr).toMatch(/^error READ_ERROR: .*folder: cannot read lock file: EISDIR\n$/);
  });

  it('an output folder that is a file is WRITE_ERROR for generate', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'verbs.yaml'), 'verbs:\n  - { name: a, description: A, kind: do, roles: [r] }\n');
    writeFileSync(join(dir, 'out'), 'a file');
    const r = await cli(['generate', '--registry', join(dir, 'verbs.yaml'), '--out', join(dir, 'out')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error (READ_ERROR|WRITE_ERROR): /);
  });

  it('validate checks a verbs registry in the pack and its _generated fragments', async () => {
    const pack = join(tempDir(), 'pack');
    cpSync(ROBOCO, pack, { recursive: true });
    appendFileSync(join(pack, '_generated', 'qa.md'), '| hand_added | `hand_added()` |\n');
    writeFileSync(join(pack, '_generated', 'intern.md'), '# Verb signatures for intern\n');
    writeFileSync(join(pack, '_generated', 'notes.md'), 'Kept by hand: not a fragment.\n');
    const stale = await cli(['validate', '--dir', pack]);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain(
      'warning BAD_REGISTRY: _generated/qa.md: _generated/qa.md differs from what the registry renders; run strata generate\n',
    );
    expect(stale.stdout).toContain('warning BAD_REGISTRY: _generated/intern.md: stale fragment');
    expect(stale.stdout).not.toContain('_generated/notes.md');

    appendFileSync(
      join(pack, 'verbs.yaml'),
      '\n  - name: cast_vote\n    description: Again.\n    kind: flow\n    roles: [qa]\n',
    );
    const dup = await cli(['validate', '--dir', pack]);
    expect(dup.code).toBe(1);
    expect(dup.stdout).toMatch(/^error BAD_REGISTRY: verbs\.yaml:\d+:5: duplicate verb cast_vote/m);
  });
});
