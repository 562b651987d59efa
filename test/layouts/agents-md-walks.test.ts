import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { derived, packFolders } from '../../src/core/build/derived.js';
import { composeReading, tryCompose } from '../../src/core/compose/compose.js';
import { sha256 } from '../../src/core/text/text.js';
import { loadPack } from '../../src/source/load.js';
import { memPack, tempDir, writeFiles } from '../helpers.js';

// A chain's walk down to a folder is worked out once per snapshot and folder: the second
// compose of a working directory, and every other one there, must be what a compose that
// looks every file up again gives (`composeReading` does, telling each path it reads).

const FILES = {
  'AGENTS.md': '# Rules\n\nRun the tests.\n',
  'frontend/AGENTS.md': '# Frontend\n\nUse pnpm.\n',
  'frontend/AGENTS.override.md': '# Frontend, overridden\n\nUse bun. é\n',
  'frontend/src/AGENTS.md': '   \n',
  'frontend/src/deep/AGENTS.md': '# Deep\n\n'.padEnd(400, 'x'),
  'backend/AGENTS.md': '# Backend\n\nGo.\n',
};

async function pack() {
  const dir = realpathSync(tempDir('strata-agents-md-walks-'));
  writeFiles(dir, FILES);
  mkdirSync(join(dir, '.git'));
  mkdirSync(join(dir, 'frontend/src/empty'), { recursive: true });
  const { snapshot } = await loadPack(dir, { env: {} });
  return snapshot!;
}

/** What a reader of the outcome sees: the text, each part and its hash, the diagnostics. */
function seen(outcome: ReturnType<typeof tryCompose>) {
  if (!outcome.ok) return { codes: outcome.diagnostics.map((d) => [d.code, d.message]) };
  const bytes = Buffer.from(outcome.result.text);
  return {
    text: outcome.result.text,
    sha256: outcome.result.sha256,
    codes: outcome.result.diagnostics.map((d) => [d.code, d.message]),
    parts: outcome.result.layers.flatMap((l) =>
      (l.parts ?? []).map((p) => ({
        ...p,
        // Each included part's hash is the hash of its bytes in the prompt.
        hashed: p.included ? sha256(bytes.subarray(p.start!, p.end!).toString()) === p.sha256 : undefined,
      })),
    ),
  };
}

