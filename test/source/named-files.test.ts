import { readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readScopeOf } from '../../src/core/build/read-scope.js';
import { tryCompose } from '../../src/core/compose/compose.js';
import { LAYOUTS } from '../../src/layouts/registry.js';
import { EventScope } from '../../src/reload/event-scope.js';
import { stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { watchPack } from '../../src/reload/watch.js';
import { openPack } from '../../src/source/open.js';
import { cli, codes, memPack, okPack, tempDir, writeFiles } from '../helpers.js';
import { waitFor } from '../server/helpers.js';

// A file a pack's own manifest names (its fleet file, role files, layer files) is part of
// the pack whatever `files:` selects: a `files:` taken from a preset (claude-agents reads
// only Markdown) does not leave it out without a word, and a named fleet file that is not
// there is an error with the closest names.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const CLAUDE_WITH_FLEET = {
  'strata.yaml': 'extends: claude-agents\nfleet:\n  file: fleet.yaml\n',
  '.claude/agents/dev.md': '---\nname: dev\ndescription: A developer\n---\nYou write code.\n',
  'fleet.yaml': 'agents:\n  - id: ada\n    role: dev\n',
};

function packDir(files: Record<string, string>): string {
  const dir = tempDir('strata-named-');
  dirs.push(dir);
  writeFiles(dir, files);
  return dir;
}

