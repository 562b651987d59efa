import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engine } from './pack-compare-harness.js';

const { comparePacks, indexPack } = engine;

import type { ComposeOutcome } from '../../src/core/compose/compose.js';
import { sha256, utf8Length } from '../../src/core/text/text.js';
import { promptFingerprint, samePrompt } from '../../src/engine/incremental/pack-compare.js';
import { changedPrompts } from '../../src/reload/changes.js';
import { builder, checkSequence, type Edit, examplePack, type Files } from './pack-compare-harness.js';

// The reload comparison composes only the members an edit can reach, starting from what
// the previous comparison learnt. Whatever the edits — prompt files, identities, the
// fleet, the role registry, the manifest — it must say exactly what composing every
// member of both versions says: the same change report and the same guard report.

const append =
  (path: string, text: string): Edit =>
  (files) => {
    files.set(path, `${files.get(path) ?? ''}\n${text}\n`);
  };
const remove =
  (path: string): Edit =>
  (files) => {
    files.delete(path);
  };
const put =
  (path: string, text: string): Edit =>
  (files) => {
    files.set(path, text);
  };
const replaceIn =
  (path: string, from: string, to: string): Edit =>
  (files) => {
    const text = files.get(path);
    if (text !== undefined) files.set(path, text.replace(from, to));
  };

const text = fc.string({ minLength: 1, maxLength: 30 });

/** Edits of a RoboCo pack: prompt files, identities, fleet, registry and manifest. */
const robocoEdit: fc.Arbitrary<Edit> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        'base.md',
        'roles/developer.md',
        'roles/qa.md',
        'roles/board.md',
        'teams/platform.md',
        'teams/payments.md',
        'identities/ada.md',
        'doctrine/fable.md',
        'tools/qa.md',
        '_generated/developer.md',
      ),
      text,
    )
    .map(([p, t]) => append(p, t)),
  fc
    .constantFrom('base.md', 'teams/growth.md', 'roles/pm.md', 'tools/developer.md', 'doctrine/ponytail.md')
    .map(remove),
  fc
    .tuple(fc.constantFrom('teams/new.md', 'tools/architect.md', 'roles/qa.md'), text)
    .map(([p, t]) => put(p, t)),
  // The fleet: an agent changes team or role, one is added, one removed.
  fc.constantFrom(
    replaceIn('fleet.yaml', 'team: payments', 'team: growth'),
    replaceIn('fleet.yaml', 'role: qa', 'role: developer'),
    append('fleet.yaml', '  - id: zed\n    role: pm\n    team: growth'),
    replaceIn('fleet.yaml', '  - id: linus\n    role: developer\n    team: payments\n', ''),
  ),
  // The registry: a record's fields, a role's file, a new role.
  fc.constantFrom(
    replaceIn('roles.yaml', 'model: claude-sonnet', 'model: claude-haiku'),
    replaceIn('roles.yaml', 'name: QA Engineer', 'name: Quality'),
    append('roles.yaml', '  scribe:\n    name: Scribe\n    description: Writes things down.'),
  ),
  // The manifest: a pack-wide change reaches everyone.
  fc.constantFrom(
    put('strata.yaml', 'extends: roboco\nseparator: "\\n\\n"\n'),
    put('strata.yaml', 'extends: roboco\nlayers:\n  - id: notice\n    file: notice.md\n    before: base\n'),
    put('notice.md', 'Notice.'),
    remove('strata.yaml'),
  ),
);

/** Edits of a pack without a fleet: members are the registry's roles. */
const rolesPack: Files = new Map([
  [
    'strata.yaml',
    'registry: { files: [roles.yaml], key: roles }\nlayers:\n  - { id: base, file: base.md }\n  - { id: role, file: "roles/{role}.md" }\n',
  ],
  ['base.md', 'Base.'],
  ['roles.yaml', 'roles:\n  a: { name: A }\n  b: { name: B }\n  c: { name: C }\n'],
  ['roles/a.md', 'Role a.'],
  ['roles/b.md', 'Role b.'],
]);
const rolesEdit: fc.Arbitrary<Edit> = fc.oneof(
  fc
    .tuple(fc.constantFrom('base.md', 'roles/a.md', 'roles/b.md', 'roles/c.md'), text)
    .map(([p, t]) => put(p, t)),
  fc.constantFrom('base.md', 'roles/a.md', 'roles/c.md').map(remove),
  fc.constantFrom(
    replaceIn('roles.yaml', '  b: { name: B }\n', ''),
    append('roles.yaml', '  d: { name: D }'),
    put(
      'strata.yaml',
      'registry: { files: [roles.yaml], key: roles }\nlayers:\n  - { id: role, file: "roles/{role}.md", missing: error }\n',
    ),
    put(
      'strata.yaml',
      'layers:\n  - { id: base, file: base.md }\n  - { id: role, file: "roles/{role}.md" }\n',
    ),
    put('strata.yaml', rolesPack.get('strata.yaml')!),
  ),
);