describe('agents-md: a chain walk kept per folder', () => {
  const CWDS = [
    '.',
    'frontend',
    'frontend/src',
    'frontend/src/deep',
    'frontend/src/empty',
    'backend',
    'Frontend/src',
    'frontend/scr',
    '../x',
  ];

  it('gives, on every compose, what looking every file up again gives', async () => {
    const snapshot = await pack();
    // Other spellings of a folder: absolute inside the pack, with a trailing slash, with `./`.
    const spellings = [`${snapshot.root}/frontend/src`, `${snapshot.root}`, 'frontend/', './frontend'];
    for (const budget of [undefined, 60, 100000]) {
      for (const round of [1, 2]) {
        for (const cwd of [...CWDS, ...spellings]) {
          const request = {
            vars: { cwd },
            ...(budget === undefined ? {} : { settings: { project_doc_max_bytes: budget } }),
          };
          const looked: string[] = [];
          const reading = seen(composeReading(snapshot, request, (p) => looked.push(p)));
          expect([round, cwd, seen(tryCompose(snapshot, request))]).toEqual([round, cwd, reading]);
          if (cwd === 'frontend/src/deep') expect(looked).toContain('frontend/src/deep/AGENTS.md');
        }
      }
    }
  });

  it('walks down from the folder above, and starts again at a nested repository, in any order of first composes', async () => {
    // Random trees of folders, some holding AGENTS.md or AGENTS.override.md, some a `.git`
    // of their own; every folder composed once on a fresh snapshot, deepest or shallowest
    // first, against a compose that looks every file up.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor(seed / 65536) % n;
    };
    for (let tree = 0; tree < 12; tree++) {
      const dir = realpathSync(tempDir('strata-agents-md-tree-'));
      const folders = [''];
      for (let i = 0; i < 14; i++) {
        const parent = folders[random(folders.length)]!;
        folders.push(parent === '' ? `f${i}` : `${parent}/f${i}`);
      }
      const files: Record<string, string> = {};
      for (const folder of folders) {
        const at = (name: string) => (folder === '' ? name : `${folder}/${name}`);
        const pick = random(4);
        if (pick >= 1) files[at('AGENTS.md')] = `# ${folder || 'root'}\n`;
        if (pick === 3) files[at('AGENTS.override.md')] = `# ${folder || 'root'}, overridden\n`;
        if (pick === 0) files[at('notes.txt')] = 'not read\n';
      }
      writeFiles(dir, files);
      for (const folder of folders) {
        mkdirSync(join(dir, folder), { recursive: true });
        if (folder !== '' && random(4) === 0) mkdirSync(join(dir, folder, '.git'));
      }
      const order = tree % 2 === 0 ? [...folders].reverse() : [...folders].sort(() => random(3) - 1);
      const { snapshot } = await loadPack(dir, { env: {} });
      for (const folder of order) {
        const request = { vars: { cwd: folder || '.' } };
        const reading = seen(composeReading(snapshot!, request, () => {}));
        expect([tree, folder, seen(tryCompose(snapshot!, request))]).toEqual([tree, folder, reading]);
      }
    }
  });

  it('walks down a folder 1,200 deep, each with an AGENTS.md, as looking every file up does', () => {
    const files: Record<string, string> = { 'AGENTS.md': 'root\n' };
    let folder = '';
    for (let i = 0; i < 1200; i++) {
      folder = folder === '' ? `d${i % 10}` : `${folder}/d${i % 10}`;
      if (i % 3 === 0) files[`${folder}/AGENTS.md`] = `level ${i}\n`;
    }
    const { snapshot } = memPack(files, { preset: 'agents-md' });
    const request = { vars: { cwd: folder }, settings: { project_doc_max_bytes: 1_000_000 } };
    const reading = seen(composeReading(snapshot!, request, () => {}));
    expect(seen(tryCompose(snapshot!, request))).toEqual(reading);
    expect(reading.parts).toHaveLength(401);
    const middle = folder.slice(0, folder.indexOf('/', folder.length / 2));
    const half = { vars: { cwd: middle } };
    expect(seen(tryCompose(snapshot!, half))).toEqual(seen(composeReading(snapshot!, half, () => {})));
  });

  it("makes the pack's folders with the snapshot, as they are once it is whole", async () => {
    const dir = realpathSync(tempDir('strata-agents-md-folders-'));
    writeFiles(dir, { 'AGENTS.md': 'root\n', 'sub/AGENTS.md': 'sub\n' });
    mkdirSync(join(dir, 'sub/.git'));
    mkdirSync(join(dir, 'repo/.git'), { recursive: true });
    mkdirSync(join(dir, 'broken/deeper'), { recursive: true });
    // A link leaving the pack: a file there that is never read.
    const outside = realpathSync(tempDir('strata-agents-md-outside-'));
    writeFiles(outside, { 'shared.md': 'shared\n' });
    symlinkSync(join(outside, 'shared.md'), join(dir, 'broken/deeper/AGENTS.md'));
    const { snapshot } = await loadPack(dir, { env: {} });
    expect(snapshot!.unreadable?.has('broken/deeper/AGENTS.md')).toBe(true);
    const made = [...packFolders(snapshot!)].sort();
    // A copy of the snapshot has none of its look-ups: its folders are worked out now.
    expect(made).toEqual([...packFolders({ ...snapshot! })].sort());
    expect(made).toEqual(['broken', 'broken/deeper', 'repo', 'sub']);
  });

  it('keeps a walk only for a folder as the pack spells it: other spellings are endless', async () => {
    const snapshot = await pack();
    const canonical = seen(tryCompose(snapshot, { vars: { cwd: 'frontend/src' } }));
    for (let i = 0; i < 50; i++) {
      const cwd = `frontend/x${i}/../src`;
      expect([cwd, seen(tryCompose(snapshot, { vars: { cwd } })).text]).toEqual([cwd, canonical.text]);
    }
    tryCompose(snapshot, { vars: { cwd: '.' } });
    // The walks kept: the folder's, and those of the folders on the way down to it.
    const kept = derived(snapshot, 'chain-walks', () => new Map<unknown, Map<string, unknown>>());
    const paths = [...kept.values()].flatMap((byPath) => [...byPath.keys()]);
    expect(paths.sort()).toEqual(['', 'frontend', 'frontend/src']);
  });

  it('hashes a part that is a whole file as the file, and a cut part as its bytes', async () => {
    const snapshot = await pack();
    const whole = tryCompose(snapshot, { vars: { cwd: 'frontend/src/deep' } });
    const cut = tryCompose(snapshot, {
      vars: { cwd: 'frontend/src/deep' },
      settings: { project_doc_max_bytes: 80 },
    });
    expect(whole.ok && cut.ok).toBe(true);
    if (!whole.ok || !cut.ok) return;
    expect(whole.result.layers[0]!.parts!.map((p) => [p.source, p.included, p.truncatedFrom])).toEqual([
      ['AGENTS.md', true, undefined],
      ['frontend/AGENTS.override.md', true, undefined],
      ['frontend/src/AGENTS.md', false, undefined],
      ['frontend/src/deep/AGENTS.md', true, undefined],
    ]);
    expect(seen(whole).parts!.every((p) => p.hashed !== false)).toBe(true);
    const parts = cut.result.layers[0]!.parts!;
    expect(parts.some((p) => p.truncatedFrom !== undefined)).toBe(true);
    expect(seen(cut).parts!.every((p) => p.hashed !== false)).toBe(true);
  });
});

describe('agents-md: an empty working directory', () => {
  it.each([
    ['cwd=""', { cwd: '' }],
    ['cwd="."', { cwd: '.' }],
    ['no cwd', undefined],
  ])(
    '%s is the root, as path.relative(root, root) writes it: the root file, never no file',
    async (_, vars) => {
      const snapshot = await pack();
      const outcome = tryCompose(snapshot, vars ? { vars } : {});
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
      expect(outcome.result.text).toBe(FILES['AGENTS.md']);
      expect(outcome.result.diagnostics).toEqual([]);
      expect(outcome.result.fallback).toBeFalsy();
    },
  );
});
