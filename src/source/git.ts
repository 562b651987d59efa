import { spawn } from 'node:child_process';
import { error } from '../core/diagnostics.js';
import { normalisePackPath } from '../core/pack-path.js';
import type { ReadScope } from '../core/read-scope.js';
import { hiddenAllowed } from '../core/select.js';
import { presetHiddenFolders } from '../core/snapshot.js';
import { fileTooLarge, type PackLimits, packTooLarge, resolveLimits, tooManyFiles } from './limits.js';
import type { PackFiles } from './read-dir.js';

/**
 * Reads a pack as it is at a git revision, from git's object store, never touching the
 * working tree or the index (`git rev-parse`, `git ls-tree -r -z --long`,
 * `git cat-file --batch`). The pack may be a subfolder of the repository. The result has
 * the shape of {@link readPackDir}'s, for the pure `buildSnapshot`: hidden entries are
 * skipped, symlinks are followed inside the pack (PATH_OUTSIDE_PACK when they leave it),
 * files over the limit are refused (FILE_TOO_LARGE). Git failures, an unknown revision or
 * a pack folder missing at that revision are GIT_ERROR diagnostics. Submodules (gitlinks)
 * are listed in `gitFolders`, as a folder read lists the folders holding `.git`.
 *
 * @example
 * const read = await readPackAtRevision('examples/roboco', 'HEAD~1');
 * const { snapshot } = buildSnapshot({ files: read.files, readDiagnostics: read.diagnostics });
 */
export async function readPackAtRevision(
  dir: string,
  rev: string,
  options: PackLimits & { scope?: ReadScope } = {},
): Promise<PackFiles & { gitFolders?: string[] }> {
  const out: PackFiles & { files: Map<string, Uint8Array>; gitFolders?: string[] } = {
    root: dir,
    files: new Map(),
    refused: new Set(),
    diagnostics: [],
  };
  const fail = (message: string): PackFiles => {
    out.diagnostics.push(error('GIT_ERROR', message));
    return out;
  };
  if (rev === '' || rev.startsWith('-')) return fail(`${JSON.stringify(rev)} is not a revision`);

  // 1. Where the pack sits in the repository, and the commit.
  const prefix = await git(dir, ['rev-parse', '--show-prefix']);
  if (prefix.code !== 0)
    return fail(`cannot read git history of ${dir}: ${prefix.stderr || `git exited with ${prefix.code}`}`);
  const folder = prefix.stdout.toString('utf8').trim().replace(/\/$/, '');
  const commit = await git(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  if (commit.code !== 0) return fail(`unknown revision ${JSON.stringify(rev)}`);
  const oid = commit.stdout.toString('utf8').trim();

  // 2. Every entry under the pack folder at that commit.
  const tree = await git(dir, [
    'ls-tree',
    '-r',
    '-z',
    '--long',
    '--full-tree',
    folder === '' ? oid : `${oid}:${folder}`,
  ]);
  if (tree.code !== 0) return fail(`the pack folder ${folder || '.'} does not exist at ${rev}`);
  const entries = parseTree(tree.stdout.toString('utf8'));

  // 3. The limits on the whole pack, before any content is read.
  const limits = resolveLimits(options);
  const maxBytes = limits.maxFileBytes;
  // Only the files the pack can select (see `ReadPackOptions.scope`); a tree with a
  // symlink is read whole (a link may lead to a file the scope leaves out).
  const scope = entries.some((e) => e.mode === SYMLINK) ? undefined : options.scope;
  const selected = (path: string) => scope === undefined || scope.has(path);
  const visible = entries.filter((e) => !hidden(e.path) && selected(e.path));
  if (visible.length > limits.maxFiles) {
    out.diagnostics.push(tooManyFiles(limits.maxFiles));
    return out;
  }
  const total = visible.reduce((sum, e) => sum + (e.type === 'blob' && e.size <= maxBytes ? e.size : 0), 0);
  if (total > limits.maxPackBytes) {
    out.diagnostics.push(packTooLarge(total, limits.maxPackBytes));
    return out;
  }

  // A submodule (a gitlink) is a nested repository's root, as its `.git` file says on disk.
  const submodules = entries.filter((e) => e.type === 'commit' && !hidden(e.path)).map((e) => e.path);
  if (submodules.length > 0) out.gitFolders = submodules;

  // 4. Contents of every blob, then symlinks resolved inside the pack.
  const wanted = entries.filter(
    (e) => e.type === 'blob' && (e.mode === SYMLINK || e.size <= maxBytes) && selected(e.path),
  );
  const blobs = await catFiles(dir, [...new Set(wanted.map((e) => e.oid))]);
  if ('error' in blobs) return fail(blobs.error);
  const byPath = new Map(entries.filter((e) => e.type === 'blob').map((e) => [e.path, e]));
  const links = new Map<string, string>();
  for (const e of byPath.values())
    if (e.mode === SYMLINK) links.set(e.path, blobs.map.get(e.oid)!.toString('utf8'));
  const emit = (visible: string, real: string) => {
    const entry = byPath.get(real)!;
    if (entry.size > maxBytes) {
      out.refused.add(visible);
      out.diagnostics.push(fileTooLarge(visible, entry.size, maxBytes));
      return;
    }
    out.files.set(visible, blobs.map.get(entry.oid)!);
  };
  for (const e of byPath.values()) {
    if (hidden(e.path) || !selected(e.path)) continue;
    if (e.mode !== SYMLINK) {
      emit(e.path, e.path);
      continue;
    }
    const real = resolveLinks(e.path, links);
    if (real === OUTSIDE) {
      out.refused.add(e.path);
      out.diagnostics.push(
        error('PATH_OUTSIDE_PACK', `symlink points outside the pack (to ${links.get(e.path)})`, {
          file: e.path,
        }),
      );
      continue;
    }
    if (real !== undefined && byPath.has(real) && !links.has(real)) {
      emit(e.path, real);
      continue;
    }
    const under = real === undefined ? [] : [...byPath.keys()].filter((p) => p.startsWith(`${real}/`));
    if (under.length === 0) {
      out.diagnostics.push(error('READ_ERROR', `broken symlink (to ${links.get(e.path)})`, { file: e.path }));
      out.refused.add(e.path);
      continue;
    }
    for (const p of under) {
      const visible = `${e.path}${p.slice(real!.length)}`;
      if (hidden(visible)) continue;
      const target = links.has(p) ? resolveLinks(p, links) : p;
      if (typeof target === 'string' && byPath.has(target) && !links.has(target)) emit(visible, target);
      else out.diagnostics.push(error('READ_ERROR', 'broken or escaping symlink', { file: visible }));
    }
  }
  return out;
}

// --- internal ---

const SYMLINK = '120000';
const OUTSIDE = Symbol('outside');

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

function parseTree(text: string): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (const record of text.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, oid, size] = record.slice(0, tab).split(/ +/) as [string, string, string, string];
    out.push({ mode, type, oid, size: size === '-' ? 0 : Number(size), path: record.slice(tab + 1) });
  }
  return out;
}