describe('files a pack manifest names', () => {
  it('a fleet file named over a preset that reads only Markdown is read: its agents compose', () => {
    const snapshot = okPack(CLAUDE_WITH_FLEET);
    expect(snapshot.fleet.map((a) => [a.id, a.role])).toEqual([['ada', 'dev']]);
    expect([...snapshot.files.keys()]).toContain('fleet.yaml');
    const out = tryCompose(snapshot, { agent: 'ada' });
    expect(out.ok && out.result.text).toBe('You write code.');
    // Part of the version: a fleet edit is a new version.
    const edited = okPack({ ...CLAUDE_WITH_FLEET, 'fleet.yaml': 'agents:\n  - id: bob\n    role: dev\n' });
    expect(edited.version).not.toBe(snapshot.version);
  });

  it('a named fleet file that is not there is BAD_FLEET where the manifest names it, with the closest names', () => {
    const { 'fleet.yaml': fleet, ...rest } = CLAUDE_WITH_FLEET;
    const result = memPack({ ...rest, 'fleets.yaml': fleet });
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'BAD_FLEET',
        severity: 'error',
        file: 'strata.yaml',
        line: 3,
        col: 9,
        suggestions: ['fleets.yaml'],
      }),
    ]);
  });

  it('the default fleet file, not named, stays optional; a preset naming one does not make it required', () => {
    expect(codes(memPack({ 'strata.yaml': 'extends: chorus\n', 'defaults.md': 'D.\n' }))).toEqual([]);
    const { 'fleet.yaml': _, ...rest } = CLAUDE_WITH_FLEET;
    expect(codes(memPack({ ...rest, 'strata.yaml': 'extends: claude-agents\n' }))).toEqual([]);
  });

  it('a named fleet file in a hidden folder: BAD_FLEET says hidden: must name it; with hidden: it is read', async () => {
    const files = {
      ...CLAUDE_WITH_FLEET,
      'strata.yaml': 'extends: claude-agents\nfleet:\n  file: .cfg/fleet.yaml\n',
      '.cfg/fleet.yaml': CLAUDE_WITH_FLEET['fleet.yaml'],
    };
    const hiddenOut = memPack(files);
    expect(codes(hiddenOut)).toEqual(['BAD_FLEET']);
    expect(hiddenOut.diagnostics[0]!.message).toContain('hidden:');
    // From disk, the reader walks into the folder the manifest opts in.
    const dir = packDir({
      ...files,
      'strata.yaml': `${files['strata.yaml']}hidden: [.claude, .cfg]\n`,
    });
    const opened = await openPack({ kind: 'dir', dir }, { env: {} });
    expect(opened.diagnostics).toEqual([]);
    expect(opened.snapshot!.fleet.map((a) => a.id)).toEqual(['ada']);
  });

  it('role files and layer files a manifest names over a preset `files:` are read', () => {
    const snapshot = okPack({
      'strata.yaml': [
        'extends: claude-agents',
        'registry:',
        '  files: [roles.yaml]',
        'layers:',
        '  - id: rules',
        '    file: shared/rules.txt',
        '  - id: notes',
        '    file: "notes/{role}.txt"',
        '',
      ].join('\n'),
      '.claude/agents/dev.md': '---\nname: dev\ndescription: D\n---\nYou write code.\n',
      'roles.yaml': 'roles:\n  ops:\n    description: O\n',
      'shared/rules.txt': 'Be careful.\n',
      'notes/dev.txt': 'Dev notes.\n',
      'unnamed.txt': 'Not named.\n',
    });
    expect([...snapshot.roles.keys()]).toEqual(['dev', 'ops']);
    const out = tryCompose(snapshot, { role: 'dev' });
    expect(out.ok && out.result.text).toBe('You write code.\n\n---\n\nBe careful.\n\n---\n\nDev notes.');
    expect(snapshot.files.has('unnamed.txt')).toBe(false);
  });

  it('strata validate: role files named that match no file are a BAD_ROLE warning at the key, with the closest names', async () => {
    const files = {
      'strata.yaml': 'extends: claude-agents\nregistry:\n  files: [role.yaml, "teams/*/roles.yaml"]\n',
      '.claude/agents/dev.md': CLAUDE_WITH_FLEET['.claude/agents/dev.md'],
      'roles.yaml': 'roles:\n  ops:\n    description: O\n',
    };
    // Loading says nothing (a manifest may name optional alternatives); validate does.
    expect(codes(memPack(files))).toEqual([]);
    const dir = packDir(files);
    const validated = await cli(['validate', '--dir', dir, '--format', 'json']);
    const found = JSON.parse(validated.stdout).diagnostics.filter(
      (d: { code: string }) => d.code === 'BAD_ROLE',
    );
    expect(found).toEqual([
      {
        code: 'BAD_ROLE',
        severity: 'warning',
        file: 'strata.yaml',
        line: 3,
        col: 10,
        suggestions: ['roles.yaml'],
        message:
          'registry.files names "role.yaml", "teams/*/roles.yaml", which match no file in the pack; did you mean "roles.yaml"?',
      },
    ]);
    // One of them matching is enough (alternatives, as roboco's roles.yaml | roles.yml).
    writeFiles(dir, { 'teams/a/roles.yaml': 'roles:\n  qa:\n    description: Q\n' });
    const again = await cli(['validate', '--dir', dir, '--format', 'json']);
    expect(JSON.parse(again.stdout).diagnostics.map((d: { code: string }) => d.code)).not.toContain(
      'BAD_ROLE',
    );
  });

  it('what a parent manifest named and a child replaces is no longer named', () => {
    const result = memPack({
      'strata.yaml': 'extends: base.yaml\nfleet:\n  file: team.yaml\n',
      'base.yaml': 'extends: claude-agents\nfleet:\n  file: fleet.yaml\n',
      '.claude/agents/dev.md': CLAUDE_WITH_FLEET['.claude/agents/dev.md'],
      'team.yaml': CLAUDE_WITH_FLEET['fleet.yaml'],
    });
    expect(codes(result)).toEqual([]);
    expect(result.snapshot!.manifest.named.map((n) => [n.by, n.glob])).toEqual([['fleet.file', 'team.yaml']]);
  });

  it('a folder read for its scope gives what a read of every file gives; a fleet edit starts a reload', async () => {
    const dir = packDir({ ...CLAUDE_WITH_FLEET, 'build/out.bin': 'x' });
    const opened = await openPack({ kind: 'dir', dir }, { env: {} });
    expect(opened.diagnostics).toEqual([]);
    expect(opened.snapshot!.fleet.map((a) => a.id)).toEqual(['ada']);
    const scope = readScopeOf(opened.snapshot!.manifest, LAYOUTS)!;
    expect(scope.has('fleet.yaml')).toBe(true);
    expect(scope.has('build/out.bin')).toBe(false);
    const none = () => false;
    expect(new EventScope().counts(opened.snapshot!, 'fleet.yaml', join(dir, 'fleet.yaml'), none)).toBe(true);
  });

  it('the service reloads on an edit of the named fleet file', async () => {
    const dir = packDir(CLAUDE_WITH_FLEET);
    const store = new SnapshotStore(stablePackLoader({ dir, env: {} }));
    await store.reload('initial');
    expect(store.state?.snapshot?.fleet.map((a) => a.id)).toEqual(['ada']);
    const watcher = watchPack(dir, store, { debounceMs: 20, pollMs: 0 });
    try {
      await watcher.ready;
      await writeFile(
        join(dir, 'fleet.yaml'),
        'agents:\n  - id: ada\n    role: dev\n  - id: bob\n    role: dev\n',
      );
      await waitFor(
        () => (store.state?.snapshot?.fleet.some((a) => a.id === 'bob') ? true : undefined),
        30_000,
        'the fleet edit',
      );
    } finally {
      await watcher.close();
    }
  });

  it('the service keeps its version while a named fleet file is missing, and reads it once it is there', async () => {
    const dir = packDir({ ...CLAUDE_WITH_FLEET, 'config/README.md': 'Team settings.\n' });
    const store = new SnapshotStore(stablePackLoader({ dir, env: {} }));
    await store.reload('initial');
    const watcher = watchPack(dir, store, { debounceMs: 20, pollMs: 0 });
    try {
      await watcher.ready;
      await writeFile(join(dir, 'strata.yaml'), 'extends: claude-agents\nfleet:\n  file: config/team.yaml\n');
      const failed = await waitFor(() => store.lastError ?? undefined, 30_000, 'the failed reload');
      expect(failed.diagnostics.map((d) => d.code)).toEqual(['BAD_FLEET']);
      expect(store.state?.snapshot.fleet.map((a) => a.id)).toEqual(['ada']);
      // Outside what the served version selects: read because the failed manifest names it.
      await writeFile(
        join(dir, 'config', 'team.yaml'),
        'agents:\n  - id: ada\n    role: dev\n  - id: grace\n    role: dev\n',
      );
      await waitFor(
        () => (store.state?.snapshot.fleet.some((a) => a.id === 'grace') ? true : undefined),
        30_000,
        'the named fleet file',
      );
      expect(store.lastError).toBeNull();
    } finally {
      await watcher.close();
    }
  });

  it('strata validate and strata compose read it; a missing one fails them with exit 1', async () => {
    const dir = packDir(CLAUDE_WITH_FLEET);
    const composed = await cli(['compose', '--dir', dir, '--agent', 'ada']);
    expect([composed.code, composed.stdout]).toEqual([0, 'You write code.']);
    const fleet = await cli(['fleet', '--dir', dir]);
    expect(fleet.stdout).toContain('ada');
    const broken = packDir({
      ...CLAUDE_WITH_FLEET,
      'strata.yaml': readFileSync(join(dir, 'strata.yaml'), 'utf8').replace('fleet.yaml', 'fleet.yml'),
    });
    const validated = await cli(['validate', '--dir', broken]);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toBe(
      'error BAD_FLEET: strata.yaml:3:9: fleet.file names "fleet.yml", which is not in the pack; did you mean "fleet.yaml"?\n',
    );
    expect((await cli(['compose', '--dir', broken, '--agent', 'ada'])).code).toBe(1);
  });
});
