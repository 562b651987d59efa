import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  derived,
  FILES_BY_FOLDER,
  FLEET_NAMES,
  packFolders,
  pathSubstitutions,
} from '../../src/core/build/derived.js';
import { NAME_PATHS } from '../../src/core/build/name-paths.js';
import {
  type BuildInput,
  buildSnapshot as core,
  type LoadResult,
  type Snapshot,
} from '../../src/core/build/snapshot.js';
import { tryCompose } from '../../src/core/compose/compose.js';
import { SPLIT_PATHS } from '../../src/core/compose/env.js';
import { createEngine } from '../../src/engine/engine.js';
import { MAX_PATCHED_FILES } from '../../src/engine/incremental/snapshot-patch.js';
import { LAYOUTS } from '../../src/layouts/registry.js';

const { buildSnapshot, patchedPaths } = createEngine();
/** The core's own build, with the built-in layouts: what the engine's must equal. */
const coreBuild = (input: BuildInput) => core({ ...input, layouts: LAYOUTS });

import { examplePack } from './pack-compare-harness.js';

// A build given the previous snapshot of the pack starts from it when only a few files
// changed. Whatever the edits, the result must be the one a full build gives: the same
// diagnostics, version, files, registry, fleet, and every member's composed prompt with
// its provenance.

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

/** What a full build and a patched build must agree on. */
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

