import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { agentConfig } from '../../src/tooling/agent-config/agent-config.js';
import { cli, expectGolden, FIXTURES, memPack } from '../helpers.js';
import { appFor } from '../server/helpers.js';

/**
 * A CrewAI flow project as teams keep one: two crews under src/<package>/crews/, one
 * agents.yaml with a block of shared fields merged by `<<: *base`, a folded role, a literal
 * backstory, and an agent pasted twice (PyYAML keeps the later one); the other crew's file
 * is agents.yml. Every expected prompt was made by PyYAML's safe_load, CrewAI's
 * interpolate_only and its role_playing template, right-stripped.
 */

const FLOW = join(FIXTURES, 'layouts-crewai-flow');
const RESEARCH = 'src/content_flow/crews/research_crew/config/agents.yaml';

function text(outcome: ReturnType<typeof tryCompose>): string {
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return outcome.result.text;
}

describe('crewai: a key written twice in agents.yaml is read as PyYAML reads it', () => {
  it('the later agent wins, with a warning at the repeat (it used to fail detection and the pack)', async () => {
    const { snapshot, diagnostics } = await loadPack(FLOW, { env: {} });
    expect(snapshot!.preset).toBe('crewai');
    expect([...snapshot!.roles.keys()]).toEqual(['editor', 'fact_checker', 'lead_researcher']);
    expect(diagnostics.map((d) => [d.severity, d.code, `${d.file}:${d.line}:${d.col}`])).toEqual([
      ['warning', 'BAD_ROLE', `${RESEARCH}:2:1`],
      ['warning', 'YAML_SYNTAX', `${RESEARCH}:26:1`],
    ]);
    expect(diagnostics[1]!.message).toBe(
      'key "fact_checker" is written again in the same mapping; the later value replaces the earlier one, as PyYAML reads the file',
    );
    const checker = tryCompose(snapshot!, { role: 'fact_checker', vars: { topic: 'AI' } });
    expect(text(checker)).toBe(
      'You are Senior Fact Checker. You trust nothing you cannot source twice.\nYour personal goal is: Check every claim about AI against two sources',
    );
    // The later record is whole: its own fields and the merged ones, not the earlier llm.
    const config = agentConfig(snapshot!, { role: 'fact_checker' });
    expect(config.ok && config.result.config).toEqual({ model: 'openai/gpt-4o-mini' });
    expect(snapshot!.roles.get('fact_checker')!.fields.backstory).toBe(
      'You trust nothing you cannot source twice.',
    );
  });

  it('a field written twice in one agent: the later value', () => {
    const result = memPack({
      'config/agents.yaml':
        'writer:\n  role: Writer\n  goal: Write\n  backstory: Words.\n  llm: gpt-4o\n  llm: gpt-4o-mini\n',
    });
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line, d.col])).toEqual([
      ['warning', 'YAML_SYNTAX', 6, 3],
    ]);
    const config = agentConfig(result.snapshot!, { role: 'writer' });
    expect(config.ok && config.result.config).toEqual({ model: 'gpt-4o-mini' });
  });

  it('other YAML files still refuse a repeated key (a manifest, a chorus roles file)', () => {
    const manifest = memPack({ 'strata.yaml': 'extends: chorus\nname: a\nname: b\n' });
    expect(manifest.diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([
      ['error', 'YAML_SYNTAX', 3],
    ]);
    const roles = memPack({
      'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n  a:\n    system_prompt: B\n',
    });
    expect(roles.diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([['error', 'YAML_SYNTAX', 4]]);
  });

  it('strata.yaml may ask for it: registry.duplicate_keys (error | last)', () => {
    const files = {
      'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n  a:\n    system_prompt: B\n',
      'strata.yaml': 'extends: chorus\nregistry:\n  duplicate_keys: last\n',
    };
    const result = memPack(files);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([
      ['warning', 'YAML_SYNTAX', 4],
    ]);
    expect(text(tryCompose(result.snapshot!, { role: 'a' }))).toBe('B');
    const bad = memPack({ ...files, 'strata.yaml': 'extends: chorus\nregistry:\n  duplicate_keys: first\n' });
    expect(bad.diagnostics.filter((d) => d.code === 'BAD_MANIFEST').map((d) => d.message)).toEqual([
      'duplicate_keys must be "error" or "last"',
    ]);
  });
});

