import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { presetHiddenFolders } from '../core/build/detect.js';
import type { ReadScope } from '../core/build/read-scope.js';
import { normalisePackPath } from '../core/pack/pack-path.js';
import { hiddenAllowed } from '../core/pack/select.js';
import { error } from '../core/text/diagnostics.js';
import { LAYOUTS } from '../layouts/registry.js';
import { fileTooLarge, type PackLimits, packTooLarge, resolveLimits, tooManyFiles } from './limits.js';
import type { PackFiles } from './read-dir.js';

/**
 * Reads a pack as it is at a git revision, from git's object store, never touching the
 * working tree or the index (`git rev-parse`, `git ls-tree -r -z --long`,
 * `git cat-file --batch`). The pack may be a subfolder of the repository. The result has
 * the shape of {@link readPackDir}'s, for the pure `buildSnapshot`: hidden entries are
 * skipped but for the folders named in `hidden` (default: those a built-in preset reads),
 * symlinks are followed inside the pack as on disk (a link to a folder shows its files
 * under both paths; one to a folder above it, a loop, is not walked again;
 * PATH_OUTSIDE_PACK when one leaves it), files over the limit are refused (FILE_TOO_LARGE). Git failures, an unknown revision or
 * a pack folder missing at that revision are GIT_ERROR diagnostics. Submodules (gitlinks)
 * are listed in `gitFolders`, as a folder read lists the folders holding `.git`; a
 * checked-out one's files are read from its own repository at the commit the revision
 * records (one not checked out is an empty folder, as on disk).
 *
 * @example
 * const read = await readPackAtRevision('examples/roboco', 'HEAD~1');
 * const { snapshot } = buildSnapshot({ files: read.files, readDiagnostics: read.diagnostics });
 */
