import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseVerbRegistry, renderVerbFragments, signature } from '../../src/tooling/verbs/verbs.js';
import { cli, EXAMPLES, tempDir, writeFiles } from '../helpers.js';

const ROBOCO = join(EXAMPLES, 'roboco');

const REGISTRY = `verbs:
  - name: zeta
    description: Last verb.
    kind: do
    roles: [b]
  - name: alpha
    description: >
      First verb,
      folded.
    kind: flow
    roles: [a, b]
    params:
      - { name: x, type: str }
      - { name: ratio, type: float, default: 1.0 }
      - { name: label, type: str, default: main }
      - { name: note, type: "str | None", default: null }
      - { name: tags, type: "list[str]", default: [] }
      - { name: on, type: bool, default: true }
`;

describe('verb registry', () => {
  it('the roboco example has no drift: its _generated/ is exactly what the registry renders', () => {
    const { verbs, diagnostics } = parseVerbRegistry(
      readFileSync(join(ROBOCO, 'verbs.yaml'), 'utf8'),
      'verbs.yaml',
    );
    expect(diagnostics).toEqual([]);
    const rendered = renderVerbFragments(verbs);
    const onDisk = readdirSync(join(ROBOCO, '_generated')).sort();
    expect([...rendered.keys()].sort()).toEqual(onDisk);
    for (const [name, text] of rendered)
      expect(text).toBe(readFileSync(join(ROBOCO, '_generated', name), 'utf8'));
  });

  it('strata generate --check passes on the roboco example', async () => {
    const r = await cli(['generate', '--dir', ROBOCO, '--check']);
    expect(r.code).toBe(0);
  });

  it('renders sorted verbs, defaults as written, and nothing but prompt text', () => {
    const { verbs, diagnostics } = parseVerbRegistry(REGISTRY, 'v.yaml');
    expect(diagnostics).toEqual([]);
    const files = renderVerbFragments(verbs);
    expect([...files.keys()]).toEqual(['a.md', 'b.md', 'lifecycle-a.md', 'lifecycle-b.md']);
    expect(files.get('lifecycle-b.md')).toBe(
      '# Lifecycle verbs for b\n\nYou may call only these verbs. Any other verb is refused.\n\n' +
        '- `alpha` (flow): First verb, folded.\n- `zeta` (do): Last verb.\n',
    );
    expect(signature(verbs.find((v) => v.name === 'alpha')!)).toBe(
      'alpha(x: str, ratio: float = 1.0, label: str = "main", note: str | None = null, tags: list[str] = [], on: bool = true)',
    );
    // A | inside a table cell is escaped.
    expect(files.get('a.md')).toContain('note: str \\| None = null');
    expect([...files.values()].join('')).not.toMatch(/<!--|undefined|\[object/);
  });

  it.each([
    [
      'a duplicate verb',
      'verbs:\n  - { name: a, description: A, kind: do, roles: [r] }\n  - { name: a, description: B, kind: do, roles: [r] }\n',
      3,
      'duplicate verb a',
    ],
    [
      'a bad kind',
      'verbs:\n  - { name: a, description: A, kind: go, roles: [r] }\n',
      2,
      'kind must be flow or do',
    ],
    [
      'no roles',
      'verbs:\n  - name: a\n    description: A\n    kind: do\n    roles: []\n',
      5,
      'roles must be a non-empty list',
    ],
    [
      'a duplicate parameter',
      'verbs:\n  - name: a\n    description: A\n    kind: do\n    roles: [r]\n    params:\n      - { name: p, type: str }\n      - { name: p, type: int }\n',
      8,
      'duplicate parameter p',
    ],
    [
      'an unknown key',
      'verbs:\n  - { name: a, description: A, kind: do, roles: [r], color: red }\n',
      2,
      'unknown key "color"',
    ],
    ['no verbs list', 'verbz: []\n', 1, 'verbs: list'],
    ['bad YAML', 'verbs: [\n', 2, ''],
  ])('refuses %s with BAD_REGISTRY at its line', (_, text, line, message) => {
    const { diagnostics } = parseVerbRegistry(text, 'v.yaml');
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics[0]).toMatchObject({ code: 'BAD_REGISTRY', severity: 'error', file: 'v.yaml', line });
    expect(diagnostics[0]!.message).toContain(message);
  });
});

