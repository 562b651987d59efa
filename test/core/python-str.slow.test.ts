import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pythonStr } from '../../src/layouts/crewai/python-str.js';

// pythonStr against CPython itself: seeded random JSON values (strings across the Unicode
// planes, quotes and escapes, fractions of every magnitude, nested lists and mappings),
// each read by python3's json.loads and written by str(), as CrewAI fills a placeholder.

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = [
  'a',
  'Z',
  ' ',
  "'",
  '"',
  '\\',
  '\n',
  '\t',
  '\r',
  '\x00',
  '\x1f',
  '\x7f',
  '\x85',
  '\xa0',
  'é',
  '\u00ad',
  '\u200b',
  '\u2028',
  '\u0378',
  '\ue000',
  '日',
  '😀',
  '\ud800',
  '\u{1d11e}',
  '\u{e0001}',
];

function value(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 3 ? 5 : 7));
  switch (kind) {
    case 0:
      return Array.from(
        { length: Math.floor(next() * 6) },
        () => CHARS[Math.floor(next() * CHARS.length)],
      ).join('');
    case 1:
      return next() < 0.5;
    case 2:
      return null;
    case 3:
      return Math.floor((next() - 0.5) * 2 ** Math.floor(next() * 53));
    case 4: {
      // A fraction (never whole) of any magnitude.
      let n = 0;
      while (Number.isInteger(n)) n = (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
      return n;
    }
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--)
        out[`k${Math.floor(next() * 100)}${CHARS[Math.floor(next() * CHARS.length)]}`] = value(
          next,
          depth + 1,
        );
      return out;
    }
  }
}

describe('pythonStr against python3', () => {
  it('2,000 random values are written as str() writes them', () => {
    const next = random(20261201);
    const values = Array.from({ length: 2000 }, () => value(next, 0));
    // Object keys that read as array indexes come first in JavaScript; none are generated.
    const input = values.map((v) => JSON.stringify(v)).join('\n');
    const script =
      'import sys, json\nfor line in sys.stdin.read().split("\\n"):\n    print(json.dumps(str(json.loads(line))))';
    const out = execFileSync('python3', ['-c', script], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
    const expected = out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as string);
    expect(expected).toHaveLength(values.length);
    const got = values.map((v) => {
      const r = pythonStr(v);
      return 'text' in r ? r.text : `problem: ${r.problem}`;
    });
    for (let i = 0; i < values.length; i++)
      expect([input.split('\n')[i], got[i]]).toEqual([input.split('\n')[i], expected[i]]);
  });
});
