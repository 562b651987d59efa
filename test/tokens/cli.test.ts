import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, FIXTURES } from '../helpers.js';

const DIR = join(FIXTURES, 'tokens-fleet');
const ADA_TEXT =
  'You are part of a small writing team.\n\n---\n\nWrite plainly. Cite sources. Never invent quotes or numbers; say so when unsure.\n\n---\n\nYou write first drafts of articles from the notes you are given.\n\n---\n\nYour name is Ada.';

describe('strata compose --format', () => {
  it('text (the default) is exactly the prompt', async () => {
    const { code, stdout } = await cli(['compose', '--dir', DIR, '--agent', 'ada', '--format', 'text']);
    expect([code, stdout]).toEqual([0, ADA_TEXT]);
  });

  it('openai prints the system message body', async () => {
    const { code, stdout, stderr } = await cli([
      'compose',
      '--dir',
      DIR,
      '--agent',
      'ada',
      '--format',
      'openai',
    ]);
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toBe(`{"messages":[{"role":"system","content":${JSON.stringify(ADA_TEXT)}}]}\n`);
  });

  it('anthropic prints system blocks with breakpoints at the shared prefix and the end', async () => {
    const { code, stdout } = await cli(['compose', '--dir', DIR, '--agent', 'ada', '--format', 'anthropic']);
    expect(code).toBe(0);
    const head = ADA_TEXT.slice(0, 124);
    const block = (text: string) =>
      `{"type":"text","text":${JSON.stringify(text)},"cache_control":{"type":"ephemeral"}}`;
    expect(stdout).toBe(`{"system":[${block(head)},${block(ADA_TEXT.slice(124))}]}\n`);
  });

  it('json (and --json) carries token counts', async () => {
    for (const args of [['--format', 'json'], ['--json']]) {
      const { code, stdout } = await cli(['compose', '--dir', DIR, '--agent', 'cy', ...args]);
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      expect(result.tokens).toEqual({
        tokenizer: 'o200k_base',
        estimate: false,
        total: 72,
        budget: { max: 50, nearFrom: 40, status: 'over' },
      });
      expect(result.layers.map((l: { tokens?: number }) => l.tokens)).toEqual([9, 17, 38, 5, undefined]);
    }
  });

  it('--tokenizer picks the encoding; claude is an estimate', async () => {
    const cl = JSON.parse(
      (await cli(['compose', '--dir', DIR, '--agent', 'cy', '--json', '--tokenizer', 'cl100k_base'])).stdout,
    );
    expect(cl.tokens.tokenizer).toBe('cl100k_base');
    const claude = JSON.parse(
      (await cli(['compose', '--dir', DIR, '--agent', 'cy', '--json', '--tokenizer', 'claude'])).stdout,
    );
    expect(claude.tokens).toMatchObject({ tokenizer: 'o200k_base', family: 'claude', estimate: true });
  });

  it.each([[['--format', 'xml']], [['--tokenizer', 'gpt2']], [['--json', '--format', 'openai']]])(
    'refuses %j (exit 2)',
    async (args) => {
      const { code, stdout, stderr } = await cli(['compose', '--dir', DIR, '--agent', 'ada', ...args]);
      expect([code, stdout]).toEqual([2, '']);
      expect(stderr).toMatch(/^error USAGE: /);
    },
  );
});

describe('strata explain', () => {
  it('adds a tokens column and the total', async () => {
    const { code, stdout } = await cli(['explain', '--dir', DIR, '--agent', 'cy']);
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(3, 11)).toEqual([
      '#  layer     status               source            bytes  tokens  range',
      '1  preamble  included             preamble.md          37       9     0-37',
      '2  base      included             base.md              80      17   44-124',
      '3  role      included             roles/editor.md     186      38  131-317',
      '4  identity  included             identities/cy.md     16       5  324-340',
      '5  ambient   no-value: {ambient}  request: ambient',
      '',
      '4 of 5 layers included; 340 bytes; 72 tokens (o200k_base); budget 50: over; sha256 cdd62ece9996c9e03e5496ea528316c4824672fd48db81029610b4b0005adc78',
    ]);
  });

  it('--cache reports the fleet', async () => {
    const { code, stdout } = await cli(['explain', '--dir', DIR, '--cache', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect([report.prefix, report.share, report.members.length]).toEqual([
      { layers: ['preamble', 'base'], bytes: 124, tokens: 27 },
      0.488,
      3,
    ]);
    const text = await cli(['explain', '--dir', DIR, '--cache']);
    expect(text.stdout.split('\n').at(-2)).toBe(
      '166 prompt tokens in all; a warm prefix cache serves 81 (48.8%)',
    );
  });

  it('--cache is for the whole fleet (exit 2 with --agent)', async () => {
    const { code, stderr } = await cli(['explain', '--dir', DIR, '--cache', '--agent', 'ada']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error USAGE: /);
  });
});

describe('strata validate', () => {
  it('fails on a member over budget and warns on those near it', async () => {
    const { code, stdout, stderr } = await cli(['validate', '--dir', DIR]);
    expect(code).toBe(1);
    const out = stdout + stderr;
    expect(out.match(/OVER_BUDGET/g)).toHaveLength(1);
    expect(out.match(/NEAR_BUDGET/g)).toHaveLength(3);
  });
});
