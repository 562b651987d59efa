import { cpSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { presetManifest } from '../../src/core/build/detect.js';
import { readScopeOf } from '../../src/core/build/read-scope.js';
import type { LoadResult, Snapshot } from '../../src/core/build/snapshot.js';
import { composeMember, packMembers } from '../../src/core/compose/members.js';
import { buildSnapshot } from '../../src/engine/default-engine.js';
import { LAYOUTS as BUILT_IN } from '../../src/layouts/registry.js';
import { openPack } from '../../src/source/open.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { FileReuse } from '../../src/source/reuse.js';
import { codes, commitAll, EXAMPLES, FIXTURES, tempDir, writeFiles } from '../helpers.js';

// A folder is read for the files its pack can select: a project root read for its
// AGENTS.md files does not read, or count against the limits, its build output. Whatever
// the folder holds and however it changes, the result must be what a read of every file
// gives.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function copyOf(from: string): string {
  const dir = tempDir('strata-scope-');
  dirs.push(dir);
  cpSync(from, dir, { recursive: true });
  return dir;
}

/** Everything observable about a load: diagnostics, version, files, every member's result. */
function observe(result: LoadResult) {
  const snapshot = result.snapshot;
  if (!snapshot) return { diagnostics: result.diagnostics };
  return {
    version: snapshot.version,
    preset: snapshot.preset,
    files: [...snapshot.files.keys()],
    warnings: snapshot.warnings,
    members: packMembers(snapshot).map((m) => {
      const outcome = composeMember(snapshot, m, {});
      return outcome.ok ? { text: outcome.result.text, layers: outcome.result.layers } : outcome.diagnostics;
    }),
  };
}

/** A read of every file, built from scratch (a reuse cache of its own, no earlier build). */
async function whole(dir: string, limits: { maxFiles?: number } = {}): Promise<LoadResult> {
  const read = await readPackDir(dir, { reuse: new FileReuse(), ...limits });
  return buildSnapshot({ ...read, readDiagnostics: read.diagnostics, env: {} });
}

/** Build output a project root holds beside its prompt files: none of it is the pack's. */
function addBuildOutput(dir: string, count: number): void {
  mkdirSync(join(dir, 'target', 'debug'), { recursive: true });
  for (let i = 0; i < count; i++) writeFileSync(join(dir, 'target', 'debug', `f${i}.rs`), `fn f${i}() {}\n`);
}

