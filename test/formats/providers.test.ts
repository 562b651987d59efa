import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { compose } from '../../src/core/compose/compose.js';
import { type AnthropicBody, anthropicBody, openaiBody, providerBody } from '../../src/formats/registry.js';
import { loadPackStrict } from '../../src/source/load.js';
import { EXAMPLES, FIXTURES, okPack } from '../helpers.js';

const FLEET = join(FIXTURES, 'tokens-fleet');
const SHARED_HEAD =
  'You are part of a small writing team.\n\n---\n\nWrite plainly. Cite sources. Never invent quotes or numbers; say so when unsure.';
const EPHEMERAL = { type: 'ephemeral' };

function texts(body: AnthropicBody): string[] {
  return body.system.map((b) => b.text);
}

/** The files of a pack directory, for in-memory variants of it. */
function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('openai format', () => {
  it('is the text as the system message', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const result = compose(snapshot, { agent: 'ada' });
    expect(JSON.stringify(providerBody(snapshot, result, 'openai'))).toBe(
      JSON.stringify({ messages: [{ role: 'system', content: result.text }] }),
    );
    expect(openaiBody(result).messages[0].content).toBe(result.text);
  });
});

describe('anthropic format', () => {
  it('puts a breakpoint after the layers every fleet member shares, and one at the end', async () => {
    const snapshot = await loadPackStrict(FLEET);
    for (const agent of ['ada', 'bob', 'cy']) {
      const result = compose(snapshot, { agent });
      const body = providerBody(snapshot, result, 'anthropic') as AnthropicBody;
      expect(texts(body)[0]).toBe(SHARED_HEAD);
      expect(texts(body).join('')).toBe(result.text);
      expect(texts(body)[1]!.startsWith('\n\n---\n\n')).toBe(true);
      expect(body.system.map((b) => [b.type, b.cache_control])).toEqual([
        ['text', EPHEMERAL],
        ['text', EPHEMERAL],
      ]);
    }
  });

  it('moves the breakpoint with the fleet: writers alone also share their role layer', async () => {
    const files = filesOf(FLEET);
    files['fleet.yaml'] = 'agents:\n  - { id: ada, role: writer }\n  - { id: bob, role: writer }\n';
    const snapshot = okPack(files);
    const result = compose(snapshot, { agent: 'ada' });
    const body = providerBody(snapshot, result, 'anthropic') as AnthropicBody;
    expect(texts(body)).toEqual([
      `${SHARED_HEAD}\n\n---\n\nYou write first drafts of articles from the notes you are given.`,
      '\n\n---\n\nYour name is Ada.',
    ]);
  });

  it('keeps the breakpoint before the ambient text, which no member shares', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const result = compose(snapshot, { agent: 'ada', ambient: 'It is Monday.' });
    const body = providerBody(snapshot, result, 'anthropic') as AnthropicBody;
    expect(texts(body)[0]).toBe(SHARED_HEAD);
    expect(texts(body)[1]!.endsWith('\n\n---\n\nIt is Monday.')).toBe(true);
  });

  it('gives one block with one breakpoint when nothing is shared (roboco: tools differ first)', async () => {
    const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'));
    const result = compose(snapshot, { agent: 'ada' });
    const body = providerBody(snapshot, result, 'anthropic');
    expect(body).toEqual({ system: [{ type: 'text', text: result.text, cache_control: EPHEMERAL }] });
  });

  it('shares base and fable once roboco puts them first', async () => {
    const files = filesOf(join(EXAMPLES, 'roboco'));
    files['strata.yaml'] =
      'extends: roboco\nlayers:\n  - { id: base, before: tools }\n  - { id: fable, after: base }\n';
    const snapshot = okPack(files);
    const settings = { fable_mode_enabled: 'on' };
    const base = snapshot.files.get('base.md')!.prompt;
    const fable = snapshot.files.get('doctrine/fable.md')!.prompt;
    for (const agent of snapshot.fleet.map((a) => a.id)) {
      const result = compose(snapshot, { agent, settings });
      const body = providerBody(snapshot, result, 'anthropic', { settings }) as AnthropicBody;
      expect(texts(body)).toHaveLength(2);
      expect(texts(body)[0]).toBe(`${base}\n\n---\n\n${fable}`);
      expect(texts(body).join('')).toBe(result.text);
    }
    // With fable off, only base is shared.
    const off = compose(snapshot, { agent: 'ada' });
    expect(texts(providerBody(snapshot, off, 'anthropic') as AnthropicBody)[0]).toBe(base);
  });

  it('concatenates to exactly the text for every member of every example', async () => {
    for (const [pack, settings] of [
      ['roboco', {}],
      ['roboco', { fable_mode_enabled: 'on', ponytail_intensity: 'ultra' }],
      ['chorus', {}],
    ] as const) {
      const snapshot: Snapshot = await loadPackStrict(join(EXAMPLES, pack));
      const requests =
        snapshot.fleet.length > 0
          ? snapshot.fleet.map((a) => ({ agent: a.id }))
          : [...snapshot.roles.keys()].map((role) => ({ role }));
      for (const request of requests) {
        const result = compose(snapshot, { ...request, settings });
        const body = providerBody(snapshot, result, 'anthropic', { settings }) as AnthropicBody;
        expect(texts(body).join('')).toBe(result.text);
        expect(body.system.every((b) => b.text !== '' && b.cache_control?.type === 'ephemeral')).toBe(true);
      }
    }
  });

  it('splits by layer count directly', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const result = compose(snapshot, { agent: 'cy' });
    expect(texts(anthropicBody(result, 0))).toEqual([result.text]);
    expect(texts(anthropicBody(result, 1))[0]).toBe('You are part of a small writing team.');
    expect(texts(anthropicBody(result, 4))).toEqual([result.text]);
  });

  it('answers the fallback text as one block', () => {
    const snapshot = okPack({ 'strata.yaml': 'layers:\n  - id: base\n    file: base.md\n' });
    const result = compose(snapshot, {});
    expect(providerBody(snapshot, result, 'anthropic')).toEqual({
      system: [{ type: 'text', text: 'You are a helpful assistant.', cache_control: EPHEMERAL }],
    });
  });
});
