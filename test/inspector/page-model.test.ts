import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as Diff from 'diff';
import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { formatExplain, withLayerWording } from '../../src/core/compose/explain.js';
import { type Diagnostic, formatDiagnostic } from '../../src/core/text/diagnostics.js';
import { inspectorAssets } from '../../src/inspector/assets.js';
import { loadPackStrict } from '../../src/source/load.js';
import { EXAMPLES, ROOT } from '../helpers.js';

// The page's modules are plain browser ES modules; their pure parts run in Node as well.
// biome-ignore lint/suspicious/noExplicitAny: untyped browser modules
type Mod = any;
const load = (name: string): Promise<Mod> =>
  import(pathToFileURL(join(ROOT, 'src/inspector/static', name)).href);
const format: Mod = await load('format.js');
// The diagnostic formatter the service serves the page: the core's own functions.
const served = (await inspectorAssets()).get('/diagnostic-format.js')!.body;
const diagnosticFormat: Mod = await import(
  `data:text/javascript;base64,${Buffer.from(served).toString('base64')}`
);
const state: Mod = await load('state.js');
const diffModel: Mod = await load('diff-model.js');

describe('format.js', () => {
  it.each<[Diagnostic]>([
    [{ code: 'YAML_SYNTAX', severity: 'error', message: 'bad', file: 'roles.yaml', line: 3, col: 7 }],
    [{ code: 'BAD_FRONTMATTER', severity: 'error', message: 'unclosed', file: 'roles/qa.md', line: 1 }],
    [{ code: 'FALLBACK_USED', severity: 'warning', message: 'no layer', file: 'base.md' }],
    [{ code: 'UNKNOWN_ROLE', severity: 'error', message: 'unknown role "x"' }],
  ])('formats %j exactly as the CLI and the server do', (d) => {
    expect(diagnosticFormat.formatDiagnostic(d)).toBe(formatDiagnostic(d));
  });

  it('slices every included layer out of the prompt by its byte range', async () => {
    const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'), { env: {} });
    const result = compose(snapshot, {
      agent: 'ada',
      settings: { fable_mode_enabled: 'on' },
      ambient: 'Ünïcode ✓ ambient',
    });
    const texts: Map<string, string> = format.layerTexts(result);
    const included = result.layers.filter((l) => l.included);
    expect([...texts.keys()]).toEqual(included.map((l) => l.id));
    expect([...texts.values()].join(snapshot.manifest.separator)).toBe(result.text);
    expect(texts.get('ambient')).toBe('Ünïcode ✓ ambient');
  });

  it('names the layers that differ between two results', async () => {
    const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'), { env: {} });
    const off = compose(snapshot, { agent: 'ada' });
    const on = compose(snapshot, { agent: 'ada', settings: { fable_mode_enabled: 'on' } });
    expect([...format.changedLayers(off, on)]).toEqual(['fable', 'ponytail']);
    expect([...format.changedLayers(on, on)]).toEqual([]);
  });

  it.each([
    ['gated', { fable_mode_enabled: 'off' }, 'fable', 'gated: fable_mode_enabled', '-'],
    ['no-value', {}, 'ambient', 'no-value: {ambient}', 'request: ambient'],
  ] as const)(
    'the service words why a layer is left out (%s), as `strata explain`',
    async (_reason, settings, id, status, source) => {
      const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'), { env: {} });
      const layer = withLayerWording(compose(snapshot, { agent: 'ada', settings })).layers.find(
        (l) => l.id === id,
      )!;
      expect(layer.explain).toEqual({ status, source });
      expect(formatExplain(compose(snapshot, { agent: 'ada', settings }))).toContain(`${status}  `);
    },
  );

  it('groups digits, shortens hashes and gives each layer a stable hue', () => {
    expect(format.formatBytes(1234567)).toBe('1,234,567 B');
    expect(format.formatBytes(812)).toBe('812 B');
    expect(format.shortHash('0123456789abcdef')).toBe('0123456789ab');
    const hues: Map<string, number> = format.layerHues([
      { id: 'tools' },
      { id: 'base' },
      { id: 'role' },
      { id: 'base' },
    ]);
    expect([...hues]).toEqual([
      ['tools', 10],
      ['base', 148],
      ['role', 285],
    ]);
    expect(format.downloadName({ agent: 'ada', sha256: 'abcdef0123456789' })).toBe('strata-ada-abcdef01.md');
  });
});

