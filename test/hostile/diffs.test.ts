import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as Diff from 'diff';
import { applyPatch, createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { MAX_DIFF_EDITS, promptDiff } from '../../src/tooling/diff/diff.js';
import { ROOT } from '../helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: an untyped browser module
const diffModel: any = await import(pathToFileURL(join(ROOT, 'src/inspector/static/diff-model.js')).href);

const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join('\n');

/**
 * Diffs of prompts that share nothing: the cost of a shortest diff grows with lines ×
 * edits, so two rewritten 25,000-line prompts took minutes (`strata diff` hung). Past
 * MAX_DIFF_EDITS the diff replaces every line: exact, bounded.
 */
describe('hostile diffs', () => {
  it('two prompts more than MAX_DIFF_EDITS lines apart get an exact whole-replacement diff', () => {
    const n = MAX_DIFF_EDITS; // n removed + n added: twice the bound
    const before = lines('old', n);
    const after = lines('new', n + 1);
    const d = promptDiff('ada', before, after);
    expect(d.removed).toBe(n);
    expect(d.added).toBe(n + 1);
    expect(d.diff.startsWith(`--- a/ada\n+++ b/ada\n@@ -1,${n} +1,${n + 1} @@\n-old line 0\n`)).toBe(true);
    expect(applyPatch(`${before}\n`, d.diff)).toBe(`${after}\n`);
  });

  it('two rewritten 20,000-line prompts are diffed (this hung for minutes)', () => {
    const before = lines('old', 20_000);
    const after = lines('new', 20_000);
    const d = promptDiff('ada', before, after);
    expect([d.removed, d.added]).toEqual([20_000, 20_000]);
    expect(applyPatch(`${before}\n`, d.diff)).toBe(`${after}\n`);
  });

  it('the replacement diff has the shape the diff library gives for small texts, empty sides too', () => {
    const big = lines('x', MAX_DIFF_EDITS + 1);
    for (const [a, b] of [
      ['', big],
      [big, ''],
    ] as const) {
      const d = promptDiff('m', a, b);
      const expected = createTwoFilesPatch(
        'a/m',
        'b/m',
        a === '' ? '' : `${a}\n`,
        b === '' ? '' : `${b}\n`,
        '',
        '',
        {
          context: 3,
        },
      ).replace(/^=+\n/, '');
      expect(d.diff.replace(/\t/g, '')).toBe(expected.replace(/\t/g, ''));
    }
  });

  it('prompts a few edits apart still get the shortest diff', () => {
    const before = lines('same', 5000);
    const after = before.replace('same line 2500', 'changed line');
    const d = promptDiff('ada', before, after);
    expect([d.added, d.removed]).toEqual([1, 1]);
    expect(applyPatch(`${before}\n`, d.diff)).toBe(`${after}\n`);
  });

  it('the inspector compare view diffs two rewritten 20,000-line prompts as one replacing hunk', () => {
    const diff = diffModel.diffHunks(Diff, lines('old', 20_000), lines('new', 20_000));
    expect([diff.removed, diff.added]).toEqual([20_000, 20_000]);
    expect(diff.hunks).toHaveLength(1);
    expect(diff.hunks[0].header).toBe('@@ -1,20000 +1,20000 @@');
    expect(diff.hunks[0].rows[0]).toMatchObject({ kind: 'del', old: 1, text: 'old line 0' });
    expect(diff.hunks[0].rows[20_000]).toMatchObject({ kind: 'add', new: 1, text: 'new line 0' });
  });

  it('the inspector shows an edited line of thousands of different words replaced whole, not word by word', () => {
    const words = (tag: string) => Array.from({ length: 3000 }, (_, i) => `${tag}${i}`).join(' ');
    const diff = diffModel.diffHunks(Diff, `same\n${words('a')}`, `same\n${words('b')}`);
    const rows = diff.hunks[0].rows;
    expect(rows.map((r: { kind: string }) => r.kind)).toEqual(['ctx', 'del', 'add']);
    expect(rows[1].parts).toBeUndefined();
    // A line edited in one word is still marked word by word.
    const small = diffModel.diffHunks(Diff, 'one two three', 'one two four');
    expect(small.hunks[0].rows[0].parts).toBeDefined();
  });
});
