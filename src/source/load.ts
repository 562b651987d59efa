import { PromptError } from '../core/diagnostics.js';
import { buildSnapshot, type LoadResult, type Snapshot } from '../core/snapshot.js';
import { type ReadPackOptions, readPackDir } from './read-dir.js';

export interface LoadOptions extends ReadPackOptions {
  /** Force a preset (`roboco`, `chorus`) instead of the pack's manifest or layout. */
  preset?: string;
  /** Environment for settings' env vars and CHORUS paths (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Loads a pack directory into a snapshot. Never throws on bad content: every problem is
 * a diagnostic, and `snapshot` is set only when there is no error.
 *
 * @example
 * const { snapshot, diagnostics } = await loadPack('examples/roboco');
 * if (!snapshot) for (const d of diagnostics) console.error(formatDiagnostic(d));
 */
export async function loadPack(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const read = await readPackDir(dir, options);
  return buildSnapshot({
    files: read.files,
    readDiagnostics: read.diagnostics,
    refused: read.refused,
    env: options.env ?? process.env,
    preset: options.preset,
    root: read.root,
  });
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
