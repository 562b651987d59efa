import { derived, recordsByFile } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot-types.js';
import type { Diagnostic } from '../text/diagnostics.js';

// A prompt carries the load warnings of the files its text came from: a file read with
// bytes that are not UTF-8 (U+FFFD in the prompt), frontmatter that parsed only quoted,
// an agent that replaced another of the same name. Said once at load (`validate`,
// `/api/status`), they were missing from the prompt's own answer, so a client reading
// only that answer was served the text without a word.

/** The part of a composed layer this needs: where its text, and its parts' texts, came from. */
interface SourcedLayer {
  included: boolean;
  source?: string;
  parts?: ReadonlyArray<{ source: string; included: boolean }>;
}

/**
 * The snapshot's load warnings about the files the included layers' text came from, in
 * load order. A file that defines several role records (a YAML file of
 * records) is left out: its warnings are about records, most of them another role's.
 *
 * @example
 * sourceWarnings(snapshot, result.layers); // [INVALID_UTF8 at sub/notes.md:1:4]
 */
export function sourceWarnings(snapshot: Snapshot, layers: readonly SourcedLayer[]): Diagnostic[] {
  if (snapshot.warnings.length === 0) return [];
  const index = derived(snapshot, 'warnings-by-file', indexWarnings);
  if (index.byFile.size === 0) return [];
  const found = new Set<Diagnostic>();
  const add = (file: string | undefined) => {
    if (file === undefined || (index.records.get(file) ?? 0) > 1) return;
    for (const d of index.byFile.get(file) ?? []) found.add(d);
  };
  for (const layer of layers) {
    if (!layer.included) continue;
    add(layer.source);
    for (const part of layer.parts ?? []) if (part.included) add(part.source);
  }
  if (found.size === 0) return [];
  return snapshot.warnings.filter((d) => found.has(d));
}

// --- internal ---

interface WarningIndex {
  /** Warnings by the file they are about. */
  byFile: Map<string, Diagnostic[]>;
  /** How many role records each file defines. */
  records: ReadonlyMap<string, number>;
}

function indexWarnings(snapshot: Snapshot): WarningIndex {
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of snapshot.warnings) {
    if (d.file === undefined) continue;
    const list = byFile.get(d.file);
    if (list) list.push(d);
    else byFile.set(d.file, [d]);
  }
  return { byFile, records: byFile.size > 0 ? recordsByFile(snapshot) : new Map() };
}
