import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Codex's project docs, written from codex-rs/core/src/project_doc.rs
// (discover_project_doc_paths, read_project_docs): from the project root (the deepest
// folder on the way down holding `.git`, else the working directory alone) down to the
// working directory, the first of AGENTS.override.md and AGENTS.md in each folder; each
// read up to the budget still left (32 KiB), decoded lossily, kept when not blank (the
// budget then shrinks by its bytes), joined by a blank line. An independent check of
// strata's agents-md layout, used by its tests and by bench/real-layouts.

/** The project docs Codex gives an agent working in `cwd` (relative to `root`, '.' for the root); undefined when Codex cannot run there. */
export function codexProjectDocs(root: string, cwd: string, budget = 32768): string | undefined {
  const dirs = [root];
  if (cwd !== '.') for (const seg of cwd.split('/')) dirs.push(join(dirs.at(-1)!, seg));
  if (!existsSync(dirs.at(-1)!)) return undefined;
  const start = dirs.findLastIndex((d) => existsSync(join(d, '.git')));
  let remaining = budget;
  const parts: string[] = [];
  for (const dir of start === -1 ? dirs.slice(-1) : dirs.slice(start)) {
    if (remaining === 0) break;
    const file = ['AGENTS.override.md', 'AGENTS.md'].map((n) => join(dir, n)).find((p) => existsSync(p));
    if (!file) continue;
    const data = readFileSync(file).subarray(0, remaining);
    const text = new TextDecoder().decode(data);
    if (text.trim() !== '') {
      parts.push(text);
      remaining -= data.length;
    }
  }
  return parts.join('\n\n');
}
