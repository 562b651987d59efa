import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ComposeRequest, strictOutcome, tryCompose } from '../../src/core/compose/compose.js';
import { closestNames } from '../../src/core/text/suggest.js';
import { loadPack } from '../../src/source/load.js';
import { cli, codes, EXAMPLES, FIXTURES, memPack, okPack, ROOT, tempDir, writeFiles } from '../helpers.js';

const roboco = join(EXAMPLES, 'roboco');
const chorus = join(EXAMPLES, 'chorus');
const golden = (name: string) => readFileSync(join(ROOT, 'test', 'golden', name), 'utf8');
const orgDefaults = join(FIXTURES, 'org-defaults', 'defaults.md');

async function roboSnapshot() {
  const { snapshot } = await loadPack(roboco, { env: {} });
  return snapshot!;
}

describe('closest known names', () => {
  it.each([
    ['adaa', ['ada', 'linus', 'grace'], ['ada']],
    ['paymnets', ['growth', 'payments', 'platform'], ['payments']],
    ['develper', ['developer', 'pm', 'qa'], ['developer']],
    ['zzz', ['ada', 'linus'], []],
    ['QA', ['qa', 'pm'], ['qa']],
    // A name qualified by a prefix (a plugin's agent), either way round; only at a separator.
    [
      'backend-architect',
      ['api-scaffolding-backend-architect', 'data-engineering-backend-architect', 'frontend-developer'],
      ['api-scaffolding-backend-architect', 'data-engineering-backend-architect'],
    ],
    ['review:code-reviewer', ['code-reviewer', 'debugger'], ['code-reviewer']],
    ['architect', ['backendarchitect', 'pm'], []],
  ])('%s among %j → %j', (name, known, expected) => {
    expect(closestNames(name, known)).toEqual(expected);
  });
});

