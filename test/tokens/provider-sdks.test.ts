import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { providerBody } from '../../src/formats/registry.js';
import { loadPackStrict } from '../../src/source/load.js';
import { EXAMPLES } from '../helpers.js';

// providerBody() passes to the official SDKs as they are typed, with no cast (this file is
// typechecked by `npm test`), and the request each SDK then sends carries exactly the
// composed prompt. The SDKs talk to a fetch of this test's own, never to the network.

const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'), { env: {} });
const result = compose(snapshot, { agent: 'ada' });

describe('providerBody() with the official SDKs', () => {
  it('is an OpenAI chat.completions.create body', async () => {
    const sent = capture({
      id: 'c',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4o',
      choices: [
        { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok', refusal: null } },
      ],
    });
    const client = new OpenAI({ apiKey: 'test', baseURL: 'http://sdk.invalid/v1', fetch: sent.fetch });
    const body = providerBody(snapshot, result, 'openai');
    const reply = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [...body.messages, { role: 'user', content: 'Review the loader change.' }],
    });
    expect(reply.choices[0]!.message.content).toBe('ok');
    expect(sent.body().messages).toEqual([
      { role: 'system', content: result.text },
      { role: 'user', content: 'Review the loader change.' },
    ]);
  });

  it('is an Anthropic messages.create body, cache breakpoints included', async () => {
    const sent = capture({
      id: 'm',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    const client = new Anthropic({ apiKey: 'test', baseURL: 'http://sdk.invalid', fetch: sent.fetch });
    const reply = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      ...providerBody(snapshot, result, 'anthropic'),
      messages: [{ role: 'user', content: 'Review the loader change.' }],
    });
    expect(reply.content[0]).toMatchObject({ type: 'text', text: 'ok' });
    const system = sent.body().system as Array<{ text: string; cache_control: unknown }>;
    expect(system.map((b) => b.text).join('')).toBe(result.text);
    expect(system.every((b) => JSON.stringify(b.cache_control) === '{"type":"ephemeral"}')).toBe(true);
  });
});

// --- internal ---

/** A fetch that answers `reply` as JSON and keeps the JSON body it was sent. */
function capture(reply: unknown): { fetch: typeof fetch; body: () => Record<string, unknown> } {
  let sent: Record<string, unknown> | undefined;
  const fetcher = (async (_url: unknown, init?: { body?: unknown }) => {
    sent = JSON.parse(String(init?.body));
    return new Response(JSON.stringify(reply), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
  return { fetch: fetcher, body: () => sent! };
}
