import { join } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { LoadResult, Snapshot } from '../../src/core/build/snapshot.js';
import { tryCompose } from '../../src/core/compose/compose.js';
import { DIAGNOSTIC_CODES, type Diagnostic } from '../../src/core/text/diagnostics.js';
import { utf8Length } from '../../src/core/text/text.js';
import { buildSnapshot } from '../../src/engine/default-engine.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { EXAMPLES } from '../helpers.js';

// The pack fuzz suite behind fuzz.test.ts (a bounded run in `npm test`) and
// fuzz.slow.test.ts (a longer one): mutations of the example packs, and of manifests,
// frontmatter and registry YAML, must load without throwing, with every problem coded,
// every byte of every composed prompt attributed to an included layer or a separator,
// and the same files giving the same version.

type Files = Map<string, Uint8Array>;

/** The example packs, read once. */
export async function examplePacks(): Promise<Array<[string, Files]>> {
  const out: Array<[string, Files]> = [];
  for (const name of ['roboco', 'chorus'])
    out.push([name, new Map((await readPackDir(join(EXAMPLES, name))).files)]);
  return out;
}

/** Checks every property on one set of files; returns nothing, throws on a violation. */
export function checkPack(files: Files): void {
  let result: LoadResult;
  try {
    result = buildSnapshot({ files, env: {} });
  } catch (e) {
    throw new Error(`load threw: ${e instanceof Error ? e.stack : String(e)}`);
  }
  checkDiagnostics(result.diagnostics);
  // Same files (in any order) → same version and the same diagnostics.
  const again = buildSnapshot({ files: new Map([...files].reverse()), env: {} });
  expect(again.snapshot?.version).toBe(result.snapshot?.version);
  expect(again.diagnostics).toEqual(result.diagnostics);
  if (result.snapshot) checkComposes(result.snapshot);
}

/** A pack mutation: apply it to a copy of the files. */
export type Mutation = (files: Files) => void;

/** Mutations of whole packs: files deleted, cut, overwritten, spliced with bytes or hostile YAML. */
export function mutations(): fc.Arbitrary<Mutation[]> {
  const pick = fc.nat();
  const text = fc.oneof(fc.string({ maxLength: 60 }), fragment(), fc.constantFrom('', '\n', '---\n'));
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    pick.map((n) => (files: Files) => void files.delete(nth(files, n))),
    fc.tuple(pick, fc.nat()).map(([n, at]) => (files: Files) => {
      const path = nth(files, n);
      const bytes = files.get(path);
      if (bytes) files.set(path, bytes.subarray(0, at % (bytes.length + 1)));
    }),
    fc.tuple(pick, text).map(
      ([n, t]) =>
        (files: Files) =>
          void files.set(nth(files, n), encode(t)),
    ),
    fc
      .tuple(pick, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 6 }))
      .map(([n, at, inserted]) => (files: Files) => {
        const path = nth(files, n);
        const bytes = files.get(path) ?? new Uint8Array();
        const i = at % (bytes.length + 1);
        files.set(path, concat(bytes.subarray(0, i), inserted, bytes.subarray(i)));
      }),
    fc.tuple(pick, fragment()).map(([n, t]) => (files: Files) => {
      const path = nth(files, n);
      files.set(path, concat(files.get(path) ?? new Uint8Array(), encode(`\n${t}\n`)));
    }),
    fc.tuple(pick, frontmatter()).map(([n, fm]) => (files: Files) => {
      const path = nth(files, n);
      files.set(path, concat(encode(fm), files.get(path) ?? new Uint8Array()));
    }),
    fc.tuple(packPath(), text).map(
      ([path, t]) =>
        (files: Files) =>
          void files.set(path, encode(t)),
    ),
    manifest().map((m) => (files: Files) => void files.set('strata.yaml', encode(m))),
    registryFile().map(
      ([path, t]) =>
        (files: Files) =>
          void files.set(path, encode(t)),
    ),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 4 });
}

