import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { loadPackStrict } from '../../src/source/load.js';
import { countTokens, uncountedTexts, withTokens } from '../../src/tokens/count.js';
import { getTokenizer, type Tokenizer } from '../../src/tokens/tokenizer.js';
import { EXAMPLES, FIXTURES, okPack } from '../helpers.js';

const FLEET = join(FIXTURES, 'tokens-fleet');

/** A tokenizer that counts how often it is asked to count. */
function spy(): Tokenizer & { calls: string[] } {
  const real = getTokenizer('o200k_base');
  const calls: string[] = [];
  return {
    name: 'o200k_base',
    encoding: 'o200k_base',
    estimate: false,
    calls,
    count: (t) => {
      calls.push(t);
      return real.count(t);
    },
  };
}

describe('withTokens', () => {
  it('counts every included layer and the whole text', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const result = withTokens(compose(snapshot, { agent: 'cy' }), snapshot);
    expect(result.layers.map((l) => [l.id, l.tokens])).toEqual([
      ['preamble', 9],
      ['base', 17],
      ['role', 38],
      ['identity', 5],
      ['ambient', undefined],
    ]);
    expect(result.tokens).toEqual({
      tokenizer: 'o200k_base',
      estimate: false,
      total: 72,
      budget: { max: 50, nearFrom: 40, status: 'over' },
    });
    expect(result.layers[1]!.budget).toEqual({ max: 20, status: 'near' });
    expect(result.layers[0]!.budget).toBeUndefined();
  });

  it('keeps the result as it was and adds only token fields', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const plain = compose(snapshot, { agent: 'ada' });
    const copy = structuredClone(plain);
    const tokenized = withTokens(plain, snapshot);
    expect(plain).toEqual(copy);
    const { tokens: _t, layers, ...rest } = tokenized;
    const { layers: plainLayers, ...plainRest } = plain;
    expect(rest).toEqual(plainRest);
    expect(layers.map(({ tokens: _n, budget: _b, ...l }) => l)).toEqual(plainLayers);
  });

  it('counts ambient text too, multi-byte included', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const result = withTokens(
      compose(snapshot, { agent: 'ada', ambient: 'Привет, мир! <|endoftext|>' }),
      snapshot,
    );
    expect(result.layers.find((l) => l.id === 'ambient')?.tokens).toBe(12);
    expect(getTokenizer().count('Привет, мир! <|endoftext|>')).toBe(12);
  });

  it('labels counts for claude an estimate', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const { tokens } = withTokens(compose(snapshot, { agent: 'ada' }), snapshot, getTokenizer('claude'));
    expect(tokens).toMatchObject({ tokenizer: 'o200k_base', family: 'claude', estimate: true, total: 47 });
  });

  it('uses the tokenizer the manifest names', () => {
    const snapshot = okPack({
      'strata.yaml': 'tokenizer: cl100k_base\nlayers:\n  - id: base\n    file: base.md\n',
      'base.md': 'Привет, мир!',
    });
    const { tokens, layers } = withTokens(compose(snapshot, {}), snapshot);
    expect([tokens.tokenizer, tokens.total, layers[0]!.tokens]).toEqual(['cl100k_base', 7, 7]);
    expect(withTokens(compose(snapshot, {}), snapshot, getTokenizer('o200k_base')).tokens.total).toBe(5);
  });

  it('counts each layer text once per snapshot, not per request', async () => {
    const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'));
    const tokenizer = spy();
    const agents = snapshot.fleet.map((a) => a.id);
    const results = agents.map((agent) =>
      compose(snapshot, { agent, settings: { fable_mode_enabled: 'on' } }),
    );
    for (const result of results) withTokens(result, snapshot, tokenizer);
    const distinct = new Set(
      results.flatMap((r) => [r.sha256, ...r.layers.filter((l) => l.included).map((l) => l.sha256)]),
    );
    expect(tokenizer.calls.length).toBe(distinct.size);
    for (const result of results) withTokens(result, snapshot, tokenizer);
    expect(tokenizer.calls.length).toBe(distinct.size);
    // A new snapshot of the same pack starts its own cache.
    const again = await loadPackStrict(join(EXAMPLES, 'roboco'));
    withTokens(compose(again, { agent: 'ada' }), again, tokenizer);
    expect(tokenizer.calls.length).toBeGreaterThan(distinct.size);
  });

  it('countTokens caches any text by its hash', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const tokenizer = spy();
    expect(countTokens(snapshot, tokenizer, 'hello world')).toBe(2);
    expect(countTokens(snapshot, tokenizer, 'hello world')).toBe(2);
    expect(tokenizer.calls).toEqual(['hello world']);
  });
});

describe('uncountedTexts', () => {
  it("gives each layer's text as the UTF-8 bytes between its offsets decode (property)", async () => {
    const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'));
    const tk = getTokenizer('o200k_base');
    const decoder = new TextDecoder();
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom('中文', '😀', 'é', '\ud800', '\udc00', '\u2028', 'x'.repeat(200)),
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (parts) => {
        const ambient = `${parts.join('')} ${Math.random()}`;
        const result = compose(snapshot, { role: 'developer', ambient });
        const bytes = new TextEncoder().encode(result.text);
        const texts = new Map(uncountedTexts(result, snapshot, tk).map((m) => [m.hash, m.text]));
        for (const layer of result.layers) {
          if (!layer.included || !texts.has(layer.sha256!)) continue;
          expect(texts.get(layer.sha256!)).toBe(decoder.decode(bytes.subarray(layer.start, layer.end)));
        }
        expect(texts.size).toBeGreaterThan(0);
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});
