import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers.js';
import { appFor } from '../server/helpers.js';

const HEAD =
  'You are part of a small writing team.\n\n---\n\nWrite plainly. Cite sources. Never invent quotes or numbers; say so when unsure.';
const EPHEMERAL = { type: 'ephemeral' };

let service: Awaited<ReturnType<typeof appFor>>;

beforeAll(async () => {
  service = await appFor(join(FIXTURES, 'tokens-fleet'));
});
afterAll(() => service.close());

describe('service: tokens and provider formats', () => {
  it('results carry token counts', async () => {
    const body = await (await service.app.request('/api/agents/cy/prompt')).json();
    expect(body.tokens).toEqual({
      tokenizer: 'o200k_base',
      estimate: false,
      total: 72,
      budget: { max: 50, nearFrom: 40, status: 'over' },
    });
    expect(body.layers.map((l: { tokens?: number }) => l.tokens)).toEqual([9, 17, 38, 5, undefined]);
  });

  it('team results carry token counts too', async () => {
    const res = await service.app.request('/api/teams/compose', {
      method: 'POST',
      body: JSON.stringify({ members: [{ agent: 'ada' }, { agent: 'cy' }] }),
      headers: { 'content-type': 'application/json' },
    });
    const body = await res.json();
    expect(body.results.map((r: { tokens: { total: number } }) => r.tokens.total)).toEqual([47, 72]);
  });

  it('?format=anthropic answers system blocks with the fleet breakpoint', async () => {
    const res = await service.app.request('/api/agents/ada/prompt?format=anthropic');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.system.map((b: { text: string }) => b.text)).toEqual([
      HEAD,
      '\n\n---\n\nYou write first drafts of articles from the notes you are given.\n\n---\n\nYour name is Ada.',
    ]);
    expect(
      body.system.every(
        (b: { cache_control: unknown }) => JSON.stringify(b.cache_control) === JSON.stringify(EPHEMERAL),
      ),
    ).toBe(true);
  });

  it('POST /api/compose takes format openai', async () => {
    const res = await service.app.request('/api/compose', {
      method: 'POST',
      body: JSON.stringify({ role: 'editor', format: 'openai' }),
      headers: { 'content-type': 'application/json' },
    });
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['messages']);
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[0].content.startsWith(HEAD)).toBe(true);
  });

  it('refuses an unknown format (400)', async () => {
    expect((await service.app.request('/api/prompts/writer?format=xml')).status).toBe(400);
  });
});
