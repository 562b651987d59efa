import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { degradation } from '../../src/core/compose/degradation.js';
import { createEngine } from '../../src/engine/engine.js';

/** The engine the comparison tests build and compare with (one, so it knows what it patched). */
export const engine = createEngine();
const { buildSnapshot, comparePacks, indexPack } = engine;

import { changedPrompts } from '../../src/reload/changes.js';
import { EXAMPLES } from '../helpers.js';

// What the comparison tests share: packs in memory, a builder that reuses unchanged
// files' bytes as a reload does, and the check of a sequence of edits against composing
// every member of both versions.

/** A pack in memory: path → text. */
export type Files = Map<string, string>;

export function examplePack(name: string): Files {
  const root = join(EXAMPLES, name);
  const out: Files = new Map();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else out.set(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'));
    }
  };
  walk(root);
  return out;
}

/**
 * Builds a snapshot as a reload does: an unchanged file keeps its bytes object (so its
 * parsed form is reused), a changed one gets new bytes, and the build starts from the last
 * snapshot it built.
 */
export function builder() {
  const bytes = new Map<string, { text: string; bytes: Uint8Array }>();
  let previous: Snapshot | undefined;
  return (files: Files): Snapshot | undefined => {
    const input = new Map<string, Uint8Array>();
    for (const [path, text] of files) {
      let kept = bytes.get(path);
      if (!kept || kept.text !== text) {
        kept = { text, bytes: new TextEncoder().encode(text) };
        bytes.set(path, kept);
      }
      input.set(path, kept.bytes);
    }
    // Started from the last version built, as a reload does (when only a few files changed).
    const built = buildSnapshot({ files: input, env: {}, ...(previous ? { previous } : {}) }).snapshot;
    previous = built ?? previous;
    return built;
  };
}

/** One change to a pack in memory. */
export type Edit = (files: Files) => void;

/** Applies each batch of edits, comparing each new version with the one served. */
export async function checkSequence(start: Files, edits: Edit[][]): Promise<void> {
  const build = builder();
  const files = new Map(start);
  let served = build(files)!;
  expect(served).toBeDefined();
  // Half the runs start from an indexed snapshot, half let the first comparison index it.
  if (edits.length % 2 === 0) await indexPack(served);
  for (const batch of edits) {
    for (const e of batch) e(files);
    const next = build(files);
    if (!next) continue; // a pack with errors is never compared: the served one stays
    const incremental = await comparePacks(served, next);
    expect(incremental.changes).toEqual(changedPrompts(served, next));
    expect(incremental.degradation).toEqual(degradation(served, next));
    served = next;
  }
}