describe('read scope', () => {
  it('a project root over the file limit loads as its layout: only the files it can select count', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    addBuildOutput(dir, 60);
    expect(codes(await whole(dir, { maxFiles: 40 }))).toEqual(['TOO_MANY_FILES']);
    const opened = await openPack({ kind: 'dir', dir }, { env: {}, maxFiles: 40 });
    expect(opened.diagnostics).toEqual([]);
    const full = await whole(copyWithout(dir, 'target'));
    expect(observe(opened)).toEqual(observe(full));
    expect([...opened.snapshot!.files.keys()].some((p) => p.startsWith('target/'))).toBe(false);
  });

  it('a git revision of a project root over the file limit loads as its layout too', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    addBuildOutput(dir, 60);
    commitAll(dir, 'project');
    const opened = await openPack({ kind: 'git', dir, rev: 'HEAD' }, { env: {}, maxFiles: 40 });
    expect(opened.diagnostics).toEqual([]);
    const onDisk = await openPack({ kind: 'dir', dir }, { env: {}, maxFiles: 40 });
    expect(observe(opened)).toEqual(observe(onDisk));
  });

  it('the files a pack selects still count: over the limit, TOO_MANY_FILES as before', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    for (let i = 0; i < 30; i++) {
      mkdirSync(join(dir, `pkg${i}`));
      writeFileSync(join(dir, `pkg${i}`, 'AGENTS.md'), `Package ${i}.\n`);
    }
    const opened = await openPack({ kind: 'dir', dir }, { env: {}, maxFiles: 40 });
    expect(codes(opened)).toEqual(['TOO_MANY_FILES']);
  });

  it('a project root with its own strata.yaml (registry, fleet) loads over the limit', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    addBuildOutput(dir, 60);
    writeFiles(dir, {
      'strata.yaml':
        'extends: agents-md\nfiles: ["**/AGENTS.md", "agents.yaml", "team/*.yaml"]\nregistry:\n  files: [team/roles.yaml]\n  key: roles\nfleet:\n  file: agents.yaml\n',
      'agents.yaml': 'agents:\n  - id: ada\n    role: writer\n',
      'team/roles.yaml': 'roles:\n  writer:\n    name: Writer\n',
    });
    const opened = await openPack({ kind: 'dir', dir }, { env: {}, maxFiles: 40 });
    expect(opened.diagnostics).toEqual([]);
    expect(observe(opened)).toEqual(observe(await whole(copyWithout(dir, 'target'))));
    expect(opened.snapshot!.roles.has('writer')).toBe(true);
  });

  it('a forced preset reads only what it selects', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    addBuildOutput(dir, 60);
    const opened = await openPack({ kind: 'dir', dir }, { env: {}, maxFiles: 40, preset: 'agents-md' });
    expect(opened.diagnostics).toEqual([]);
    expect(opened.snapshot!.preset).toBe('agents-md');
  });

  it('a reload reads with the last build scope, and a manifest that asks for more is read again', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    writeFiles(dir, {
      'strata.yaml': 'extends: agents-md\nfiles: ["**/AGENTS.md"]\n',
      'notes/AGENTS.md': 'Notes.\n',
      'docs/extra.txt': 'Extra.\n',
    });
    const first = await openPack({ kind: 'dir', dir }, { env: {} });
    expect(first.diagnostics).toEqual([]);
    expect(first.snapshot!.files.has('docs/extra.txt')).toBe(false);
    // The manifest now selects docs/ and composes it: the scoped read did not bring it,
    // the build's manifest asks for it, and the folder is read again.
    writeFiles(dir, {
      'strata.yaml':
        'extends: agents-md\nfiles: ["**/AGENTS.md", "docs/*.txt"]\nlayers:\n  - id: extra\n    file: docs/extra.txt\n    missing: error\n',
    });
    const second = await openPack({ kind: 'dir', dir }, { env: {}, previous: first.snapshot! });
    expect(observe(second)).toEqual(observe(await whole(dir)));
    expect(second.snapshot!.files.has('docs/extra.txt')).toBe(true);
  });

  it('a path the pack cannot select is not read, whatever it is (a symlink out, a FIFO, a broken link)', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    symlinkSync('/etc/hostname', join(dir, 'out.txt'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'broken.txt'));
    const full = await whole(dir);
    const opened = await openPack({ kind: 'dir', dir }, { env: {}, preset: 'agents-md' });
    expect(observe(opened)).toEqual(observe(full));
    expect(opened.diagnostics).toEqual([]);
  });

  it('a hinted read skips a hinted file the pack cannot select, and reads one it can', async () => {
    const dir = copyOf(join(EXAMPLES, 'agents-md'));
    addBuildOutput(dir, 5);
    const scope = readScopeOf(presetManifest(BUILT_IN, 'agents-md')!, BUILT_IN)!;
    const reuse = new FileReuse();
    const first = await readPackDir(dir, { reuse, scope });
    expect([...first.files.keys()].some((p) => p.startsWith('target/'))).toBe(false);
    writeFileSync(join(dir, 'target', 'debug', 'f1.rs'), 'changed\n');
    writeFileSync(join(dir, 'target', 'debug', 'new.rs'), 'new\n');
    writeFileSync(join(dir, 'AGENTS.md'), 'New root rules.\n');
    const hints = ['target/debug/f1.rs', 'target/debug/new.rs', 'target/debug', 'AGENTS.md'];
    const second = await readPackDir(dir, { reuse, scope, hints });
    expect(second.hinted).toBe(true);
    expect([...second.files.keys()].sort()).toEqual([...first.files.keys()].sort());
    expect(new TextDecoder().decode(second.files.get('AGENTS.md'))).toBe('New root rules.\n');
  });

  it('a scope covers the manifest files, the selection and what detection looks at', () => {
    const scope = readScopeOf(presetManifest(BUILT_IN, 'agents-md')!, BUILT_IN)!;
    expect(scope.has('strata.yaml')).toBe(true);
    expect(scope.has('backend/AGENTS.md')).toBe(true);
    expect(scope.has('base.md')).toBe(true); // roboco's detection
    expect(scope.has('config/agents.yaml')).toBe(true); // crewai's
    expect(scope.has('target/debug/f1.rs')).toBe(false);
    expect(readScopeOf(presetManifest(BUILT_IN, 'roboco')!, BUILT_IN)).toBeUndefined();
  });
});