describe('crewai: where projects keep agents.yaml', () => {
  it.each([
    'src/marketing/evaluator_crew/config/agents.yaml',
    'src/marketing/evaluator_crew/config/agents.yml',
  ])('a crew folder straight in the package: %s', (path) => {
    const result = memPack({ [path]: 'judge:\n  role: Judge\n  goal: Score\n  backstory: Fair.\n' });
    expect(result.snapshot!.preset).toBe('crewai');
    expect(text(tryCompose(result.snapshot!, { role: 'judge' }))).toBe(
      'You are Judge. Fair.\nYour personal goal is: Score',
    );
  });
});

describe('crewai: the flow project composes as CrewAI does', () => {
  it('a folded role keeps its line break; a literal backstory keeps its lines', async () => {
    const { snapshot } = await loadPack(FLOW, { env: {} });
    const lead = text(
      tryCompose(snapshot!, { role: 'lead_researcher', vars: { topic: 'AI', since_year: '2023' } }),
    );
    expect(lead).toBe(
      'You are AI Lead Researcher\n. You have spent years reading papers on AI.\nYou keep notes: author, year, claim.\n\nYour personal goal is: Find the five most cited sources on AI published since 2023',
    );
    expectGolden('crewai/flow-lead_researcher.txt', lead);
    const editor = text(
      tryCompose(snapshot!, {
        role: 'editor',
        vars: { topic: 'AI', words: '500', publication: 'The Weekly' },
      }),
    );
    expect(editor).toBe(
      'You are Editor-in-chief: The Weekly. You edited The Weekly for a decade.\tYou hate filler.\nYour personal goal is: Cut the draft on AI to 500 words',
    );
  });

  it.each([
    // A value holding the {name} of a later placeholder is filled too: CrewAI replaces each name in turn.
    [
      { topic: '{since_year}', since_year: '2023' },
      'Find the five most cited sources on 2023 published since 2023',
    ],
    // ... but not one of an earlier placeholder, nor one the value does not write.
    [
      { topic: '{zz}', since_year: '{topic}' },
      'Find the five most cited sources on {zz} published since {topic}',
    ],
    // `$&` in a value is text (Python's str.replace has no replacement patterns).
    [
      { topic: '{since_year}', since_year: '$& 2023' },
      'Find the five most cited sources on $& 2023 published since $& 2023',
    ],
  ])('inputs %j: the goal reads %j', async (vars, goal) => {
    const { snapshot } = await loadPack(FLOW, { env: {} });
    const lead = text(tryCompose(snapshot!, { role: 'lead_researcher', vars }));
    expect(lead.slice(lead.indexOf('Your personal goal is: ') + 23)).toBe(goal);
    expect(lead.split('\n')[0]).toBe(`You are ${vars.topic} Lead Researcher`);
  });

  it('the CLI and the HTTP API give the same bytes', async () => {
    const vars = { topic: 'AI', since_year: '2023' };
    const run = await cli([
      'compose',
      '--dir',
      FLOW,
      '--role',
      'lead_researcher',
      '--var',
      'topic=AI',
      '--var',
      'since_year=2023',
    ]);
    expect(run.code).toBe(0);
    const { snapshot } = await loadPack(FLOW, { env: {} });
    const expected = text(tryCompose(snapshot!, { role: 'lead_researcher', vars }));
    expect(run.stdout).toBe(expected);
    const { app } = await appFor(FLOW);
    const res = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'lead_researcher', vars }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe(expected);
  });
});
