import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { parseYaml } from '../../src/core/text/yaml.js';
import { MAX_PACK_ALIAS_NODES, MAX_YAML_ALIAS_NODES } from '../../src/core/text/yaml-aliases.js';
import { createEngine } from '../../src/engine/engine.js';
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

/**
 * Each file within its own limit, a pack of many such files would still make billions of
 * nodes from a few kilobytes (and hold them): the aliases of all of a pack's YAML files
 * and frontmatter are bounded together.
 */
describe('YAML aliases of a whole pack', () => {
  /** A YAML text whose aliases add 200,000 nodes (200 aliases of a 1,000-node list), the most one file may. */
  const full = `a: &a [${Array(999).fill('x').join(', ')}]\nb: [${Array(MAX_YAML_ALIAS_NODES / 1000)
    .fill('*a')
    .join(', ')}]\n`;
  const files = MAX_PACK_ALIAS_NODES / MAX_YAML_ALIAS_NODES;

  it('registry files: once the pack’s limit is taken, the next file’s first alias is YAML_ALIASES; a file without aliases is read', () => {
    const pack: Record<string, string> = { 'zz.yaml': 'roles:\n  z:\n    system_prompt: Z\n' };
    for (let i = 1; i <= files + 1; i++)
      pack[`r${i}.yaml`] = `${full}roles:\n  r${i}:\n    system_prompt: R\n`;
    const result = memPack(pack, { preset: 'chorus' });
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.col])).toEqual([
      ['YAML_ALIASES', `r${files + 1}.yaml`, 2, 5],
    ]);
    expect(result.diagnostics[0]!.message).toContain(`together expand past ${MAX_PACK_ALIAS_NODES} nodes`);
    // Within the limit, the pack loads.
    delete pack[`r${files + 1}.yaml`];
    expect(memPack(pack, { preset: 'chorus' }).diagnostics).toEqual([]);
  });

  it('frontmatter counts with the YAML files', () => {
    const front = (i: number) => `---\nrole: r\nteam: t\n${full}---\nAgent ${i}.\n`;
    const pack: Record<string, string> = {
      'base.md': 'Base.\n',
      'roles.yaml': `${full}roles:\n  r:\n    name: R\n`,
    };
    for (let i = 1; i <= files; i++) pack[`identities/a${i}.md`] = front(i);
    const result = memPack(pack, { preset: 'roboco' });
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.col])).toEqual([
      // The prompt files are read before the registry: theirs took the pack's limit.
      ['YAML_ALIASES', 'roles.yaml', 2, 5],
    ]);
  });

  it('a build reusing earlier parses counts them again: the same pack, the same answer', () => {
    const engine = createEngine();
    const bytes = (text: string) => new TextEncoder().encode(text);
    const all = new Map<string, Uint8Array>();
    for (let i = 1; i <= files + 1; i++)
      all.set(`r${i}.yaml`, bytes(`${full}roles:\n  r${i}:\n    system_prompt: R\n`));
    const build = (map: Map<string, Uint8Array>) =>
      engine
        .buildSnapshot({ files: map, env: {}, preset: 'chorus' })
        .diagnostics.map((d) => [d.code, d.file]);
    const over = [['YAML_ALIASES', `r${files + 1}.yaml`]];
    expect(build(all)).toEqual(over);
    // The file refused for the pack's limit is taken once another leaves.
    expect(build(new Map([...all].filter(([p]) => p !== 'r1.yaml')))).toEqual([]);
    expect(build(all)).toEqual(over);
  });
});