describe('unknown names are said, with the closest known ones (core)', () => {
  it.each<[string, ComposeRequest, boolean, string[], string[]]>([
    ['an agent outside the fleet, no role: error', { agent: 'adaa' }, false, ['UNKNOWN_AGENT'], ['ada']],
    [
      'an agent outside the fleet with a role: warning',
      { agent: 'grayce', role: 'qa' },
      true,
      ['UNKNOWN_AGENT'],
      ['grace'],
    ],
    ['a team without a layer file', { role: 'qa', team: 'paymnets' }, true, ['UNKNOWN_TEAM'], ['payments']],
    ['neither role nor agent', {}, true, ['NO_ROLE'], []],
    ['an unknown role of the registry', { role: 'develper' }, false, ['UNKNOWN_ROLE'], ['developer']],
  ])('%s', async (_, request, ok, expected, suggestions) => {
    const outcome = tryCompose(await roboSnapshot(), request);
    expect(outcome.ok).toBe(ok);
    const diagnostics = outcome.ok ? outcome.result.diagnostics : outcome.diagnostics;
    expect(codes({ diagnostics })).toEqual(expected);
    expect(diagnostics[0]!.suggestions ?? []).toEqual(suggestions);
    for (const s of suggestions) expect(diagnostics[0]!.message).toContain(`did you mean "${s}"`);
  });

  it('the bytes of a warned compose are what they were (team layer left out)', async () => {
    const outcome = tryCompose(await roboSnapshot(), { role: 'qa', team: 'research', agent: 'nobody' });
    if (!outcome.ok) throw new Error('expected a result');
    expect(outcome.result.text).toBe(golden('roboco/qa-missing-team-identity.txt'));
    // Said once each: no LAYER_MISSING on top of the unknown team and agent.
    expect(codes(outcome.result)).toEqual(['UNKNOWN_AGENT', 'UNKNOWN_TEAM']);
  });

  it('a role in a pack with an empty registry is UNKNOWN_ROLE (warning), with roles known from files', () => {
    const pack = okPack({
      'strata.yaml': 'layers:\n  - id: role\n    file: "agents/{role}.md"\n    missing: warn\n',
      'agents/writer.md': 'Write.',
      'agents/editor.md': 'Edit.',
    });
    const known = tryCompose(pack, { role: 'writer' });
    expect(known.ok && codes(known.result)).toEqual([]);
    const outcome = tryCompose(pack, { role: 'writter' });
    if (!outcome.ok) throw new Error('expected a result');
    expect(codes(outcome.result)).toEqual(['UNKNOWN_ROLE', 'FALLBACK_USED']);
    expect(outcome.result.diagnostics[0]).toMatchObject({ severity: 'warning', suggestions: ['writer'] });
  });

  it('an agent in a pack without a fleet is known only by its identity file; another is UNKNOWN_AGENT, not "no agent given"', () => {
    const pack = okPack({
      'strata.yaml':
        'layers:\n  - id: base\n    file: base.md\n  - id: role\n    file: "roles/{role}.md"\n    missing: warn\n  - id: identity\n    file: "agents/{agent}.md"\n    missing: skip\n',
      'base.md': 'Base.',
      'roles/writer.md': 'Write.',
      'agents/ada.md': 'Ada.',
    });
    const unknown = tryCompose(pack, { agent: 'adaa' });
    if (!unknown.ok) throw new Error('expected a result');
    // What every role shares, as for a request naming nobody, and said.
    expect(unknown.result.text).toBe('Base.');
    expect(codes(unknown.result)).toEqual(['UNKNOWN_AGENT']);
    expect(unknown.result.diagnostics[0]).toMatchObject({ severity: 'warning', suggestions: ['ada'] });
    expect(unknown.result.diagnostics[0]!.message).toBe(
      'agent "adaa" is not known: the pack has no fleet and no file names it; did you mean "ada"? (agents: ada): only the layers every role shares are composed; give a role (roles: writer)',
    );
    const withRole = tryCompose(pack, { agent: 'adaa', role: 'writer' });
    expect(withRole.ok && codes(withRole.result)).toEqual(['UNKNOWN_AGENT']);
    // An agent its identity file names, without a role: NO_ROLE, in words that name it.
    const known = tryCompose(pack, { agent: 'ada' });
    if (!known.ok) throw new Error('expected a result');
    expect(known.result.text).toBe('Base.\n\n---\n\nAda.');
    expect(codes(known.result)).toEqual(['NO_ROLE']);
    expect(known.result.diagnostics[0]!.message).toMatch(/^no role given for agent "ada": /);
  });

  it('a team in a pack that uses no team says so', () => {
    const pack = okPack({ 'strata.yaml': 'layers:\n  - id: base\n    file: base.md\n', 'base.md': 'B.' });
    const outcome = tryCompose(pack, { team: 'blue' });
    if (!outcome.ok) throw new Error('expected a result');
    expect(codes(outcome.result)).toEqual(['UNKNOWN_TEAM']);
    expect(outcome.result.diagnostics[0]!.message).toContain('no layer of this pack uses a team');
  });

  it('strict turns every warning into an error', async () => {
    const outcome = strictOutcome(tryCompose(await roboSnapshot(), { role: 'qa', team: 'paymnets' }));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok)
      expect(outcome.diagnostics.map((d) => [d.code, d.severity])).toEqual([['UNKNOWN_TEAM', 'error']]);
    const clean = strictOutcome(tryCompose(await roboSnapshot(), { agent: 'ada' }));
    expect(clean.ok).toBe(true);
  });
});