describe('comparePacks', () => {
  it('says what composing every member says, whatever the edits (RoboCo: fleet, registry, manifest)', async () => {
    const start = examplePack('roboco');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(robocoEdit, { minLength: 1, maxLength: 3 }), { maxLength: 6 }),
        (edits) => checkSequence(start, edits),
      ),
      { numRuns: 40 },
    );
  });

  it('says what composing every member says, whatever the edits (roles only)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(rolesEdit, { minLength: 1, maxLength: 3 }), { maxLength: 8 }),
        (edits) => checkSequence(rolesPack, edits),
      ),
      { numRuns: 60 },
    );
  });

  it('composes again only the members a one-file edit reaches', async () => {
    const build = builder();
    const files = examplePack('roboco');
    const served = build(files)!;
    await indexPack(served);
    files.set('teams/platform.md', `${files.get('teams/platform.md')}\nMore.\n`);
    const next = build(files)!;
    const { changes, recomposed } = await comparePacks(served, next);
    // Only agents of team platform read teams/platform.md.
    const platform = served.fleet.filter((a) => a.team === 'platform').map((a) => a.id);
    expect(changes.agents).toEqual([...platform].sort());
    expect(recomposed).toBe(platform.length);
    // Once everyone's inputs change (the manifest), everyone is compared, once.
    files.set('strata.yaml', 'extends: roboco\nseparator: "\\n\\n"\n');
    const all = build(files)!;
    const wide = await comparePacks(next, all);
    expect(wide.recomposed).toBe(next.fleet.length + next.roles.size);
    expect(wide.changes).toEqual(changedPrompts(next, all));
  });

  it('composes again only the role whose file changed, in a pack with its own manifest', async () => {
    const build = builder();
    const files = new Map(rolesPack);
    const served = build(files)!;
    await indexPack(served);
    files.set('roles/a.md', 'Role a, reworded.');
    const next = build(files)!;
    const { changes, recomposed } = await comparePacks(served, next);
    expect(changes).toEqual({ agents: [], roles: ['a'] });
    expect(recomposed).toBe(1);
  });

  it('reports every prompt as new when nothing was served', async () => {
    const served = builder()(examplePack('roboco'))!;
    const { changes, degradation: report } = await comparePacks(undefined, served);
    expect(changes).toEqual(changedPrompts(undefined, served));
    expect(report.degraded).toBe(false);
  });
});

describe('samePrompt: what the change report compares', () => {
  const ok = (text: string) =>
    ({
      ok: true,
      result: { text, bytes: utf8Length(text), sha256: sha256(text) },
    }) as unknown as ComposeOutcome;
  const failed = (...codes: string[]) =>
    ({
      ok: false,
      diagnostics: codes.map((code) => ({ code, severity: 'error', message: code })),
    }) as unknown as ComposeOutcome;

  it('says what the prompts’ fingerprints say, hashing only texts with a lone surrogate', () => {
    const cases: Array<[ComposeOutcome | undefined, ComposeOutcome | undefined]> = [
      [ok('You are Ada.'), ok('You are Ada.')],
      [ok('You are Ada.'), ok('You are Ada!')],
      // Two lone surrogates: different strings, the same UTF-8 bytes (U+FFFD each).
      [ok('x\ud800'), ok('x\udbff')],
      [ok('x\ud800'), ok('x\ufffd')],
      [ok('x\ud83d\ude00'), ok('x\ud800\ude00')],
      [failed('UNKNOWN_ROLE'), failed('UNKNOWN_ROLE')],
      [failed('UNKNOWN_ROLE'), failed('NO_ROLE')],
      [ok('error:UNKNOWN_ROLE'), failed('UNKNOWN_ROLE')],
      [ok('You are Ada.'), undefined],
      [undefined, undefined],
    ];
    const fingerprint = (o: ComposeOutcome | undefined) => (o ? promptFingerprint(o) : undefined);
    expect(cases.map(([a, b]) => samePrompt(a, b))).toEqual(
      cases.map(([a, b]) => fingerprint(a) === fingerprint(b)),
    );
    // Texts made of pieces that write the same bytes in several ways (lone surrogates and
    // U+FFFD) or not (a pair, its halves): the same verdict as the fingerprints, whatever.
    const piece = fc.constantFrom('a', '\ud800', '\udbff', '\udc00', '\ufffd', '\ud83d\ude00', 'é');
    const text = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
    fc.assert(
      fc.property(
        text,
        text,
        (x, y) => samePrompt(ok(x), ok(y)) === (promptFingerprint(ok(x)) === promptFingerprint(ok(y))),
      ),
      { numRuns: 2000 },
    );
    expect(cases.map(([a, b]) => samePrompt(a, b))).toEqual([
      true,
      false,
      true,
      true,
      false,
      true,
      false,
      false,
      false,
      true,
    ]);
  });
});
