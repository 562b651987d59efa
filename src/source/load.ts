import type { LoadResult, Snapshot } from '../core/build/snapshot.js';
import { PromptError } from '../core/text/diagnostics.js';
import { type OpenOptions, openPack } from './open.js';
import { folderProblem } from './source-shape.js';

/** Options of {@link loadPack}: those of {@link openPack} but the build step. */
export type LoadOptions = Omit<OpenOptions, 'build'>;

/**
 * Loads a pack directory: `openPack({ kind: 'dir', dir }, options)`. Never throws on bad
 * content: every problem is a diagnostic, and `snapshot` is set only when there is no
 * error; a `dir` that is not a string (from untyped code) is a BAD_REQUEST diagnostic.
 *
 * @example
 * const { snapshot, diagnostics } = await loadPack('examples/roboco');
 * if (!snapshot) for (const d of diagnostics) console.error(formatDiagnostic(d));
 */
export async function loadPack(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const problem = folderProblem(dir);
  if (problem) return { diagnostics: [problem] };
  return openPack({ kind: 'dir', dir }, options);
}

/**
 * Like {@link loadPack}, but throws a {@link PromptError} carrying every diagnostic when
 * the pack has an error.
 */
export async function loadPackStrict(dir: string, options: LoadOptions = {}): Promise<Snapshot> {
  const result = await loadPack(dir, options);
  if (!result.snapshot) throw new PromptError(result.diagnostics);
  return result.snapshot;
}
