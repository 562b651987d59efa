import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { formatExplain } from '../../src/core/compose/explain.js';
import { cli, memPack, tempDir, writeFiles } from '../helpers.js';
import { appFor } from '../server/helpers.js';

// CrewAI fills `{name}` in agents.yaml with `str(value)` of each run input
// (crewai/utilities/string_utils.py interpolate_only): True, None, 1.5, ['a', 1]. The
// crewai preset's open inputs say `format: python`, so a typed value (library `vars`, API
// body `vars`) is written the same way; a value CrewAI refuses is INVALID_INPUT (400).

const AGENTS = 'writer:\n  role: Writer on {topic}\n  goal: Write\n  backstory: Words.\n';
const snapshot = memPack({ 'agents.yaml': AGENTS }).snapshot!;

function roleLine(topic: unknown): string {
  const out = tryCompose(snapshot, { role: 'writer', vars: { topic } });
  if (!out.ok) return out.diagnostics.map((d) => `${d.code}: ${d.message}`).join('; ');
  return out.result.text.split('.')[0]!;
}

describe('crewai inputs are written as CrewAI writes them', () => {
  it.each([
    ['a string', 'AI', 'You are Writer on AI'],
    ['true', true, 'You are Writer on True'],
    ['false', false, 'You are Writer on False'],
    ['null', null, 'You are Writer on None'],
    ['an int', 42, 'You are Writer on 42'],
    ['a float', 0.25, 'You are Writer on 0'],
    ['a small float', 1e-7, 'You are Writer on 1e-07'],
    ['a list', ['a', "it's", 2, null], `You are Writer on ['a', "it's", 2, None]`],
    ['a mapping', { k: [true, 1.5] }, "You are Writer on {'k': [True, 1"],
  ])('%s', (_, topic, line) => {
    expect(roleLine(topic)).toBe(line);
  });

  it('the result and explain hold each input as the text it became', () => {
    const out = tryCompose(snapshot, { role: 'writer', vars: { topic: true } });
    expect(out.ok && out.result.inputs).toEqual({ topic: 'True' });
    expect(out.ok && formatExplain(out.result)).toContain('inputs topic=True (request)\n');
  });

  it.each([
    ['undefined in a list', [undefined], 'undefined is not accepted'],
    ['a Date', new Date(0), 'a Date is not accepted'],
    ['a function', () => 'x', 'a function is not accepted'],
    [
      'a whole number past 2^53',
      2 ** 60,
      'is beyond 2^53, where JSON numbers lose digits; send it as a string',
    ],
    [
      'a cycle',
      (() => {
        const c: Record<string, unknown> = {};
        c.c = c;
        return c;
      })(),
      'nested deeper than 100 levels',
    ],
  ])('refuses %s: INVALID_INPUT, never a throw', (_, topic, says) => {
    const out = tryCompose(snapshot, { role: 'writer', vars: { topic } });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.diagnostics.map((d) => d.code)).toEqual(['INVALID_INPUT']);
    expect(!out.ok && out.diagnostics[0]!.message).toContain(says);
  });

  it('POST /api/compose: JSON true is True, 1.5 is 1.5; a whole number past 2^53 is 400 INVALID_INPUT', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'agents.yaml': AGENTS });
    const { app } = await appFor(dir);
    const compose = (body: string) =>
      app.request('/api/compose', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    for (const [topic, text] of [
      ['true', 'You are Writer on True. Words.\nYour personal goal is: Write'],
      ['1.5', 'You are Writer on 1.5. Words.\nYour personal goal is: Write'],
      ['7', 'You are Writer on 7. Words.\nYour personal goal is: Write'],
    ] as const) {
      const res = await compose(`{"role":"writer","vars":{"topic":${topic}}}`);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.text).toBe(text);
      expect(body.inputs).toEqual({
        topic: text.slice('You are Writer on '.length, text.indexOf('. Words')),
      });
    }
    const big = await compose('{"role":"writer","vars":{"topic":12345678901234567890}}');
    expect(big.status).toBe(400);
    expect((await big.json()).error.code).toBe('INVALID_INPUT');
  });

  it('POST /api/compose: null, lists and mappings are written as Python writes them; nested too deep is 400, never a 500', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'agents.yaml': AGENTS });
    const { app } = await appFor(dir);
    const compose = (body: string) =>
      app.request('/api/compose', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    for (const [topic, shown] of [
      ['null', 'None'],
      ['["a", 1, null]', "['a', 1, None]"],
      ['{"k": [true, 1.5], "it\'s": "x"}', `{'k': [True, 1.5], "it's": 'x'}`],
    ] as const) {
      const res = await compose(`{"role":"writer","vars":{"topic":${topic}}}`);
      expect(res.status).toBe(200);
      expect((await res.json()).text).toBe(
        `You are Writer on ${shown}. Words.\nYour personal goal is: Write`,
      );
    }
    // 101 levels: the schema takes it (101 deep), the core refuses it as CrewAI's limit.
    const deep = await compose(`{"role":"writer","vars":{"topic":${'['.repeat(101)}${']'.repeat(101)}}}`);
    expect(deep.status).toBe(400);
    expect((await deep.json()).error.code).toBe('INVALID_INPUT');
    // 20,000 levels: refused by the request check, without recursion.
    const deeper = await compose(
      `{"role":"writer","vars":{"topic":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`,
    );
    expect(deeper.status).toBe(400);
    expect((await deeper.json()).error.code).toBe('BAD_REQUEST');
  });

  it('GET /api/settings lists an open crewai input with its format', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'agents.yaml': AGENTS });
    const { app } = await appFor(dir);
    const body = await (await app.request('/api/settings')).json();
    expect(body.inputs).toEqual([
      expect.objectContaining({ name: 'topic', type: 'string', required: true, format: 'python' }),
    ]);
  });

  it('--var gives a string, as CrewAI takes one: --var topic=true is true', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'agents.yaml': AGENTS });
    const run = await cli(['compose', '--dir', dir, '--role', 'writer', '--var', 'topic=true']);
    expect(run.stdout).toBe('You are Writer on true. Words.\nYour personal goal is: Write');
  });

  it('format is checked in a manifest: python only, on a string input', () => {
    const bad = memPack({
      'strata.yaml':
        'extends: chorus\ninputs:\n  a: { type: string, format: yaml }\n  b: { type: integer, format: python }\n',
    });
    expect(bad.diagnostics.map((d) => [d.code, d.line, d.col, d.message])).toEqual([
      ['BAD_MANIFEST', 3, 30, 'format must be one of: python'],
      ['BAD_MANIFEST', 4, 31, 'format applies to a string input'],
    ]);
  });

  it('a declared python input with a default writes it the Python way', () => {
    const pack = memPack({
      'strata.yaml':
        'extends: chorus\ninput_syntax: "{name}"\ninputs:\n  strict: { type: string, format: python, default: true }\nlayers:\n  - id: a\n    text: "Strict: {strict}."\n',
    }).snapshot!;
    const out = tryCompose(pack, {});
    expect(out.ok && out.result.text).toBe('Strict: True.');
  });
});

describe('crewai: an input bringing {role}, {goal} or {backstory} into a field', () => {
  // CrewAI's Prompts._build_prompt replaces {goal}, then {role}, then {backstory} over the
  // whole role-playing text (Python's str.replace, in turn); the bytes below are its own.
  const crew = memPack({
    'agents.yaml': 'a:\n  role: R {x}\n  goal: G {y}\n  backstory: B {z}\n',
  }).snapshot!;
  it.each([
    [{ x: '{backstory}', y: '{role}', z: '' }, 'You are R B . B \nYour personal goal is: G R B'],
    [
      { x: '{goal}', y: '{backstory}', z: '{role}' },
      'You are R {goal}. B {role}\nYour personal goal is: G B {role}',
    ],
    [
      { x: '{role}', y: '{goal}', z: '{backstory}' },
      'You are R {role}. B {backstory}\nYour personal goal is: G {goal}',
    ],
    [{ x: '{back', y: '{role}story}', z: '{x}' }, 'You are R {back. B {x}\nYour personal goal is: G R B {x}'],
  ])('inputs %j', (vars, prompt) => {
    const out = tryCompose(crew, { role: 'a', vars });
    expect(out.ok && out.result.text).toBe(prompt);
  });
});