/** Applies each batch of edits, building with and without the previous snapshot; returns how many builds were patched. */
function check(start: Bytes, batches: Edit[][]): number {
  const files = new Map(start);
  let previous = buildSnapshot({ files: new Map(files), env: {} }).snapshot;
  expect(previous).toBeDefined();
  let patched = 0;
  for (const batch of batches) {
    for (const edit of batch) edit(files);
    const input = new Map(files);
    const withPrevious = buildSnapshot({ files: input, env: {}, previous });
    const full = coreBuild({ files: new Map(input), env: {} });
    expect(view(withPrevious)).toEqual(view(full));
    if (withPrevious.snapshot) {
      if (previous && patchedPaths(previous, withPrevious.snapshot)) patched++;
      previous = withPrevious.snapshot;
    }
  }
  return patched;
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
      let patched = 0;
      fc.assert(
        fc.property(
          fc.array(fc.array(edits([...start.keys()]), { minLength: 1, maxLength: 3 }), {
            minLength: 1,
            maxLength: 6,
          }),
          (batches) => {
            patched += check(start, batches);
          },
        ),
        { numRuns: runs },
      );
      // The patch is taken for some of these packs' edits (body edits of prompt files).
      if (name !== 'crewai' && name !== 'chorus') expect(patched).toBeGreaterThan(0);
    });
  }

  it('starts from the previous snapshot for a body edit, sharing what the edit cannot change', () => {
    const files = bytesOf('roboco');
    const first = buildSnapshot({ files: new Map(files), env: {} }).snapshot!;
    // A compose of a role and a team works out the manifest's path templates: shared too.
    tryCompose(first, { role: 'developer', team: 'platform' });
    files.set('teams/platform.md', encode(`${decode(files.get('teams/platform.md')!)}\nMore.\n`));
    const next = buildSnapshot({ files: new Map(files), env: {}, previous: first }).snapshot!;
    expect(patchedPaths(first, next)).toEqual(['teams/platform.md']);
    expect(next.version).not.toBe(first.version);
    expect(next.roles).toBe(first.roles);
    expect(next.fleet).toBe(first.fleet);
    expect(next.manifest).toBe(first.manifest);
    expect(next.files.get('base.md')).toBe(first.files.get('base.md'));
    expect(next.files.get('teams/platform.md')!.prompt).toMatch(/More\.$/);
    for (const slot of [SPLIT_PATHS, NAME_PATHS, FILES_BY_FOLDER, FLEET_NAMES]) {
      const held = derived(first, slot, () => undefined);
      expect([slot, held !== undefined && derived(next, slot, () => undefined) === held]).toEqual([
        slot,
        true,
      ]);
    }
  });

  it("shares the pack's folders, which a full build of a pack with chain layers makes", () => {
    const files = bytesOf('agents-md');
    const first = buildSnapshot({ files: new Map(files), env: {} }).snapshot!;
    const edited = [...files.keys()].find((p) => p.endsWith('/AGENTS.md'))!;
    files.set(edited, encode(`${decode(files.get(edited)!)}\nMore.\n`));
    const next = buildSnapshot({ files: new Map(files), env: {}, previous: first }).snapshot!;
    expect(patchedPaths(first, next)).toEqual([edited]);
    const full = coreBuild({ files: new Map(files), env: {} }).snapshot!;
    expect(packFolders(next)).toBe(packFolders(first));
    expect([...packFolders(next)].sort()).toEqual([...packFolders(full)].sort());
    expect(packFolders(full).has(edited.slice(0, edited.lastIndexOf('/')))).toBe(true);
  });

  it("shares its layout's substitutions by path, which a build makes", () => {
    const root = ['$', '{CLAUDE_PLUGIN_ROOT}'].join('');
    const agent = (name: string, body: string) =>
      encode(`---\nname: ${name}\ndescription: ${name}\n---\n\n${body}\n`);
    const files: Bytes = new Map([
      ['.claude-plugin/plugin.json', encode('{"name":"kit"}\n')],
      ['agents/runner.md', agent('runner', `Run ${root}/check.sh.`)],
      ['agents/other.md', agent('other', 'Other.')],
    ]);
    const first = buildSnapshot({ files: new Map(files), env: {} }).snapshot!;
    expect(pathSubstitutions(first)?.('agents/runner.md')).toHaveLength(2);
    files.set('agents/other.md', agent('other', 'Other, edited.'));
    const next = buildSnapshot({ files: new Map(files), env: {}, previous: first }).snapshot!;
    expect(patchedPaths(first, next)).toEqual(['agents/other.md']);
    expect(pathSubstitutions(next)).toBe(pathSubstitutions(first));
    const full = coreBuild({ files: new Map(files), env: {} }).snapshot!;
    const request = { role: 'runner', vars: { plugin_root: '/opt/kit', plugin_data: '/var/kit' } };
    const composed = tryCompose(next, request);
    expect(composed.ok && composed.result.text).toBe('Run /opt/kit/check.sh.');
    expect(composed).toEqual(tryCompose(full, request));
  });

  it("builds in full when a plugin's plugin.json changes, which its agents' fields and list read", () => {
    const files: Bytes = new Map([
      ['.claude-plugin/plugin.json', encode('{"name":"kit","agents":["./agents/","./extra/listed.md"]}\n')],
      ['agents/plain.md', encode('Plain.\n')],
      ['agents/other.md', encode('---\nname: other\ndescription: Other\n---\nOther.\n')],
      ['extra/listed.md', encode('---\nname: listed\ndescription: Listed\n---\nListed.\n')],
      ['extra/later.md', encode('---\nname: later\ndescription: Later\n---\nLater.\n')],
    ]);
    const first = buildSnapshot({ files: new Map(files), env: {} }).snapshot!;
    expect([first.roles.get('plain')?.fields.description, [...first.roles.keys()].sort()]).toEqual([
      'Agent from kit plugin',
      ['listed', 'other', 'plain'],
    ]);
    files.set(
      '.claude-plugin/plugin.json',
      encode('{"name":"tool","agents":["./agents/","./extra/listed.md","./extra/later.md"]}\n'),
    );
    const next = buildSnapshot({ files: new Map(files), env: {}, previous: first }).snapshot!;
    expect(patchedPaths(first, next)).toBeUndefined();
    expect([next.roles.get('plain')?.fields.description, [...next.roles.keys()].sort()]).toEqual([
      'Agent from tool plugin',
      ['later', 'listed', 'other', 'plain'],
    ]);
    expect(next.roles).toEqual(coreBuild({ files: new Map(files), env: {} }).snapshot!.roles);
  });

  it('builds in full when the registry, the fleet or a frontmatter value changes', () => {
    const files = bytesOf('roboco');
    const first = buildSnapshot({ files: new Map(files), env: {} }).snapshot!;
    const edited = (path: string, f: (t: string) => string) => {
      const copy = new Map(files);
      copy.set(path, encode(f(decode(copy.get(path)!))));
      return buildSnapshot({ files: copy, env: {}, previous: first }).snapshot!;
    };
    for (const next of [
      edited('roles.yaml', (t) => `${t}\n`),
      edited('fleet.yaml', (t) => `${t}\n`),
      edited('roles/developer.md', (t) => t.replace('---\n', '---\nextra: 1\n')),
    ])
      expect(patchedPaths(first, next)).toBeUndefined();
  });

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

  it('builds in full when the environment changes a setting, or more files changed than it patches', () => {
    const files = bytesOf('roboco');
    const first = buildSnapshot({ files: new Map(files), env: {} }).snapshot!;
    const fable = buildSnapshot({
      files: new Map(files),
      env: { ROBOCO_FABLE_MODE_ENABLED: 'true' },
      previous: first,
    });
    expect(fable.snapshot!.settings.values.fable_mode_enabled).toBe(true);
    expect(patchedPaths(first, fable.snapshot!)).toBeUndefined();
    const many = new Map(files);
    for (let i = 0; i <= MAX_PATCHED_FILES; i++) many.set(`notes/${i}.md`, encode(`Note ${i}.`));
    const base = buildSnapshot({ files: many, env: {} }).snapshot!;
    const all = new Map([...many].map(([p, b]) => [p, p.startsWith('notes/') ? encode(`${decode(b)}!`) : b]));
    const next = buildSnapshot({ files: all, env: {}, previous: base });
    expect(patchedPaths(base, next.snapshot!)).toBeUndefined();
    expect(view(next)).toEqual(view(coreBuild({ files: new Map(all), env: {} })));
  });
});