function hidden(path: string): boolean {
  return !hiddenAllowed(presetHiddenFolders(), path);
}

/** Follows symlinks along a pack-relative path; OUTSIDE when one leaves the pack, undefined on a loop. */
function resolveLinks(
  path: string,
  links: ReadonlyMap<string, string>,
  hops = 0,
): string | typeof OUTSIDE | undefined {
  if (hops > 40) return undefined;
  const segs = path.split('/');
  for (let i = 1; i <= segs.length; i++) {
    const prefix = segs.slice(0, i).join('/');
    const target = links.get(prefix);
    if (target === undefined) continue;
    if (target.startsWith('/')) return OUTSIDE;
    const joined = normalisePackPath([...segs.slice(0, i - 1), ...target.split('/')].join('/'));
    if (joined === undefined) return OUTSIDE;
    const rest = segs.slice(i);
    return resolveLinks([...(joined === '' ? [] : [joined]), ...rest].join('/'), links, hops + 1);
  }
  return path;
}

async function catFiles(
  dir: string,
  oids: string[],
): Promise<{ map: Map<string, Buffer> } | { error: string }> {
  const map = new Map<string, Buffer>();
  if (oids.length === 0) return { map };
  const res = await git(dir, ['cat-file', '--batch'], `${oids.join('\n')}\n`);
  if (res.code !== 0) return { error: `git cat-file failed: ${res.stderr}` };
  const buf = res.stdout;
  let pos = 0;
  for (const oid of oids) {
    const nl = buf.indexOf(10, pos);
    const header = buf.subarray(pos, nl).toString('utf8').split(' ');
    if (header[1] === 'missing' || header.length < 3) return { error: `git object ${oid} is missing` };
    const size = Number(header[2]);
    map.set(oid, Buffer.from(buf.subarray(nl + 1, nl + 1 + size)));
    pos = nl + 1 + size + 1;
  }
  return { map };
}

function git(
  cwd: string,
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', ['-c', 'core.quotePath=false', ...args], {
      cwd,
      env: { ...process.env, LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) =>
      resolve({
        code: -1,
        stdout: Buffer.alloc(0),
        stderr: `cannot run git: ${(e as NodeJS.ErrnoException).code ?? e.message}`,
      }),
    );
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8').trim().split('\n')[0] ?? '',
      }),
    );
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}