/** A manifest (strata.yaml) with arbitrary, mostly plausible fields, as JSON (which is YAML). */
export function manifest(): fc.Arbitrary<string> {
  const name = fc.constantFrom('roboco', 'chorus', 'base', 'S', 'D', 'role', 'x', '', '../up', '__proto__');
  const glob = fc.constantFrom('*.yaml', '**/*.yml', 'roles/**', '*a*a*a*ab.yaml', '?', '', '**');
  const layer = fc.record(
    {
      id: name,
      file: fc.oneof(
        fc.constantFrom('base.md', 'roles/{role}.md', '../etc/passwd', '/abs.md', '{nope}.md'),
        fc.array(fc.constantFrom('a.md', 'defaults.md'), { maxLength: 2 }),
      ),
      role_field: fc.constantFrom('system_prompt', 'file', 'nope'),
      path_setting: fc.constantFrom('default_instructions_path', 'nope'),
      separator: fc.string({ maxLength: 4 }),
      when: fc.constantFrom('fable_mode_enabled', 'role == "x"', '(((', ''),
      append: fc.constantFrom('{{role}}', '{{missing}}', ''),
      max_bytes: fc.oneof(fc.integer({ min: -1, max: 64 }), fc.constant('big')),
    },
    { requiredKeys: ['id'] },
  );
  return fc
    .record(
      {
        extends: fc.oneof(name, fc.constantFrom('roles.yaml', 'strata.yaml', 'other.yaml')),
        name,
        separator: fc.string({ maxLength: 6 }),
        fallback: fc.string({ maxLength: 20 }),
        registry: fc.record(
          {
            files: fc.array(glob, { maxLength: 3 }),
            key: name,
            discover: fc.constantFrom('roles/{role}.md', '{x}', 'a{b}c{d}'),
          },
          { requiredKeys: [] },
        ),
        fleet: fc.record(
          {
            file: fc.constantFrom('fleet.yaml', 'roles.yaml'),
            identities: fc.constantFrom('identities/{agent}.md', '{a}'),
          },
          { requiredKeys: [] },
        ),
        layers: fc.array(layer, { maxLength: 4 }),
        settings: fc.dictionary(
          name,
          fc.record(
            {
              type: fc.constantFrom('string', 'bool', 'int', 'enum', 'nope'),
              default: fc.jsonValue({ maxDepth: 1 }),
            },
            { requiredKeys: [] },
          ),
          { maxKeys: 3 },
        ),
        unknown_key: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    )
    .map((m) => JSON.stringify(m));
}

/** A role-registry YAML file with arbitrary records. */
export function registryFile(): fc.Arbitrary<[string, string]> {
  const record = fc.record(
    {
      system_prompt: fc.oneof(fc.string({ maxLength: 20 }), fc.constant('{{role}} {{team}}')),
      extends: fc.constantFrom('arbiter', 'self', 'nobody', 'a'),
      file: fc.constantFrom('a', 'arbiter', '../x'),
      tools: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(
      fc.constantFrom('roles.yaml', 'site-roles.yaml', 'extra.yml', 'roles/more.yaml'),
      fc.dictionary(
        fc.constantFrom('a', 'self', 'arbiter', 'writer', 'qa', 'bad name', '..', '__proto__'),
        record,
        { maxKeys: 4 },
      ),
      fc.constantFrom('roles', 'agents', 'verbs'),
    )
    .map(([path, records, key]) => [path, JSON.stringify({ [key]: records })]);
}

// --- internal ---

const encoder = new TextEncoder();
const CODES = new Set<string>(DIAGNOSTIC_CODES);

function fragment(): fc.Arbitrary<string> {
  return fc.constantFrom(
    'a: &x [*x, *x]',
    'b: &y {c: *y}',
    '<<: *nope',
    'roles:\n  x:\n    extends: x\n',
    'roles:\n  a:\n    extends: b\n  b:\n    extends: a\n',
    '__proto__: {polluted: true}',
    'constructor: {prototype: 1}',
    'extends: chorus',
    'extends: strata.yaml',
    '- - - -',
    ':::',
    '\tkey: tab',
    'key: [unclosed',
    '"unterminated',
    'agents:\n  - id: ada\n    role: nobody\n  - id: ada\n',
    '{{role}} {{unknown}} {{ team }}',
    '---\n---\n',
    '\u0000\u0007\uFEFF',
    '中'.repeat(40),
    'x'.repeat(300),
  );
}

function frontmatter(): fc.Arbitrary<string> {
  return fc
    .oneof(fragment(), fc.constantFrom('role: writer', 'when: fable_mode_enabled', 'budget: -1', 'tokens: x'))
    .map((yaml) => `---\n${yaml}\n---\n`);
}

function packPath(): fc.Arbitrary<string> {
  return fc.constantFrom(
    'strata.yaml',
    'base.md',
    'defaults.md',
    'defaults.txt',
    'fleet.yaml',
    'roles.yaml',
    'roles/writer.md',
    'roles/new.md',
    'roles/a/b.md',
    'teams/blue.md',
    'identities/ada.md',
    'doctrine/x.md',
    'x.yaml',
  );
}

function nth(files: Files, n: number): string {
  const paths = [...files.keys()];
  return paths.length === 0 ? 'base.md' : paths[n % paths.length]!;
}

function encode(text: string): Uint8Array {
  return encoder.encode(text);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function checkDiagnostics(diagnostics: readonly Diagnostic[]): void {
  for (const d of diagnostics) {
    if (!CODES.has(d.code) || (d.severity !== 'error' && d.severity !== 'warning') || d.message === '')
      throw new Error(`uncoded diagnostic: ${JSON.stringify(d)}`);
  }
}

/** Every role and fleet member (bounded), and the bare request: each byte attributed. */
function checkComposes(snapshot: Snapshot): void {
  const requests = [
    {},
    ...[...snapshot.roles.keys()].slice(0, 3).map((role) => ({ role })),
    ...snapshot.fleet.slice(0, 2).map((a) => ({ agent: a.id })),
  ];
  for (const request of requests) {
    const outcome = tryCompose(snapshot, request);
    if (!outcome.ok) {
      checkDiagnostics(outcome.diagnostics);
      continue;
    }
    const { result } = outcome;
    checkDiagnostics(result.diagnostics);
    const bytes = encoder.encode(result.text);
    expect(result.bytes).toBe(bytes.length);
    const included = result.layers.filter((l) => l.included);
    if (result.fallback) {
      expect(included).toEqual([]);
      continue;
    }
    // Layers in order, with only their separators between them: no byte unattributed.
    let at = 0;
    for (const [i, layer] of included.entries()) {
      if (i > 0) {
        const def = snapshot.manifest.layers.find((l) => l.id === layer.id);
        const separator = encoder.encode(def?.separator ?? snapshot.manifest.separator);
        expect(bytes.subarray(at, layer.start)).toEqual(separator);
      } else expect(layer.start).toBe(0);
      expect(layer.end! - layer.start!).toBe(layer.bytes);
      at = layer.end!;
    }
    expect(at).toBe(bytes.length);
    expect(utf8Length(result.text)).toBe(bytes.length);
  }
}
