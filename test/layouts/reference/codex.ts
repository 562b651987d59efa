import { existsSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';

// Codex's project docs, written from codex-rs/core/src/agents_md.rs (formerly
// project_doc.rs: agents_md_paths, read_agents_md): from the project root (the deepest
// folder on the way down holding `.git`, else the working directory alone) down to the
// working directory, the first of AGENTS.override.md and AGENTS.md in each folder that is a
// file once symlinks are followed (a dangling link, a folder or a FIFO is passed over for
// the next name); each read up to the budget still left (32 KiB, cut at that byte even
// inside a character), decoded lossily as String::from_utf8_lossy decodes (a byte order
// mark is text, kept), kept when not blank as Rust's str::trim sees it (Unicode
// White_Space only: U+FEFF is no space there) and the budget then shrinks by the bytes
// kept, joined by a blank line. A lookup that fails otherwise than for a missing entry (a
// `.git` or a candidate whose symlinks loop, met before the walk finds its start folder or
// the folder's file) fails the whole read: Codex then gives no project docs. An independent check of strata's agents-md layout, used by
// its tests and by bench/real-layouts.

/** The project docs Codex gives an agent working in `cwd` (relative to `root`, '.' for the root); undefined when Codex cannot run there. */
export function codexProjectDocs(root: string, cwd: string, budget = 32768): string | undefined {
  const dirs = [root];
  if (cwd !== '.') for (const seg of cwd.split('/')) dirs.push(join(dirs.at(-1)!, seg));
  if (!existsSync(dirs.at(-1)!)) return undefined;
  let start = -1;
  const files: string[] = [];
  try {
    for (let i = dirs.length - 1; i >= 0 && start === -1; i--) if (look(join(dirs[i]!, '.git'))) start = i;
    for (const dir of start === -1 ? dirs.slice(-1) : dirs.slice(start)) {
      const file = ['AGENTS.override.md', 'AGENTS.md']
        .map((n) => join(dir, n))
        .find((p) => look(p)?.isFile());
      if (file) files.push(file);
    }
  } catch {
    return '';
  }
  let remaining = budget;
  const parts: string[] = [];
  for (const file of files) {
    if (remaining === 0) break;
    const data = readFileSync(file).subarray(0, remaining);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(data);
    if (!RUST_BLANK.test(text)) {
      parts.push(text);
      remaining -= data.length;
    }
  }
  return parts.join('\n\n');
}

// --- internal ---

/** What is at a path once symlinks are followed (Codex's metadata check): undefined when nothing; throws on any other failure (a symlink loop). */
function look(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Empty or only Unicode White_Space: what Rust's `str::trim` leaves empty. */
const RUST_BLANK = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;
