import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../../src/tokens/tokenizer.js';

// The counter merges long pre-tokens with a heap instead of gpt-tokenizer's quadratic
// loop: its counts must stay exactly the library's, on real text and on long runs.
const ROOT = resolve(import.meta.dirname, '../..');
const load = createRequire(import.meta.url);
const PLAIN = { disallowedSpecial: new Set<string>() };

function texts(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(md|ya?ml)$/.test(name)) out.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(ROOT, 'examples'));
  for (const unit of ['x', '中', '=', 'aB', 'é', '🙂', 'ab1', ' a', '\u0301a', 'Ab.']) {
    for (const n of [33, 64, 100, 257, 600]) out.push(unit.repeat(n));
  }
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const alphabet = [..."abcXYZ中文 \n\t=.-_/<|>'s0123é🙂"];
  for (let k = 0; k < 300; k++) {
    let s = '';
    const n = Math.floor(random() * 300);
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)];
    out.push(s);
  }
  return out;
}

describe('token counts stay exact', () => {
  it.each(['o200k_base', 'cl100k_base'] as const)('%s: the same counts as gpt-tokenizer', (encoding) => {
    const reference = load(`gpt-tokenizer/cjs/encoding/${encoding}`) as {
      countTokens(text: string, options: typeof PLAIN): number;
    };
    const tk = getTokenizer(encoding);
    const all = texts();
    const mismatches = all.filter((t) => tk.count(t) !== reference.countTokens(t, PLAIN));
    expect(all.length).toBeGreaterThan(300);
    expect(mismatches).toEqual([]);
  });
});
