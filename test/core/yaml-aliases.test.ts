import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { parseYaml } from '../../src/core/text/yaml.js';
import { MAX_YAML_ALIAS_NODES } from '../../src/core/text/yaml-aliases.js';
import { cli, memPack, tempDir } from '../helpers.js';
import { crewWithDefaults } from './yaml-crews.js';

const parse = (text: string) => parseYaml(text, { file: 'f.yaml' });
const found = (text: string) => parse(text).diagnostics.map((d) => [d.code, d.line, d.col]);

/**
 * Aliases are bounded by the nodes they expand to, not by how many there are: a crew of
 * 1,000 agents merging one defaults block (PyYAML reads it) is read; a bomb, a value
 * holding itself and a merge of itself are YAML_ALIASES where the alias is written.
 */
describe('YAML aliases', () => {
  it('a crew of 1,000 agents merging one &defaults block is read, every agent with the defaults', () => {
    const result = memPack({ 'agents.yaml': crewWithDefaults(1000) }, { preset: 'crewai' });
    // The defaults block itself is no agent (no role, goal or backstory), as CrewAI sees it.
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([['BAD_ROLE', 'warning', 1]]);
    const roles = result.snapshot!.roles;
    expect(roles.size).toBe(1000);
    const out = tryCompose(result.snapshot!, { role: 'agent_999', vars: { topic: 'AI' } });
    expect(out.ok && out.result.text).toBe('You are Analyst 999. B\nYour personal goal is: Cover AI 999');
    expect(roles.get('agent_999')!.fields).toMatchObject({
      llm: 'openai/gpt-4o-mini',
      allow_delegation: false,
    });
  });

  it('the crew lists from the CLI: strata roles exits 0 with every agent', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agents.yaml'), crewWithDefaults(1000));
    const { code, stdout } = await cli(['roles', '--dir', dir, '--preset', 'crewai', '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { roles: unknown[] }).roles.length).toBe(1000);
  });

  it('an alias is a copy of what it names, merged keys under the own keys', () => {
    const p = parse('a: &a {x: 1, y: [2, 3]}\nb: *a\nc:\n  <<: *a\n  x: 9\n');
    expect(p.diagnostics).toEqual([]);
    expect(p.value).toEqual({ a: { x: 1, y: [2, 3] }, b: { x: 1, y: [2, 3] }, c: { x: 9, y: [2, 3] } });
  });

  it('an alias bomb is YAML_ALIASES at the alias whose expansion crosses the limit', () => {
    const lines = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 0; i < 8; i++) {
      const [prev, next] = [String.fromCharCode(97 + i), String.fromCharCode(98 + i)];
      lines.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    const p = parse(`${lines.join('\n')}\n`);
    expect(p.value).toBeUndefined();
    // Added by the aliases of b: 9 × 10 nodes; c: 9 × 91; d: 9 × 820; e: 9 × 7,381 (74,718 in
    // all); f's first adds 66,430 and its second crosses 200,000.
    expect(found(`${lines.join('\n')}\n`)).toEqual([['YAML_ALIASES', 6, 12]]);
  });

  it('counts nodes, not aliases: up to the limit is read, one node past it is refused', () => {
    // An anchored list of 999 items is 1,000 nodes; 200 aliases of it add 200,000.
    const within = `s: &s x\na: &a [${Array(999).fill('x').join(', ')}]\nb: [${Array(
      MAX_YAML_ALIAS_NODES / 1000,
    )
      .fill('*a')
      .join(', ')}]\n`;
    expect(parse(within).diagnostics).toEqual([]);
    expect(found(`${within}c: *s\n`)).toEqual([['YAML_ALIASES', 4, 4]]);
  });

  it.each([
    ['a sequence holding itself', 'a: &a [x, *a]\n', [1, 11]],
    ['a mapping merging itself', 'a: &a\n  k: v\n  <<: *a\n', [3, 7]],
    ['a mapping merging its parent', 'a: &a\n  b:\n    <<: *a\n', [3, 9]],
    ['an alias of nothing set before it', 'a: *nope\nb: &nope x\n', [1, 4]],
  ])('%s is YAML_ALIASES where the alias is written', (_, text, [line, col]) => {
    expect(found(text)).toEqual([['YAML_ALIASES', line, col]]);
    expect(parse(text).value).toBeUndefined();
  });

  it('a refused file is said with its code and the service of the pack keeps nothing of it', () => {
    const result = memPack({ 'agents.yaml': 'defaults: &d\n  role: R\n  <<: *d\n' }, { preset: 'crewai' });
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line])).toEqual([
      ['YAML_ALIASES', 'agents.yaml', 3],
    ]);
  });
});