describe('strata generate', () => {
  it('writes the fragments, then writes nothing; --check finds changed, missing and stale files', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'verbs.yaml': REGISTRY });
    const first = await cli(['generate', '--registry', join(dir, 'verbs.yaml'), '--out', join(dir, 'gen')]);
    expect(first.code).toBe(0);
    expect(readdirSync(join(dir, 'gen')).sort()).toEqual([
      'a.md',
      'b.md',
      'lifecycle-a.md',
      'lifecycle-b.md',
    ]);
    const again = await cli([
      'generate',
      '--registry',
      join(dir, 'verbs.yaml'),
      '--out',
      join(dir, 'gen'),
      '--json',
    ]);
    expect(JSON.parse(again.stdout).files.every((f: { status: string }) => f.status === 'same')).toBe(true);

    writeFileSync(join(dir, 'gen', 'a.md'), 'hand edited\n');
    writeFileSync(
      join(dir, 'gen', 'old-role.md'),
      '# Verb signatures for old-role\r\n\n| verb | signature |\n',
    );
    writeFileSync(join(dir, 'gen', 'lifecycle-gone.md'), '\uFEFF# Lifecycle verbs for gone\n');
    // Not the generator's: a note, a file whose heading is for another name, a README.
    writeFileSync(join(dir, 'gen', 'notes.md'), 'hand written\n');
    writeFileSync(join(dir, 'gen', 'c.md'), '# Verb signatures for d\n');
    writeFileSync(join(dir, 'gen', 'README.md'), '# What this folder is\n');
    const check = await cli([
      'generate',
      '--registry',
      join(dir, 'verbs.yaml'),
      '--out',
      join(dir, 'gen'),
      '--check',
      '--json',
    ]);
    expect(check.code).toBe(1);
    expect(JSON.parse(check.stdout).files.filter((f: { status: string }) => f.status !== 'same')).toEqual([
      { file: 'a.md', status: 'changed' },
      { file: 'lifecycle-gone.md', status: 'stale' },
      { file: 'old-role.md', status: 'stale' },
    ]);
    const text = await cli([
      'generate',
      '--registry',
      join(dir, 'verbs.yaml'),
      '--out',
      join(dir, 'gen'),
      '--check',
    ]);
    expect(text.stdout).toContain('-hand edited\n+# Verb signatures for a\n');

    const fix = await cli([
      'generate',
      '--registry',
      join(dir, 'verbs.yaml'),
      '--out',
      join(dir, 'gen'),
      '--prune',
    ]);
    expect(fix.code).toBe(0);
    expect(fix.stdout).toContain(`deleted ${join(dir, 'gen', 'old-role.md')}\n`);
    expect(readdirSync(join(dir, 'gen')).sort()).toEqual([
      'README.md',
      'a.md',
      'b.md',
      'c.md',
      'lifecycle-a.md',
      'lifecycle-b.md',
      'notes.md',
    ]);
    expect(
      (await cli(['generate', '--registry', join(dir, 'verbs.yaml'), '--out', join(dir, 'gen'), '--check']))
        .code,
    ).toBe(0);
  });

  it('one verb is said as one: "for 1 verb", not "for 1 verbs"', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'verbs.yaml': 'verbs:\n  - { name: go, description: Go., kind: do, roles: [a] }\n' });
    const run = await cli(['generate', '--registry', join(dir, 'verbs.yaml'), '--out', join(dir, 'gen')]);
    expect([run.code, run.stdout.split('\n').at(-2)]).toEqual([0, '2 fragments for 1 verb; 2 written']);
  });

  it('hostile input: missing registry, duplicate verb, missing flags', async () => {
    const dir = tempDir();
    const missing = await cli(['generate', '--registry', join(dir, 'nope.yaml'), '--out', join(dir, 'g')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error READ_ERROR: .*nope\.yaml: cannot read the verbs registry: ENOENT/);
    writeFiles(dir, {
      'v.yaml':
        'verbs:\n  - { name: a, description: A, kind: do, roles: [r] }\n  - { name: a, description: B, kind: do, roles: [r] }\n',
    });
    const dup = await cli(['generate', '--registry', join(dir, 'v.yaml'), '--out', join(dir, 'g')]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/^error BAD_REGISTRY: .*v\.yaml:3:5: duplicate verb a/);
    expect(existsSync(join(dir, 'g'))).toBe(false);
    expect((await cli(['generate', '--registry', join(dir, 'v.yaml')])).code).toBe(2);
  });
});
