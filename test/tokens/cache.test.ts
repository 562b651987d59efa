import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPackStrict } from '../../src/source/load.js';
import { analyzeCache, fleetPrefix, formatCacheReport } from '../../src/tokens/cache.js';
import { betterOrder, sharedPrefix } from '../../src/tokens/prefix.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { EXAMPLES, FIXTURES, tempDir, writeFiles } from '../helpers.js';

describe('the fleet prefix alone', () => {
  it.each([
    ['tokens-fleet', join(FIXTURES, 'tokens-fleet'), {}],
    ['roboco, fable on', join(EXAMPLES, 'roboco'), { fable_mode_enabled: 'on' }],
  ])('gives the prefix and better-order tokens of the full report (%s)', async (_name, dir, settings) => {
    const snapshot = await loadPackStrict(dir);
    const report = analyzeCache(snapshot, getTokenizer('o200k_base'), { settings });
    const prefix = fleetPrefix(snapshot, getTokenizer('o200k_base'), { settings });
    expect({
      layers: prefix.prefix.layers,
      tokens: prefix.prefixTokens,
      stability: prefix.stability,
      better: prefix.better,
      betterTokens: prefix.betterPrefixTokens,
    }).toEqual({
      layers: report.prefix.layers,
      tokens: report.prefix.tokens,
      stability: report.order.layers,
      better: report.order.better,
      betterTokens: report.order.betterPrefixTokens,
    });
  });
});

describe('cache analysis', () => {
  it('reports the shared prefix, each member, and the share a prefix cache serves', async () => {
    const snapshot = await loadPackStrict(join(FIXTURES, 'tokens-fleet'));
    const report = analyzeCache(snapshot);
    expect(report.prefix).toEqual({ layers: ['preamble', 'base'], bytes: 124, tokens: 27 });
    expect(report.members.map((m) => [m.key, m.role, m.tokens, m.shared, m.own])).toEqual([
      ['ada', 'writer', 47, 27, 21],
      ['bob', 'writer', 47, 27, 21],
      ['cy', 'editor', 72, 27, 46],
    ]);
    expect([report.totalTokens, report.cachedTokens, report.share]).toEqual([166, 81, 0.488]);
    expect(report.order).toEqual({
      layers: [
        { id: 'preamble', state: 'stable' },
        { id: 'base', state: 'stable' },
        { id: 'role', state: 'varying' },
        { id: 'identity', state: 'varying' },
        { id: 'ambient', state: 'absent' },
      ],
      defeating: [],
    });
    expect([report.tokenizer, report.estimate, report.failed]).toEqual(['o200k_base', false, []]);
  });

  it('names the better order when a varying layer comes first (roboco)', async () => {
    const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'));
    const report = analyzeCache(snapshot, getTokenizer('o200k_base'), {
      settings: { fable_mode_enabled: 'on' },
    });
    expect(report.prefix).toEqual({ layers: [], bytes: 0, tokens: 0 });
    expect(report.share).toBe(0);
    expect(report.order.defeating).toEqual(['tools', 'lifecycle']);
    expect(report.order.better).toEqual([
      'base',
      'fable',
      'tools',
      'lifecycle',
      'ponytail',
      'role',
      'verbs',
      'team',
      'identity',
      'ambient',
    ]);
    expect(report.order.betterPrefixTokens).toBe(2380);
    expect(report.members).toHaveLength(8);
  });

  it('labels claude figures an estimate', async () => {
    const snapshot = await loadPackStrict(join(FIXTURES, 'tokens-fleet'));
    const report = analyzeCache(snapshot, getTokenizer('claude'));
    expect([report.tokenizer, report.family, report.estimate]).toEqual(['o200k_base', 'claude', true]);
    expect(formatCacheReport(report).split('\n')[0]).toContain('o200k_base (estimate for claude');
  });

  it('says one member as one: "1 member", not "1 members"', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'Base.\n' });
    const [head] = formatCacheReport(analyzeCache(await loadPackStrict(dir))).split('\n');
    expect(head).toMatch(/ {2}1 member$/);
  });

  it('prints one row per member', async () => {
    const snapshot = await loadPackStrict(join(FIXTURES, 'tokens-fleet'));
    const lines = formatCacheReport(analyzeCache(snapshot)).split('\n');
    expect(lines.slice(1, 7)).toEqual([
      'shared prefix: preamble, base (27 tokens, 124 bytes)',
      '',
      'member  role    team  tokens  shared  own',
      'ada     writer            47      27   21',
      'bob     writer            47      27   21',
      'cy      editor            72      27   46',
    ]);
  });
});

describe('prefix helpers', () => {
  it('shares nothing with no results', () => {
    expect(sharedPrefix([])).toEqual({ layers: [], hashes: [], bytes: 0 });
  });

  it.each([
    [['stable', 'varying', 'absent'], undefined],
    [
      ['varying', 'stable'],
      ['b', 'a'],
    ],
    [['absent', 'stable', 'varying'], undefined],
    [
      ['stable', 'varying', 'stable', 'absent'],
      ['a', 'c', 'b', 'd'],
    ],
    [['varying', 'varying'], undefined],
  ] as const)('stability %j → better order %j', (states, better) => {
    const stability = states.map((state, i) => ({ id: 'abcd'[i]!, state }));
    expect(betterOrder(stability)).toEqual(better);
  });
});