describe('layers say whether their absence is normal', () => {
  const PACK = {
    'strata.yaml': [
      'layers:',
      '  - id: tools',
      '    file: "tools/{role}.md"',
      '    missing: skip',
      '  - id: base',
      '    file: base.md',
      '    missing: warn',
      '  - id: role',
      '    file: "roles/{role}.md"',
      '    required: true',
      '',
    ].join('\n'),
    'base.md': 'Base.',
    'roles/dev.md': 'Dev.',
  };

  it.each<[string, Record<string, string | undefined>, ComposeRequest, boolean, string[]]>([
    ['skip: a role without tools is normal', {}, { role: 'dev' }, true, []],
    ['warn: a lost base.md is said', { 'base.md': undefined }, { role: 'dev' }, true, ['LAYER_MISSING']],
    [
      'error (required: true): a lost role file fails',
      { 'roles/dev.md': undefined, 'roles/qa.md': 'Q' },
      { role: 'dev' },
      false,
      ['UNKNOWN_ROLE', 'REQUIRED_MISSING'],
    ],
  ])('%s', (_, change, request, ok, expected) => {
    const files: Record<string, string> = { ...PACK };
    for (const [k, v] of Object.entries(change)) {
      if (v === undefined) delete files[k];
      else files[k] = v;
    }
    const outcome = tryCompose(okPack(files), request);
    expect(outcome.ok).toBe(ok);
    expect(codes(outcome.ok ? outcome.result : outcome)).toEqual(expected);
  });

  it('LAYER_MISSING names the layer and the file, and the result says the layer was lost', () => {
    const { 'base.md': _, ...files } = PACK;
    const outcome = tryCompose(okPack(files), { role: 'dev' });
    if (!outcome.ok) throw new Error('expected a result');
    expect(outcome.result.diagnostics[0]).toMatchObject({ code: 'LAYER_MISSING', file: 'base.md' });
    expect(outcome.result.layers.find((l) => l.id === 'base')).toMatchObject({
      included: false,
      reason: 'missing',
      source: 'base.md',
    });
  });

  it('missing: must be skip, warn or error, and not beside required:', () => {
    const bad = memPack({ 'strata.yaml': 'layers:\n  - id: a\n    file: a.md\n    missing: maybe\n' });
    expect(codes(bad)).toEqual(['BAD_MANIFEST']);
    const both = memPack({
      'strata.yaml': 'layers:\n  - id: a\n    file: a.md\n    missing: warn\n    required: true\n',
    });
    expect(codes(both)).toEqual(['BAD_MANIFEST']);
  });

  it.each([
    ['base.md', 'base', { agent: 'grace' }],
    ['roles/qa.md', 'role', { agent: 'grace' }],
    ['identities/grace.md', 'identity', { agent: 'grace' }],
    ['teams/payments.md', 'team', { agent: 'grace' }],
  ])('roboco: deleting %s is a warning for a fleet member (layer %s)', async (file, layer, request) => {
    const dir = tempDir();
    const { cpSync, rmSync } = await import('node:fs');
    cpSync(roboco, join(dir, 'pack'), { recursive: true });
    rmSync(join(dir, 'pack', file));
    const { snapshot } = await loadPack(join(dir, 'pack'), { env: {} });
    const outcome = tryCompose(snapshot!, request);
    if (!outcome.ok) throw new Error('expected a result');
    expect(outcome.result.diagnostics.map((d) => [d.code, d.file])).toEqual([['LAYER_MISSING', file]]);
    expect(outcome.result.layers.find((l) => l.id === layer)?.reason).toBe('missing');
  });

  it.each([
    ['roles/qa.md', 'roles/qaa.md', ['roles/qaa.md']],
    ['teams/payments.md', 'teams/paymnets.md', ['teams/paymnets.md']],
    // Another member's file is that member's, never offered as a misspelling.
    ['identities/grace.md', undefined, []],
  ])(
    'roboco: %s renamed to %s: LAYER_MISSING offers the closest files of its folder',
    async (file, renamed, suggestions) => {
      const dir = tempDir();
      const { cpSync, renameSync, rmSync } = await import('node:fs');
      cpSync(roboco, join(dir, 'pack'), { recursive: true });
      if (renamed) renameSync(join(dir, 'pack', file), join(dir, 'pack', renamed));
      else rmSync(join(dir, 'pack', file));
      const { snapshot } = await loadPack(join(dir, 'pack'), { env: {} });
      const outcome = tryCompose(snapshot!, { agent: 'grace' });
      if (!outcome.ok) throw new Error('expected a result');
      const [d] = outcome.result.diagnostics;
      expect([d!.code, d!.file, d!.suggestions ?? []]).toEqual(['LAYER_MISSING', file, suggestions]);
      expect(d!.message).toContain(
        suggestions.length > 0
          ? `${file} is missing; did you mean "${suggestions[0]}"?`
          : `${file} is missing`,
      );
    },
  );

  it('validate says it once, naming the members; --strict fails on it', async () => {
    const dir = tempDir();
    const { cpSync, rmSync } = await import('node:fs');
    cpSync(roboco, dir, { recursive: true });
    rmSync(join(dir, 'base.md'));
    const v = await cli(['validate', '--dir', dir]);
    expect(v.code).toBe(0);
    const lines = v.stdout.split('\n').filter((l) => l.includes('LAYER_MISSING'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('(for ada, linus, frances, grace, ken, margaret, barbara, edsger)');
    expect((await cli(['validate', '--dir', dir, '--strict'])).code).toBe(1);
  });

  it('roboco: a role without a tools file (board-tech) is normal, and chorus needs no defaults file', async () => {
    const edsger = tryCompose(await roboSnapshot(), { agent: 'edsger' });
    expect(edsger.ok && codes(edsger.result)).toEqual([]);
    const { snapshot } = await loadPack(chorus, { env: {} });
    const files = new Map([...snapshot!.files].filter(([p]) => p !== 'defaults.md'));
    const outcome = tryCompose({ ...snapshot!, files }, { role: 'arbiter' });
    expect(outcome.ok && codes(outcome.result)).toEqual([]);
  });
});

describe('a manifest that composes nothing is an error', () => {
  it('name: acme alone is NO_LAYERS at line 1, saying layout detection is off', () => {
    const result = memPack({ 'strata.yaml': 'name: acme\n', 'base.md': 'B', 'roles/dev.md': 'D' });
    expect(codes(result)).toEqual(['NO_LAYERS']);
    expect(result.diagnostics[0]).toMatchObject({ file: 'strata.yaml', line: 1, col: 1 });
    expect(result.diagnostics[0]!.message).toContain('layout detection');
    expect(result.diagnostics[0]!.message).toContain('extends: roboco');
  });

  it('an empty layers list points at its key', () => {
    const result = memPack({ 'strata.yaml': 'name: acme\nlayers: []\n' });
    expect(result.diagnostics[0]).toMatchObject({ code: 'NO_LAYERS', line: 2, col: 1 });
  });

  it('validate exits 1 on it; compose too', async () => {
    const dir = tempDir();
    const { cpSync } = await import('node:fs');
    cpSync(roboco, dir, { recursive: true });
    writeFiles(dir, { 'strata.yaml': 'name: acme\n' });
    const v = await cli(['validate', '--dir', dir]);
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/error NO_LAYERS.*strata.yaml:1:1|strata.yaml:1:1.*error NO_LAYERS/);
    const c = await cli(['compose', '--dir', dir, '--agent', 'ada']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('error NO_LAYERS: strata.yaml:1:1:');
  });
});

describe('the CLI says unknown names (stderr, --json, exit status, --strict)', () => {
  it.each([
    [['--agent', 'adaa'], 1, 'error UNKNOWN_AGENT', 'did you mean "ada"?'],
    [['--role', 'qa', '--team', 'paymnets'], 0, 'warning UNKNOWN_TEAM', 'did you mean "payments"?'],
    [['--role', 'qa', '--team', 'paymnets', '--strict'], 1, 'error UNKNOWN_TEAM', 'did you mean "payments"?'],
    [[], 0, 'warning NO_ROLE', 'roles: architect'],
    [['--strict'], 1, 'error NO_ROLE', 'roles: architect'],
    [['--role', 'qa', '--agent', 'grayce'], 0, 'warning UNKNOWN_AGENT', 'did you mean "grace"?'],
  ])('compose %j → exit %i, %s', async (args, code, line, hint) => {
    const r = await cli(['compose', '--dir', roboco, ...args]);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(line);
    expect(r.stderr).toContain(hint);
  });

  it('--json carries the warning with its suggestions', async () => {
    const r = await cli(['compose', '--dir', roboco, '--role', 'qa', '--team', 'paymnets', '--json']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_TEAM', severity: 'warning', suggestions: ['payments'] }),
    ]);
  });

  it('export and explain say it too, and --strict fails them', async () => {
    const dir = tempDir();
    const out = join(dir, 'AGENTS.md');
    const e = await cli(['export', '--dir', roboco, '--agent', 'adaa', '--target', 'agents', '--out', out]);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain('error UNKNOWN_AGENT');
    const s = await cli([
      'export',
      '--dir',
      roboco,
      '--role',
      'qa',
      '--team',
      'paymnets',
      '--target',
      'agents',
      '--out',
      out,
      '--strict',
    ]);
    expect(s.code).toBe(1);
    const x = await cli(['explain', '--dir', roboco, '--role', 'qa', '--team', 'paymnets']);
    expect(x.code).toBe(0);
    expect(x.stderr).toContain('warning UNKNOWN_TEAM');
  });
});

describe('operator-set paths may live outside the pack; requests never choose one', () => {
  it('an env path outside the pack composes, is in the version and shows its absolute path', async () => {
    const { snapshot } = await loadPack(chorus, { env: { CHORUS_DEFAULT_INSTRUCTIONS_PATH: orgDefaults } });
    const plain = (await loadPack(chorus, { env: {} })).snapshot!;
    expect(snapshot!.version).not.toBe(plain.version);
    expect([...snapshot!.external!.keys()]).toEqual([orgDefaults]);
    const outcome = tryCompose(snapshot!, { role: 'arbiter' });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
    expect(outcome.result.layers.find((l) => l.id === 'D')).toMatchObject({
      included: true,
      source: orgDefaults,
    });
    expect(outcome.result.text.endsWith(readFileSync(orgDefaults, 'utf8').trim())).toBe(true);
  });

  it('--set on the CLI is the operator: it may name a file outside the pack', async () => {
    const r = await cli([
      'explain',
      '--dir',
      chorus,
      '--role',
      'arbiter',
      '--set',
      `default_instructions_path=${orgDefaults}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(orgDefaults);
  });

  it('a path outside the pack that does not exist fails the load', async () => {
    const missing = join(tempDir(), 'nope.md');
    const { snapshot, diagnostics } = await loadPack(chorus, {
      env: { CHORUS_DEFAULT_INSTRUCTIONS_PATH: missing },
    });
    expect(snapshot).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, d.file])).toContainEqual(['REQUIRED_MISSING', missing]);
  });

  it('a request never sets a path setting', async () => {
    const { snapshot } = await loadPack(chorus, { env: {} });
    const outcome = tryCompose(snapshot!, {
      role: 'arbiter',
      settings: { default_instructions_path: 'site-roles.yaml' },
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(codes(outcome)).toEqual(['PATH_SETTING_IN_REQUEST']);
  });
});

describe('role files whose name is no role id', () => {
  it('are said with BAD_ROLE at the file, not passed over without a word', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'base.md': 'Base.\n',
      'roles/dev.md': 'Dev.\n',
      'roles/ünï.md': 'Ü.\n',
      'roles/Front End.md': 'FE.\n',
    });
    const run = await cli(['validate', '--dir', dir, '--format', 'json']);
    const found = JSON.parse(run.stdout).diagnostics.filter((d: { code: string }) => d.code === 'BAD_ROLE');
    expect(found.map((d: { file: string; message: string }) => [d.file, d.message])).toEqual([
      [
        'roles/Front End.md',
        'role id "Front End" is not a valid name (letters, digits, . _ -, starting with a letter or digit); it is not a role',
      ],
      [
        'roles/ünï.md',
        'role id "ünï" is not a valid name (letters, digits, . _ -, starting with a letter or digit); it is not a role',
      ],
    ]);
    expect((await cli(['roles', '--dir', dir])).stdout).toBe('dev\n');
  });
});