export async function readPackAtRevision(
  dir: string,
  rev: string,
  options: PackLimits & { scope?: ReadScope; hidden?: readonly string[] } = {},
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
  const listing = await git(dir, [
    'ls-tree',
    '-r',
    '-z',
    '--long',
    '--full-tree',
    folder === '' ? oid : `${oid}:${folder}`,
  ]);
  if (listing.code !== 0) return fail(`the pack folder ${folder || '.'} does not exist at ${rev}`);
  const entries = parseTree(listing.stdout);
  // A checked-out submodule's files at the commit the revision records, as a folder read
  // shows the submodule's files (one not checked out is an empty folder there too).
  await addSubmodules(dir, entries, 0);

  // 3. The pack as a folder read shows it: symlinks followed inside the pack (a link to a
  // folder shows its files under the link's path too), hidden entries skipped; then the
  // limits on the whole pack, before any content is read.
  const limits = resolveLimits(options);
  const maxBytes = limits.maxFileBytes;
  const names = options.hidden ?? presetHiddenFolders(LAYOUTS);
  // Only the files the pack can select (see `ReadScope`); a tree with a symlink is read
  // whole (a link may lead to a file the scope leaves out).
  const scope = entries.some((e) => e.mode === SYMLINK) ? undefined : options.scope;
  const tree = treeOf(entries);
  const links = new Map<string, string>();
  const linkBlobs = await catFilesOf(
    dir,
    entries.filter((e) => e.mode === SYMLINK),
  );
  if ('error' in linkBlobs) return fail(linkBlobs.error);
  for (const e of entries)
    if (e.mode === SYMLINK) links.set(e.path, linkBlobs.map.get(e.oid)!.toString('utf8'));
  // Where the pack's folder is on this machine, for absolute links into it.
  const roots = [...new Set([resolve(dir), await fs.realpath(dir).catch(() => resolve(dir))])];
  const shown = walkTree(tree, links, roots, names, scope, limits.maxFiles, out);
  if (shown.over) {
    out.diagnostics.push(tooManyFiles(limits.maxFiles));
    return out;
  }
  const total = shown.files.reduce((sum, f) => sum + (f.entry.size <= maxBytes ? f.entry.size : 0), 0);
  if (total > limits.maxPackBytes) {
    out.diagnostics.push(packTooLarge(total, limits.maxPackBytes));
    return out;
  }
  // A submodule (a gitlink) is a nested repository's root, as its `.git` file says on disk.
  if (shown.submodules.length > 0) out.gitFolders = shown.submodules;

  // 4. Contents of every blob shown.
  const blobs = await catFilesOf(
    dir,
    shown.files.filter((f) => f.entry.size <= maxBytes).map((f) => f.entry),
  );
  if ('error' in blobs) return fail(blobs.error);
  for (const { path, entry } of shown.files) {
    if (entry.size > maxBytes) {
      out.refused.add(path);
      out.diagnostics.push(fileTooLarge(path, entry.size, maxBytes));
    } else out.files.set(path, blobs.map.get(entry.oid)!);
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
  /** The name in the tree is not UTF-8 (`path` shows it with U+FFFD). */
  notUtf8?: true;
  /** The repository holding the object, when not the pack's (a submodule's). */
  repo?: string;
}

/** Submodules within submodules are read this deep. */
const MAX_SUBMODULE_DEPTH = 8;

/**
 * Adds the entries of every checked-out submodule (a gitlink whose folder is the top of its
 * own repository) at the commit the gitlink records, under the gitlink's path.
 */
async function addSubmodules(dir: string, entries: TreeEntry[], depth: number): Promise<void> {
  if (depth >= MAX_SUBMODULE_DEPTH) return;
  for (const link of entries.filter((e) => e.type === 'commit')) {
    const sub = join(dir, ...link.path.split('/'));
    const top = await git(sub, ['rev-parse', '--show-toplevel']);
    if (top.code !== 0) continue;
    const real = await fs.realpath(sub).catch(() => undefined);
    if (real === undefined || top.stdout.toString('utf8').trim() !== real) continue;
    const listing = await git(sub, ['ls-tree', '-r', '-z', '--long', '--full-tree', link.oid]);
    if (listing.code !== 0) continue;
    const inner = parseTree(listing.stdout).map((e) => ({ ...e, path: `${link.path}/${e.path}`, repo: sub }));
    await addSubmodules(dir, inner, depth + 1);
    entries.push(...inner);
  }
}

function parseTree(listing: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (let at = 0; at < listing.length; ) {
    let end = listing.indexOf(0, at);
    if (end === -1) end = listing.length;
    const tab = listing.indexOf(0x09, at);
    if (tab !== -1 && tab < end) {
      const [mode, type, oid, size] = listing.toString('latin1', at, tab).split(/ +/) as [
        string,
        string,
        string,
        string,
      ];
      const name = listing.subarray(tab + 1, end);
      const entry: TreeEntry = { mode, type, oid, size: size === '-' ? 0 : Number(size), path: '' };
      try {
        entry.path = strictUtf8.decode(name);
      } catch {
        // Shown with U+FFFD, as the folder reader shows such a name, and never read.
        entry.path = name.toString('utf8');
        entry.notUtf8 = true;
      }
      out.push(entry);
    }
    at = end + 1;
  }
  return out;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A folder of the tree at the revision: its entries by name (a blob, a gitlink, or a folder). */
interface Folder {
  children: Map<string, TreeEntry | Folder>;
  /** A submodule's folder (a gitlink): a nested repository's root. */
  submodule?: true;
}

function treeOf(entries: readonly TreeEntry[]): Folder {
  const root: Folder = { children: new Map() };
  for (const e of entries) {
    const parts = e.path.split('/');
    let at = root;
    for (const part of parts.slice(0, -1)) {
      let next = at.children.get(part);
      if (next === undefined || !('children' in next)) {
        next = { children: new Map() };
        at.children.set(part, next);
      }
      at = next;
    }
    const name = parts[parts.length - 1]!;
    if (e.type === 'commit') {
      // A gitlink is a folder: its files, when its repository is checked out, go in it.
      const had = at.children.get(name);
      const folder: Folder = had !== undefined && 'children' in had ? had : { children: new Map() };
      folder.submodule = true;
      at.children.set(name, folder);
    } else at.children.set(name, e);
  }
  return root;
}

function lookup(tree: Folder, path: string): TreeEntry | Folder | undefined {
  let at: TreeEntry | Folder = tree;
  for (const part of path === '' ? [] : path.split('/')) {
    if (!('children' in at)) return undefined;
    const next: TreeEntry | Folder | undefined = at.children.get(part);
    if (next === undefined) return undefined;
    at = next;
  }
  return at;
}

/**
 * The files (and submodules) a folder read of the pack would show, by their visible
 * paths: a symlink to a file is that file, to a folder that folder's entries under the
 * link's path (a link to a folder on the way down, a loop, is not walked again, as on
 * disk); one leaving the pack is PATH_OUTSIDE_PACK, one leading nowhere READ_ERROR.
 */
function walkTree(
  tree: Folder,
  links: ReadonlyMap<string, string>,
  roots: readonly string[],
  names: readonly string[],
  scope: ReadScope | undefined,
  maxEntries: number,
  out: PackFiles,
): { files: { path: string; entry: TreeEntry }[]; submodules: string[]; over: boolean } {
  const files: { path: string; entry: TreeEntry }[] = [];
  const submodules: string[] = [];
  // Entries shown (files and folders, as a folder read counts them): links that fan out
  // stop the walk at the limit.
  let count = 0;
  const walk = (folder: Folder, real: string, visible: string, above: Set<string>) => {
    for (const [name, child] of folder.children) {
      if (count > maxEntries) return;
      const path = visible === '' ? name : `${visible}/${name}`;
      if (!hiddenAllowed(names, path)) continue;
      if (!('children' in child) && child.notUtf8) {
        if (scope !== undefined && !scope.has(path)) continue;
        out.refused.add(path);
        out.diagnostics.push(
          error(
            'READ_ERROR',
            'cannot read entry: its name is not valid UTF-8 (strata reads file names as UTF-8): rename it',
            { file: path },
          ),
        );
        continue;
      }
      let node: TreeEntry | Folder | undefined = child;
      let target = real === '' ? name : `${real}/${name}`;
      if (!('children' in child) && child.mode === SYMLINK) {
        const resolved = resolveLinks(target, links, roots);
        if (resolved === OUTSIDE) {
          out.refused.add(path);
          out.diagnostics.push(
            error('PATH_OUTSIDE_PACK', `symlink points outside the pack (to ${links.get(child.path)})`, {
              file: path,
            }),
          );
          continue;
        }
        node = resolved === undefined ? undefined : lookup(tree, resolved);
        if (resolved === undefined || node === undefined || (!('children' in node) && node.type !== 'blob')) {
          if (scope !== undefined && !scope.has(path)) continue;
          out.refused.add(path);
          // A link to nothing in the revision (or to a submodule): no file there.
          out.gone ??= new Set();
          out.gone.add(path);
          out.diagnostics.push(
            error('READ_ERROR', `broken symlink (to ${links.get(child.path)})`, { file: path }),
          );
          continue;
        }
        target = resolved;
      }
      if ('children' in node) {
        if (above.has(target)) continue;
        count++;
        if (node.submodule) submodules.push(path);
        above.add(target);
        walk(node, target, path, above);
        above.delete(target);
      } else if (scope === undefined || scope.has(path)) {
        count++;
        files.push({ path, entry: node });
      }
    }
  };
  walk(tree, '', '', new Set(['']));
  return { files, submodules, over: count > maxEntries };
}

/** Follows symlinks along a pack-relative path; OUTSIDE when one leaves the pack, undefined on a loop. */
function resolveLinks(
  path: string,
  links: ReadonlyMap<string, string>,
  roots: readonly string[],
  hops = 0,
): string | typeof OUTSIDE | undefined {
  if (hops > 40) return undefined;
  const segs = path.split('/');
  for (let i = 1; i <= segs.length; i++) {
    const prefix = segs.slice(0, i).join('/');
    const target = links.get(prefix);
    if (target === undefined) continue;
    let joined: string | undefined;
    if (target.startsWith('/')) {
      // An absolute link into the pack's folder on this machine leads where it does on disk.
      const root = roots.find((r) => target === r || target.startsWith(`${r}/`));
      if (root === undefined) return OUTSIDE;
      joined = normalisePackPath(target.slice(root.length + 1));
    } else joined = normalisePackPath([...segs.slice(0, i - 1), ...target.split('/')].join('/'));
    if (joined === undefined) return OUTSIDE;
    const rest = segs.slice(i);
    return resolveLinks([...(joined === '' ? [] : [joined]), ...rest].join('/'), links, roots, hops + 1);
  }
  return path;
}

/** The contents of entries' blobs by oid, each read from its own repository. */
async function catFilesOf(
  dir: string,
  wanted: readonly TreeEntry[],
): Promise<{ map: Map<string, Buffer> } | { error: string }> {
  const byRepo = new Map<string, Set<string>>();
  for (const e of wanted) {
    const repo = e.repo ?? dir;
    let oids = byRepo.get(repo);
    if (!oids) {
      oids = new Set();
      byRepo.set(repo, oids);
    }
    oids.add(e.oid);
  }
  const map = new Map<string, Buffer>();
  for (const [repo, oids] of byRepo) {
    const got = await catFiles(repo, [...oids]);
    if ('error' in got) return got;
    for (const [oid, bytes] of got.map) map.set(oid, bytes);
  }
  return { map };
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
