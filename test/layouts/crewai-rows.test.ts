import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { cli, expectGolden, memPack, tempDir, writeFiles } from '../helpers.js';
import { appFor } from '../server/helpers.js';
import { CREWAI_CASES, POEM_CREW } from './rows/crewai-cases.js';

// CrewAI agents as CrewAI composes them: each golden prompt is PyYAML's and CrewAI's
// (checked in the slow tier against crewai_reference.py).

describe('crewai: agents files as PyYAML reads them', () => {
  it.each(CREWAI_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = memPack({ 'config/agents.yaml': c.yaml });
    const out = tryCompose(result.snapshot!, { role: c.role, vars: c.vars ?? {} });
    expect(out.ok).toBe(true);
    expectGolden(`layouts/rows/${c.name}.txt`, out.ok ? out.result.text : '');
  });
});

/** A repository of CrewAI projects: a crew, a flow with two crews, images and pickles beside them. */
const REPO = {
  'crews/trip/src/trip/config/agents.yaml':
    'planner:\n  role: Trip Planner\n  goal: Plan a trip to {city}\n  backstory: You plan.\nresearcher:\n  role: City Researcher\n  goal: Know {city}\n  backstory: You read.\n',
  'crews/trip/src/trip/config/tasks.yaml': 'plan:\n  description: Plan\n  expected_output: A plan\n',
  'flows/poems/src/poems/crews/poem_crew/config/agents.yaml': POEM_CREW,
  'flows/poems/src/poems/crews/review_crew/config/agents.yaml':
    'researcher:\n  role: Poem Researcher\n  goal: Find poems on {topic}\n  backstory: You read poems.\n',
  'flows/poems/assets/cover.png': '\x89PNG\r\n\x1a\n\0\0',
  'crews/trip/knowledge/cache.pkl': '\x80\x04\x95\0\0',
};

describe('crewai: a folder of several projects, crews two levels down in a flow', () => {
  const dir = tempDir('strata-crewai-repo-');
  writeFiles(dir, REPO);

  it('is CrewAI: every agents.yaml is read (not the images or pickles), and roles lists every agent', async () => {
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(snapshot!.preset).toBe('crewai');
    expect([...snapshot!.roles.keys()]).toEqual(['planner', 'poet', 'researcher']);
    expect(diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['warning', 'DUPLICATE_ROLE', 'flows/poems/src/poems/crews/review_crew/config/agents.yaml'],
    ]);
    const run = await cli(['roles', '--dir', dir]);
    expect(run.stdout).toBe('planner\npoet\nresearcher\n');
  });

  it('an agent one file has composes from it, as CrewAI composes it', async () => {
    const run = await cli(['compose', '--dir', dir, '--role', 'poet', '--var', 'topic=rain']);
    expect(run.code).toBe(0);
    expectGolden('layouts/rows/crewai-deep-crew-poet.txt', run.stdout);
  });

  it('an agent several files have fails (exit 1) naming the files; --dir one crew composes it', async () => {
    const run = await cli(['compose', '--dir', dir, '--role', 'researcher', '--var', 'city=Oslo']);
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toContain(
      'error DUPLICATE_ROLE: role researcher is defined in 2 files (crews/trip/src/trip/config/agents.yaml, flows/poems/src/poems/crews/review_crew/config/agents.yaml): give --dir the folder of the one meant',
    );
    const crew = await cli([
      'compose',
      '--dir',
      join(dir, 'flows/poems/src/poems/crews/review_crew'),
      '--role',
      'researcher',
      '--var',
      'topic=rain',
    ]);
    expect([crew.code, crew.stdout]).toEqual([
      0,
      'You are Poem Researcher. You read poems.\nYour personal goal is: Find poems on rain',
    ]);
    const { app } = await appFor(dir);
    const res = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'researcher', vars: { city: 'Oslo' } }),
    });
    expect(res.status).toBe(400);
  });
});

/**
 * A course repository: crews kept without src/, three and four folders down (a lesson's
 * crew, a flow's crew), an image beside them, and a virtual environment whose installed
 * CrewAI ships its template crew.
 */
const COURSE = {
  'course/lessons/translator/config/agents.yaml':
    'reader:\n  role: PDF Reader\n  goal: Read {paper}\n  backstory: You read papers.\n',
  'course/lessons/translator/images/result.png': '\x89PNG\r\n\x1a\n\0\0',
  'course/flows/review_flow/crews/poem_crew/config/agents.yaml':
    'poet:\n  role: >\n    Poet of {topic}\n  goal: Write\n  backstory: |\n    You rhyme.\n',
  'venv/lib/python3.12/site-packages/crewai/cli/templates/crew/config/agents.yaml':
    'reader:\n  role: >\n    {topic} Senior Data Researcher\n  goal: Research\n  backstory: You research.\n',
};