describe('state.js', () => {
  it.each([
    ['', ''],
    ['?agent=ada', '?agent=ada'],
    ['?agent=ada&set.fable_mode_enabled=true', '?agent=ada&set.fable_mode_enabled=true'],
    ['?view=fleet&sort=bytes', '?view=fleet&sort=bytes'],
    ['?view=fleet&tab=compare', '?view=fleet'],
    [
      '?agent=ada&tab=compare&cmp=agent&with=linus&diff=split&swap=1',
      '?agent=ada&tab=compare&cmp=agent&with=linus&diff=split&swap=1',
    ],
    [
      '?agent=ada&tab=compare&with.ponytail_intensity=ultra',
      '?agent=ada&tab=compare&with.ponytail_intensity=ultra',
    ],
    ['?view=bogus&tab=nope&sort=x', ''],
  ])('round-trips the URL %s', (search, written) => {
    expect(state.writeState(state.readState(search))).toBe(written);
  });

  it('builds the compose request of a selection', () => {
    const s = state.readState('?agent=ada&set.fable_mode_enabled=on&ambient=hi');
    expect(state.requestOf(s)).toEqual({
      agent: 'ada',
      ambient: 'hi',
      settings: { fable_mode_enabled: 'on' },
    });
    expect(state.requestOf(s, { agent: 'linus' })).toEqual({
      agent: 'linus',
      ambient: 'hi',
      settings: { fable_mode_enabled: 'on' },
    });
    expect(state.requestOf(s, { settings: {} })).toEqual({ agent: 'ada', ambient: 'hi' });
    expect(state.requestOf(state.readState('?role=qa&team=payments'))).toEqual({
      role: 'qa',
      team: 'payments',
    });
  });

  it('sorts fleet rows by a column, sizes largest first, ties in fleet order', () => {
    const rows = [
      { order: 0, id: 'b', role: 'qa', bytes: 10 },
      { order: 1, id: 'a', role: 'dev', bytes: 30 },
      { order: 2, id: 'c', role: 'dev', bytes: 30 },
      { order: 3, id: 'd', bytes: undefined },
    ];
    const ids = (key: string) => state.sortRows(rows, key).map((r: { id: string }) => r.id);
    expect(ids('order')).toEqual(['b', 'a', 'c', 'd']);
    expect(ids('id')).toEqual(['a', 'b', 'c', 'd']);
    expect(ids('role')).toEqual(['a', 'c', 'b', 'd']);
    expect(ids('bytes')).toEqual(['a', 'c', 'b', 'd']);
  });
});

describe('diff-model.js', () => {
  it('numbers the lines of each hunk and marks the changed words', () => {
    const diff = diffModel.diffHunks(Diff, 'one\ntwo old\nthree', 'one\ntwo new\nthree\nfour');
    expect(diff.added).toBe(2);
    expect(diff.removed).toBe(1);
    expect(diff.hunks).toHaveLength(1);
    const [hunk] = diff.hunks;
    expect(hunk.header).toBe('@@ -1,3 +1,4 @@');
    expect(
      hunk.rows.map((r: { kind: string; old?: number; new?: number }) => [r.kind, r.old, r.new]),
    ).toEqual([
      ['ctx', 1, 1],
      ['del', 2, undefined],
      ['add', undefined, 2],
      ['ctx', 3, 3],
      ['add', undefined, 4],
    ]);
    expect(hunk.rows[1].parts).toEqual([
      { text: 'two ', changed: false },
      { text: 'old', changed: true },
    ]);
    expect(hunk.rows[2].parts).toEqual([
      { text: 'two ', changed: false },
      { text: 'new', changed: true },
    ]);
  });

  it('shows lines that share little as replaced whole', () => {
    const [hunk] = diffModel.diffHunks(Diff, 'alpha beta gamma', 'one two three').hunks;
    expect(hunk.rows.map((r: { parts?: unknown }) => r.parts)).toEqual([undefined, undefined]);
  });

  it('finds no hunk in identical prompts and pairs rows side by side', () => {
    expect(diffModel.diffHunks(Diff, 'same', 'same').hunks).toEqual([]);
    const diff = diffModel.diffHunks(Diff, 'a\nb\nc', 'a\nB\nX\nc');
    const pairs = diffModel.sideBySide(diff.hunks[0].rows);
    expect(
      pairs.map((p: { left?: { text: string }; right?: { text: string } }) => [p.left?.text, p.right?.text]),
    ).toEqual([
      ['a', 'a'],
      ['b', 'B'],
      [undefined, 'X'],
      ['c', 'c'],
    ]);
  });

  it('writes the unified diff as text', () => {
    const diff = diffModel.diffHunks(Diff, 'a\nb', 'a\nc');
    expect(diffModel.unifiedText(diff, 'old', 'new')).toBe('--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n');
  });
});
