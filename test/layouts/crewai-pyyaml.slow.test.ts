import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { expectGolden, memPack, tempDir, writeFiles } from '../helpers.js';
import { CREWAI_CASES } from './rows/crewai-cases.js';

// CrewAI's prompts by CrewAI's own rules: PyYAML's safe_load, interpolate_only and the
// role_playing slice (test/layouts/reference/crewai_reference.py), for every case whose
// golden file the fast tier checks strata against, and for agents files
// (every block scalar style, last in the file, with and without a final newline).

const REFERENCE = join(import.meta.dirname, 'reference', 'crewai_reference.py');

function reference(
  texts: readonly string[],
): Array<Record<string, { prompt: string; inputs: Record<string, string> }>> {
  const dir = tempDir('strata-crewai-ref-');
  const paths = texts.map((text, i) => {
    writeFiles(dir, { [`${i}/config/agents.yaml`]: text });
    return join(dir, `${i}/config/agents.yaml`);
  });
  const out = JSON.parse(execFileSync('python3', [REFERENCE, ...paths], { maxBuffer: 1 << 26 }).toString());
  return paths.map((p) => out[p]);
}

describe('crewai: the golden prompts are PyYAML and CrewAI’s', () => {
  it.each(CREWAI_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const [agents] = reference([c.yaml]);
    const agent = agents![c.role]!;
    // The reference gives every input "<name>"; a case's own values are filled the same way.
    let prompt = agent.prompt;
    for (const [k, v] of Object.entries(c.vars ?? {})) prompt = prompt.replaceAll(`<${k}>`, v);
    expectGolden(`layouts/rows/${c.name}.txt`, prompt);
  });
});

describe('crewai: block scalars at the end of a file, as PyYAML reads them', () => {
  it('every block scalar style, last in a record, with and without a final newline, composes as CrewAI composes it', () => {
    const styles = ['>', '|', '>-', '|-', '>+', '|+', '>2', '|2-'];
    const bodies = ['B', 'B  ', 'B\n    C', 'B\n\n    C', 'B\n    ', 'B\n\n', 'B\n\n    C  ', 'B\tx'];
    const texts: string[] = [];
    for (const style of styles)
      for (const body of bodies)
        for (const last of ['backstory', 'goal', 'role'])
          for (const end of ['', '\n'])
            texts.push(
              `${['role', 'goal', 'backstory']
                .filter((k) => k !== last)
                .map((k) => `  ${k}: ${k.toUpperCase()}\n`)
                .join('')
                .replace(/^/, 'a:\n')}  ${last}: ${style}\n    ${body}${end}`,
            );
    const refs = reference(texts);
    let same = 0;
    const differ: string[] = [];
    texts.forEach((text, i) => {
      const want = refs[i]!.a?.prompt;
      const result = memPack({ 'config/agents.yaml': text });
      const out = result.snapshot && tryCompose(result.snapshot, { role: 'a' });
      const got = out?.ok ? out.result.text : undefined;
      if (got === want) same++;
      else differ.push(JSON.stringify(text));
    });
    expect(differ).toEqual([]);
    expect(same).toBe(texts.length);
  });
});

describe('crewai: plain scalars typed as PyYAML types them', () => {
  it('a role, goal or backstory written as a plain word PyYAML types (a bool, a number, a date) is no agent, and one it reads as text composes as that text', () => {
    const plains = [
      ...['yes', 'Yes', 'YES', 'no', 'NO', 'on', 'On', 'off', 'OFF', 'oN', 'y', 'n', 'true', 'False', 'tRUE'],
      ...['null', 'Null', '~', 'nULL', '1e3', '1.0e3', '6.8e+5', '1.e+5', '-.5', '.5', '+.5', '-1.5', '1.'],
      ...[
        '0o17',
        '017',
        '08',
        '09.5',
        '00',
        '0',
        '-0',
        '+12',
        '0x1F',
        '0xG',
        '0b101',
        '0b2',
        '1_000',
        '1_0.5',
      ],
      ...['1:30', '1:60', '-1:30', '190:20:30.15', '1:3:5', '0:30', '2024-01-01', '2024-1-1', '2024-01-1'],
      ...[
        '2001-12-14t21:59:43.10-05:00',
        '2001-12-14 21:59:43.10 -5',
        '2001-12-14T21:59:43Z',
        '2024-01-01 x',
      ],
      ...['.inf', '-.inf', '.NaN', '.nan', '.Inf', 'inf', '12345678901234567890', '0b_', '2024-02-30', '='],
      ...['1.2.3', 'v1', '3.14', '10:00 AM', 'x: y'.replace(': ', ':')],
    ];
    const texts: string[] = [];
    for (const value of plains)
      for (const field of ['role', 'goal', 'backstory'])
        texts.push(
          `a:\n${['role', 'goal', 'backstory'].map((k) => `  ${k}: ${k === field ? value : k.toUpperCase()}\n`).join('')}`,
        );
    const refs = reference(texts);
    const differ: string[] = [];
    let composed = 0;
    texts.forEach((text, i) => {
      const want = refs[i]!.a?.prompt;
      const result = memPack({ 'config/agents.yaml': text });
      const out = result.snapshot && tryCompose(result.snapshot, { role: 'a' });
      const got = out?.ok ? out.result.text : undefined;
      if (got !== undefined) composed++;
      if (got !== want)
        differ.push(
          `${JSON.stringify(text)}: ${JSON.stringify(got)} here, ${JSON.stringify(want)} in CrewAI`,
        );
    });
    expect(differ).toEqual([]);
    // Both outcomes are there: typed words (no agent) and text.
    expect(composed).toBeGreaterThan(texts.length / 4);
    expect(composed).toBeLessThan(texts.length);
  });
});
