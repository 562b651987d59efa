import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, globAutomaton, globHoldsBelow } from '../../src/core/pack/glob.js';

/** The reference semantics, as a regular expression (only safe on small inputs). */
function reference(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

describe('glob matching', () => {
  it.each([
    ['*.yaml', 'roles.yaml', true],
    ['*.yaml', 'roles/a.yaml', false],
    ['**/*.yaml', 'roles.yaml', true],
    ['**/*.yaml', 'a/b/c.yaml', true],
    ['roles/**/*.md', 'roles/x.md', true],
    ['roles/**/*.md', 'roles/a/b/x.md', true],
    ['roles/**', 'roles/a/b', true],
    ['roles/**', 'other/a', false],
    ['r?les.yaml', 'roles.yaml', true],
    ['r?les.yaml', 'r/les.yaml', false],
    ['a.b', 'axb', false],
    ['', '', true],
  ])('%s against %s is %s', (glob, path, expected) => {
    expect(compileGlob(glob)(path)).toBe(expected);
  });

  it('agrees with the reference semantics on random globs and paths', () => {
    const alphabet = fc.constantFrom('a', 'b', '/', '.', '*', '?');
    const glob = fc.array(alphabet, { maxLength: 8 }).map((a) => a.join(''));
    const path = fc.array(fc.constantFrom('a', 'b', '/', '.'), { maxLength: 10 }).map((a) => a.join(''));
    fc.assert(
      fc.property(glob, path, (g, p) => compileGlob(g)(p) === reference(g).test(p)),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('the shortcuts for common shapes (literal, a*b, a**b, **∕a, **∕*a) agree with the automaton', () => {
    const lit = fc.array(fc.constantFrom('a', 'b', '/', '.'), { maxLength: 4 }).map((a) => a.join(''));
    const glob = fc.oneof(
      lit,
      fc.tuple(lit, fc.constantFrom('*', '**', '**/', '**/*'), lit).map(([h, w, r]) => h + w + r),
    );
    const path = fc.array(fc.constantFrom('a', 'b', '/', '.'), { maxLength: 10 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        glob,
        path,
        (g, p) => compileGlob(g)(p) === globAutomaton(g)(p) && globAutomaton(g)(p) === reference(g).test(p),
      ),
      { numRuns: 5000, seed: 7 },
    );
  });

  it.each([
    ['**/*.md', '.claude/agents/ext', true],
    ['.claude/agents/**/*.md', '.claude/agents/team', true],
    ['.claude/agents/**/*.md', '.claude', true],
    ['.claude/agents/**/*.md', 'docs', false],
    ['roles/*.md', 'roles', true],
    ['roles/*.md', 'roles/team', false],
    ['*.yaml', 'sub', false],
    ['**/AGENTS.md', 'backend/vendor', true],
    ['base.md', 'base.md', false],
  ])('%s can match inside the folder %s: %s', (glob, folder, expected) => {
    expect(globHoldsBelow(glob)(folder)).toBe(expected);
  });

  it('can match inside a folder exactly when some path in it matches (random globs and folders)', () => {
    const glob = fc.array(fc.constantFrom('a', '/', '.', '*', '?'), { maxLength: 6 }).map((a) => a.join(''));
    const folder = fc
      .array(fc.constantFrom('a', '/', '.'), { minLength: 1, maxLength: 4 })
      .map((a) => a.join(''));
    // Every rest of a path in the folder up to the glob's length (a token takes one character at most).
    const rests = [''];
    for (let i = 0, from = 0; i < 6; i++) {
      const to = rests.length;
      for (let j = from; j < to; j++) for (const ch of ['a', '/', '.']) rests.push(rests[j] + ch);
      from = to;
    }
    fc.assert(
      fc.property(glob, folder, (g, f) => {
        const re = reference(g);
        return globHoldsBelow(g)(f) === rests.some((r) => r !== '' && re.test(`${f}/${r}`));
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('a glob built to backtrack (*a*a…*ab.yaml) is answered at once', () => {
    const glob = `${'*a'.repeat(12)}*ab.yaml`;
    const name = `${'a'.repeat(35)}.yaml`;
    // The regular expression form of this glob takes longer than the test timeout.
    expect(compileGlob(glob)(name)).toBe(false);
    expect(compileGlob(`**${'*a'.repeat(30)}**b.yaml`)(`${'a'.repeat(200)}.yaml`)).toBe(false);
  });
});
