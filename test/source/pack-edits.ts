import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { DiskPackFiles } from '../../src/source/read-dir.js';
import { tempDir } from '../helpers.js';

// Random edits of a small plain pack, each with the paths a watcher would name for it:
// what the hinted read and the poll's identity check are tested against.

/** A small plain pack: a few roles and teams, a nested folder, a base (its folder added to `made`). */
export function plainPack(made: string[]): string {
  const dir = tempDir('strata-hinted-');
  made.push(dir);
  mkdirSync(join(dir, 'roles'));
  mkdirSync(join(dir, 'teams/deep'), { recursive: true });
  writeFileSync(join(dir, 'base.md'), 'Base.');
  for (let i = 0; i < 4; i++) writeFileSync(join(dir, `roles/r${i}.md`), `Role ${i}.`);
  for (let i = 0; i < 2; i++) writeFileSync(join(dir, `teams/t${i}.md`), `Team ${i}.`);
  writeFileSync(join(dir, 'teams/deep/d.md'), 'Deep.');
  return dir;
}

export function observe(read: DiskPackFiles) {
  return {
    files: [...read.files].map(([path, bytes]) => [path, Buffer.from(bytes).toString('latin1')]).sort(),
    refused: [...read.refused].sort(),
    diagnostics: read.diagnostics,
  };
}

export function codesOf(read: DiskPackFiles): string[] {
  return read.diagnostics.map((d) => d.code);
}

export type Edit = { kind: (typeof KINDS)[number]; a: number; b: number; text: string; extra: boolean };

const KINDS = [
  'write',
  'append',
  'delete',
  'create',
  'create-in-new-folder',
  'delete-folder',
  'rename-file',
  'rename-folder',
  'hidden',
  'noise',
] as const;

export const EDIT = fc.record({
  kind: fc.constantFrom(...KINDS),
  a: fc.nat(1000),
  b: fc.nat(1000),
  text: fc.string({ maxLength: 12 }),
  extra: fc.boolean(),
});

/** Applies one edit; returns the paths a watcher would name for it. */
export function apply(dir: string, edit: Edit): string[] {
  const { files, folders } = entries(dir);
  const file = files.length > 0 ? files[edit.a % files.length]! : undefined;
  const folder = folders[edit.b % folders.length]!; // '' is the root
  const at = (rel: string) => join(dir, rel);
  const inFolder = (f: string, name: string) => (f === '' ? name : `${f}/${name}`);
  switch (edit.kind) {
    case 'write':
      if (!file) return [];
      writeFileSync(at(file), edit.text);
      return [file];
    case 'append':
      if (!file) return [];
      appendFileSync(at(file), edit.text || '+');
      return [file];
    case 'delete':
      if (!file) return [];
      rmSync(at(file));
      return [file];
    case 'create': {
      const rel = inFolder(folder, `new${edit.a}.md`);
      if (existsSync(at(rel))) return [];
      writeFileSync(at(rel), edit.text);
      return [rel];
    }
    case 'create-in-new-folder': {
      const top = inFolder(folder, `f${edit.a}`);
      if (existsSync(at(top))) return [];
      const rel = edit.extra ? `${top}/g${edit.b}/x.md` : `${top}/x.md`;
      mkdirSync(join(at(rel), '..'), { recursive: true });
      writeFileSync(at(rel), edit.text);
      return edit.extra ? [top, rel] : [top];
    }
    case 'delete-folder': {
      if (folder === '') return [];
      const inside = files.filter((f) => f.startsWith(`${folder}/`));
      rmSync(at(folder), { recursive: true });
      return edit.extra ? [folder, ...inside] : [folder];
    }
    case 'rename-file': {
      if (!file) return [];
      const to = inFolder(folder, `moved${edit.b}.md`);
      if (existsSync(at(to)) && !files.includes(to)) return [];
      renameSync(at(file), at(to));
      return [file, to];
    }
    case 'rename-folder': {
      if (folder === '') return [];
      const parents = folders.filter((f) => f !== folder && !f.startsWith(`${folder}/`));
      const parent = parents[edit.a % parents.length]!;
      const to = inFolder(parent, `moved${edit.a}`);
      if (existsSync(at(to))) return [];
      renameSync(at(folder), at(to));
      return [folder, to];
    }
    case 'hidden': {
      const rel = inFolder(folder, '.swap');
      writeFileSync(at(rel), edit.text);
      return [rel];
    }
    case 'noise':
      return file ? [file] : [folder || 'base.md'];
  }
}

/** The pack's files and folders ('' for the root), hidden ones left out. */
export function entries(dir: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [''];
  const walk = (rel: string) => {
    for (const e of readdirSync(rel === '' ? dir : join(dir, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        folders.push(path);
        walk(path);
      } else files.push(path);
    }
  };
  walk('');
  return { files: files.sort(), folders: folders.sort() };
}
