import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BuildInput,
  buildSnapshot as core,
  type LoadResult,
  type Snapshot,
} from '../../src/core/build/snapshot.js';
import { tryCompose } from '../../src/core/compose/compose.js';
import { createEngine } from '../../src/engine/engine.js';
import { LAYOUTS } from '../../src/layouts/registry.js';

const { buildSnapshot } = createEngine();
/** The core's own build, with the built-in layouts: what the engine's must equal. */
const coreBuild = (input: BuildInput) => core({ ...input, layouts: LAYOUTS });

import { examplePack } from './pack-compare-harness.js';

// A build given the previous snapshot of the pack reuses what it decoded of the files whose
// bytes are the same. Whatever the edits, the result must be the one a full build gives:
// the same diagnostics, version, files, registry, fleet, and every member's composed
// prompt with its provenance.

type Bytes = Map<string, Uint8Array>;

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** One change to a pack's bytes (a new bytes object for every file it writes). */
type Edit = (files: Bytes) => void;

/** Random edits of any file of a pack, of the kinds operators make, and a few they should not. */
function edits(paths: readonly string[]): fc.Arbitrary<Edit> {
  const path = fc.constantFrom(...paths);
  const text = fc.string({ minLength: 1, maxLength: 24 });
  const change = (f: (old: string) => string) => (p: string) => (files: Bytes) => {
    const old = files.get(p);
    if (old !== undefined) files.set(p, encode(f(decode(old))));
  };
  return fc.oneof(
    // A body edit: the frontmatter (when there is one) stays as it was.
    { weight: 6, arbitrary: fc.tuple(path, text).map(([p, t]) => change((old) => `${old}\n${t}\n`)(p)) },
    // The same bytes again (a save without changes).
    { weight: 2, arbitrary: path.map(change((old) => old)) },
    // A text replaced early in the file: may touch frontmatter or YAML keys.
    {
      weight: 2,
      arbitrary: fc
        .tuple(path, text)
        .map(([p, t]) => change((old) => old.replace(/[a-z]+/, t.replace(/\n/g, ' ')))(p)),
    },
    // Invalid UTF-8, a whole new text, a file removed or added.
    {
      weight: 1,
      arbitrary: path.map((p) => (files: Bytes) => files.set(p, Uint8Array.of(0x61, 0xff, 0x0a))),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(path, text).map(
        ([p, t]) =>
          (files: Bytes) =>
            files.set(p, encode(t)),
      ),
    },
    { weight: 1, arbitrary: path.map((p) => (files: Bytes) => files.delete(p)) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('roles/new.md', 'notes.md', 'teams/extra.md', 'x.yaml'), text).map(
        ([p, t]) =>
          (files: Bytes) =>
            files.set(p, encode(t)),
      ),
    },
  );
}

/** What a build from the previous snapshot and a full build must agree on. */
function view(result: LoadResult) {
  const snapshot = result.snapshot;
  if (!snapshot) return { diagnostics: result.diagnostics };
  return {
    diagnostics: result.diagnostics,
    version: snapshot.version,
    preset: snapshot.preset,
    manifest: snapshot.manifest,
    settings: snapshot.settings,
    roles: [...snapshot.roles],
    fleet: snapshot.fleet,
    warnings: snapshot.warnings,
    files: [...snapshot.files].map(([path, f]) => ({
      path,
      filePath: f.path,
      sha256: f.sha256,
      text: f.text,
      meta: f.meta,
      prompt: f.prompt,
      promptSha256: f.promptSha256,
      promptBytes: f.promptBytes,
      bodyOffset: f.bodyOffset,
      raw: f.raw && [...f.raw],
      frontmatterRetried: f.frontmatterRetried,
    })),
    prompts: requests(snapshot).map((request) => tryCompose(snapshot, request)),
  };
}

function requests(snapshot: Snapshot) {
  return [
    {},
    ...snapshot.fleet.map((a) => ({ agent: a.id })),
    ...[...snapshot.roles.keys()].map((role) => ({ role })),
  ];
}

/** Applies each batch of edits, building with and without the previous snapshot. */
function check(start: Bytes, batches: Edit[][]): void {
  const files = new Map(start);
  let previous = buildSnapshot({ files: new Map(files), env: {} }).snapshot;
  expect(previous).toBeDefined();
  for (const batch of batches) {
    for (const edit of batch) edit(files);
    const input = new Map(files);
    const withPrevious = buildSnapshot({ files: input, env: {}, previous });
    const full = coreBuild({ files: new Map(input), env: {} });
    expect(view(withPrevious)).toEqual(view(full));
    if (withPrevious.snapshot) previous = withPrevious.snapshot;
  }
}

function bytesOf(name: string): Bytes {
  return new Map([...examplePack(name)].map(([p, t]) => [p, encode(t)]));
}

describe('a build that starts from the previous snapshot', () => {
  for (const [name, runs] of [
    ['roboco', 30],
    ['claude-agents', 25],
    ['chorus', 25],
    ['crewai', 25],
    ['agents-md', 25],
  ] as const) {
    it(`gives what a full build gives, whatever the edits (${name})`, () => {
      const start = bytesOf(name);
      fc.assert(
        fc.property(
          fc.array(fc.array(edits([...start.keys()]), { minLength: 1, maxLength: 3 }), {
            minLength: 1,
            maxLength: 6,
          }),
          (batches) => check(start, batches),
        ),
        { numRuns: runs },
      );
    });
  }

  it('drops a warning about a file whose edit clears it', () => {
    const files: Bytes = new Map([
      ['strata.yaml', encode('extends: claude-agents\n')],
      ['good.md', encode('---\nname: good\ndescription: A good agent.\n---\nBe good.\n')],
      ['notes.md', encode('---\n- a\n- b\n---\nNotes.\n')],
    ]);
    const first = buildSnapshot({ files: new Map(files), env: {} });
    expect(first.diagnostics.map((d) => [d.code, d.file])).toEqual([['BAD_FRONTMATTER', 'notes.md']]);
    files.set('notes.md', encode('Notes.\n'));
    const next = buildSnapshot({ files: new Map(files), env: {}, previous: first.snapshot! });
    expect(next.diagnostics).toEqual([]);
    expect(view(next)).toEqual(view(coreBuild({ files: new Map(files), env: {} })));
  });

  it('gives what a full build gives when the environment changes a setting', () => {
    const files = bytesOf('roboco');
    const first = buildSnapshot({ files: new Map(files), env: {} }).snapshot!;
    const env = { ROBOCO_FABLE_MODE_ENABLED: 'true' };
    const fable = buildSnapshot({ files: new Map(files), env, previous: first });
    expect(fable.snapshot!.settings.values.fable_mode_enabled).toBe(true);
    expect(view(fable)).toEqual(view(coreBuild({ files: new Map(files), env })));
  });
});
