import { describe, expect, it } from 'vitest';
import { getTokenizer, isTokenizerName, TOKENIZER_NAMES } from '../../src/tokens/tokenizer.js';

describe('tokenizer', () => {
  it.each([
    // text, o200k_base, cl100k_base
    ['', 0, 0],
    ['hello world', 2, 2],
    ['Hello, world!', 4, 4],
    ['The quick brown fox jumps over the lazy dog.', 10, 10],
    ['Привет, мир!', 5, 7],
    ['こんにちは世界', 2, 4],
    ['\n\n---\n\n', 2, 2],
    // special-token strings are plain text: counted, never refused
    ['<|endoftext|>', 7, 7],
    ['a<|endoftext|>b', 9, 9],
    ['<|im_start|>system', 7, 7],
  ])('counts %j as %i (o200k_base) and %i (cl100k_base)', (text, o200k, cl100k) => {
    expect(getTokenizer('o200k_base').count(text)).toBe(o200k);
    expect(getTokenizer('cl100k_base').count(text)).toBe(cl100k);
  });

  it('defaults to o200k_base', () => {
    const tokenizer = getTokenizer();
    expect([tokenizer.name, tokenizer.encoding, tokenizer.estimate]).toEqual([
      'o200k_base',
      'o200k_base',
      false,
    ]);
  });

  it('labels claude figures an estimate, counted with o200k_base', () => {
    const claude = getTokenizer('claude');
    expect([claude.name, claude.encoding, claude.estimate]).toEqual(['claude', 'o200k_base', true]);
    expect(claude.count('Привет, мир!')).toBe(5);
  });

  it('knows its names', () => {
    expect(TOKENIZER_NAMES).toEqual(['o200k_base', 'cl100k_base', 'claude']);
    expect(['o200k_base', 'cl100k_base', 'claude', 'gpt2', 7].map(isTokenizerName)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('gives one tokenizer per name', () => {
    expect(getTokenizer('cl100k_base')).toBe(getTokenizer('cl100k_base'));
  });
});
