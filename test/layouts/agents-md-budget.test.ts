import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { memPack } from '../helpers.js';

/**
 * project_doc_max_bytes at its edges, as Codex's read_project_docs spends it: each file's
 * bytes are cut to the budget still left, a file kept only when its text is not blank, and
 * the walk stops when nothing is left. Whatever the budget leaves out is said (TRUNCATED),
 * not only a file cut in the middle.
 */

function compose(files: Record<string, string>, cwd: string, budget: number) {
  const { snapshot } = memPack(files, { preset: 'agents-md' });
  const out = tryCompose(snapshot!, { vars: { cwd }, settings: { project_doc_max_bytes: budget } });
  if (!out.ok) throw new Error(JSON.stringify(out.diagnostics));
  return {
    text: out.result.text,
    parts: out.result.layers[0]!.parts!.map((p) => [p.source, p.included, p.reason]),
    warnings: out.result.diagnostics.map((d) => [d.code, d.file, d.message]),
  };
}

describe('agents-md: the byte budget at its edges', () => {
  it('a file exactly the budget is kept whole, unsaid', () => {
    const out = compose({ 'AGENTS.md': 'abcd' }, '.', 4);
    expect(out).toEqual({ text: 'abcd', parts: [['AGENTS.md', true, undefined]], warnings: [] });
  });

  it('files after one that spends the budget exactly are left out, with a warning naming them', () => {
    const out = compose({ 'AGENTS.md': 'abcd', 'a/AGENTS.md': 'efgh', 'a/b/AGENTS.md': 'ijkl' }, 'a/b', 4);
    expect(out.text).toBe('abcd');
    expect(out.parts).toEqual([
      ['AGENTS.md', true, undefined],
      ['a/AGENTS.md', false, 'budget'],
      ['a/b/AGENTS.md', false, 'budget'],
    ]);
    expect(out.warnings).toEqual([
      [
        'TRUNCATED',
        'a/AGENTS.md',
        'layer agents: its byte budget leaves no text of a file (the layer keeps 4 bytes); left out, no budget left: a/AGENTS.md, a/b/AGENTS.md',
      ],
    ]);
  });

  it('a chain of many files left out names a dozen of them and how many: no message of every path of a deep tree', () => {
    const files: Record<string, string> = { 'AGENTS.md': 'abcd' };
    let dir = '';
    for (let i = 0; i < 30; i++) {
      dir += `${dir === '' ? '' : '/'}d${i}`;
      files[`${dir}/AGENTS.md`] = `level ${i}`;
    }
    const out = compose(files, dir, 4);
    const left = Object.keys(files).slice(1);
    expect(out.parts.filter((p) => p[2] === 'budget').length).toBe(30);
    expect(out.warnings).toEqual([
      [
        'TRUNCATED',
        'd0/AGENTS.md',
        `layer agents: its byte budget leaves no text of a file (the layer keeps 4 bytes); left out, no budget left: ${left.slice(0, 12).join(', ')}, … (30 in all)`,
      ],
    ]);
  });

  it('a file the budget leaves only blanks of is left out for want of budget; a blank file is only blank', () => {
    const out = compose({ 'AGENTS.md': 'ab', 'a/AGENTS.md': '  xyz', 'a/b/AGENTS.md': ' \n' }, 'a/b', 4);
    // Codex keeps no blank text and spends no budget on it: the last file is read (blank).
    expect(out.text).toBe('ab');
    expect(out.parts).toEqual([
      ['AGENTS.md', true, undefined],
      ['a/AGENTS.md', false, 'budget'],
      ['a/b/AGENTS.md', false, 'empty'],
    ]);
    expect(out.warnings.map((w) => w.slice(0, 2))).toEqual([['TRUNCATED', 'a/AGENTS.md']]);
    const blank = compose({ 'AGENTS.md': '   \n\t\n', 'a/AGENTS.md': 'efgh' }, 'a', 4);
    expect(blank).toEqual({
      text: 'efgh',
      parts: [
        ['AGENTS.md', false, 'empty'],
        ['a/AGENTS.md', true, undefined],
      ],
      warnings: [],
    });
  });

  it('a cut inside a character says the bytes kept of the file and the bytes in the prompt', () => {
    const out = compose({ 'AGENTS.md': 'ab\u00e9' }, '.', 3);
    expect(out.text).toBe('ab\uFFFD');
    expect(out.warnings).toEqual([
      [
        'TRUNCATED',
        'AGENTS.md',
        'layer agents: cut from 4 to 3 bytes by its byte budget (5 bytes in the prompt: bytes that are no whole UTF-8 character, such as a character cut in two, read as U+FFFD); the layer keeps 5 bytes',
      ],
    ]);
  });
});