/** A copy of `dir` without one of its folders. */
function copyWithout(dir: string, folder: string): string {
  const copy = copyOf(dir);
  rmSync(join(copy, folder), { recursive: true, force: true });
  return copy;
}

// Random edits of three layouts' packs, junk beside them, manifests coming and going:
// every load that starts from the last build (a reload, scoped) gives what a read of
// every file gives.
const LAYOUTS = [
  join(EXAMPLES, 'agents-md'),
  join(EXAMPLES, 'crewai'),
  join(FIXTURES, 'layouts-claude-agents'),
];

type Op =
  | { kind: 'junk'; path: string; text: string }
  | { kind: 'write'; path: string; text: string }
  | { kind: 'remove'; path: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('junk' as const),
    path: fc.constantFrom('target/a.rs', 'build/out.txt', 'vendor/x/y.json', 'src/main.py', 'data.csv'),
    text: fc.string({ maxLength: 20 }),
  }),
  fc.record({
    kind: fc.constant('write' as const),
    path: fc.constantFrom('AGENTS.md', 'src/AGENTS.md', 'notes.md', 'agents.yaml', 'base.md'),
    text: fc.constantFrom('Be brief.\n', '---\nname: x\ndescription: y\n---\nBody.\n', 'a:\n  role: R\n'),
  }),
  fc.record({
    kind: fc.constant('write' as const),
    path: fc.constant('strata.yaml'),
    text: fc.constantFrom(
      'extends: agents-md\n',
      'extends: agents-md\nfiles: ["**/AGENTS.md"]\n',
      'extends: agents-md\nfiles: ["**/*.md"]\n',
      'extends: roboco\n',
      'extends: [\n',
      'extends: team.yaml\n',
      'extends: team.yaml\nfiles: ["**/AGENTS.md"]\n',
    ),
  }),
  fc.record({
    kind: fc.constant('write' as const),
    path: fc.constant('team.yaml'),
    text: fc.constantFrom(
      'extends: agents-md\nfiles: ["**/AGENTS.md"]\n',
      'extends: agents-md\nfiles: ["**/AGENTS.md", "data.csv"]\n',
      'extends: agents-md\n',
    ),
  }),
  fc.record({
    kind: fc.constant('remove' as const),
    path: fc.constantFrom('strata.yaml', 'AGENTS.md', 'base.md', 'agents.yaml', 'target/a.rs', 'team.yaml'),
  }),
);

function apply(dir: string, o: Op): void {
  const path = join(dir, o.path);
  if (o.kind === 'remove') {
    try {
      unlinkSync(path);
    } catch {}
    return;
  }
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, o.text);
}

describe('read scope, property', () => {
  it('a reload from the last build gives what a read of every file gives, over random edits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...LAYOUTS),
        fc.array(op, { minLength: 1, maxLength: 6 }),
        async (from, ops) => {
          const dir = copyOf(from);
          let last: Snapshot | undefined = (await openPack({ kind: 'dir', dir }, { env: {} })).snapshot;
          for (const o of ops) {
            apply(dir, o);
            const opened = await openPack(
              { kind: 'dir', dir },
              { env: {}, ...(last ? { previous: last } : {}) },
            );
            expect(observe(opened)).toEqual(observe(await whole(dir)));
            if (opened.snapshot) last = opened.snapshot;
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