describe('crewai: crews kept outside src/, deeper than two folders', () => {
  it('a repository of them is CrewAI (it was chorus, failing at the image): each agent composes as CrewAI composes it', async () => {
    const dir = tempDir('strata-crewai-course-');
    writeFiles(dir, COURSE);
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(diagnostics).toEqual([]);
    expect(snapshot!.preset).toBe('crewai');
    expect([...snapshot!.files.keys()]).toEqual([
      'course/flows/review_flow/crews/poem_crew/config/agents.yaml',
      'course/lessons/translator/config/agents.yaml',
    ]);
    const poet = await cli(['compose', '--dir', dir, '--role', 'poet', '--var', 'topic=rain']);
    expect([poet.code, poet.stdout, poet.stderr]).toEqual([
      0,
      'You are Poet of rain\n. You rhyme.\n\nYour personal goal is: Write',
      '',
    ]);
    const reader = await cli(['compose', '--dir', dir, '--role', 'reader', '--var', 'paper=CoT']);
    expect([reader.code, reader.stdout, reader.stderr]).toEqual([
      0,
      'You are PDF Reader. You read papers.\nYour personal goal is: Read CoT',
      '',
    ]);
  });

  it('beside a crew under src/, a flow without src/ is read too (its agents were UNKNOWN_ROLE)', () => {
    const result = memPack({
      'crew-explore/src/research_crew/config/agents.yaml':
        'researcher:\n  role: Researcher\n  goal: Find\n  backstory: You find.\n',
      'flow-explore/crews/content_crew/config/agents.yaml':
        'content_writer:\n  role: Content Writer\n  goal: Write about {topic}\n  backstory: You write.\n',
    });
    expect([...result.snapshot!.roles.keys()]).toEqual(['content_writer', 'researcher']);
    const out = tryCompose(result.snapshot!, { role: 'content_writer', vars: { topic: 'tides' } });
    expect(out.ok && out.result.text).toBe(
      'You are Content Writer. You write.\nYour personal goal is: Write about tides',
    );
  });

  it('a deep config/agents.yaml without a role: record is no CrewAI file: the folder is not crewai', () => {
    const result = memPack({
      'app/services/office/config/agents.yaml': 'office: Accounting\nagents:\n  max:\n    role: Manager\n',
    });
    expect(result.snapshot!.preset).toBe('chorus');
  });
});

describe('crewai: no role', () => {
  it('is NO_ROLE (exit 1, HTTP 400), not a prompt no CrewAI agent has', async () => {
    const dir = tempDir('strata-crewai-norole-');
    writeFiles(dir, { 'config/agents.yaml': POEM_CREW });
    const run = await cli(['compose', '--dir', dir]);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      "error NO_ROLE: layer role_playing is required and is made of a role's fields: give a role (roles: poet)\n",
    ]);
    const { app } = await appFor(dir);
    const res = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(res.status).toBe(400);
  });
});

describe('crewai: explain gives each field, template part and filled input its own range', () => {
  const yaml =
    '# agents\nmanager:\n  role: >\n    {topic} Manager\n  goal: Ship {topic} on time\n  backstory: |\n    You ran {team} for years.\n';

  it('in the table, with the line each field is written on', async () => {
    const dir = tempDir('strata-crewai-explain-');
    writeFiles(dir, { 'config/agents.yaml': yaml });
    const run = await cli([
      'explain',
      '--dir',
      dir,
      '--role',
      'manager',
      '--var',
      'topic=Ünïcode',
      '--var',
      'team=ops',
    ]);
    expect(run.code).toBe(0);
    expectGolden('layouts/rows/crewai-explain.txt', run.stdout.replace(/^version \S+/, 'version V'));
  });

  it('in the JSON: the ranges tile the text and each holds its piece', () => {
    const { snapshot } = memPack({ 'config/agents.yaml': yaml });
    const out = tryCompose(snapshot!, { role: 'manager', vars: { topic: 'Ünïcode', team: 'ops' } });
    const result = out.ok ? out.result : undefined;
    const bytes = Buffer.from(result!.text);
    const segments = JSON.parse(JSON.stringify(result!.layers[0]!.segments));
    const piece = (s: { start: number; end: number }) => bytes.subarray(s.start, s.end).toString();
    expect(
      segments.map(
        (s: { kind: string; name?: string; line?: number; start: number; end: number; inputs?: [] }) => [
          s.kind,
          s.name,
          s.line,
          piece(s),
          (s.inputs ?? []).map((i: { name: string; start: number; end: number }) => [i.name, piece(i)]),
        ],
      ),
    ).toEqual([
      ['template', undefined, undefined, 'You are ', []],
      ['field', 'role', 3, 'Ünïcode Manager\n', [['topic', 'Ünïcode']]],
      ['template', undefined, undefined, '. ', []],
      ['field', 'backstory', 6, 'You ran ops for years.\n', [['team', 'ops']]],
      ['template', undefined, undefined, '\nYour personal goal is: ', []],
      ['field', 'goal', 5, 'Ship Ünïcode on time', [['topic', 'Ünïcode']]],
    ]);
    // The pieces tile the layer's text.
    expect(segments.map(piece).join('')).toBe(result!.text);
  });
});

describe('crewai: config takes the request options compose takes', () => {
  it('--var, --set and the rest; a request that would not compose gets no config', async () => {
    const dir = tempDir('strata-crewai-config-');
    writeFiles(dir, { 'config/agents.yaml': `${POEM_CREW}\n  llm: openai/gpt-4o\n` });
    const run = await cli(['config', '--dir', dir, '--role', 'poet', '--var', 'topic=x', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).config).toEqual({ model: 'openai/gpt-4o' });
    const notes = tempDir('strata-agents-md-config-');
    writeFiles(notes, { 'AGENTS.md': '# Rules\n' });
    const bad = await cli(['config', '--dir', notes, '--role', 'x', '--var', 'cwdd=api']);
    expect([bad.code, bad.stderr]).toEqual([
      1,
      expect.stringContaining('error UNKNOWN_INPUT: unknown input "cwdd"'),
    ]);
  });
});
