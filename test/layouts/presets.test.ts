import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { type ComposeResult, tryCompose } from '../../src/core/compose/compose.js';
import { formatExplain } from '../../src/core/compose/explain.js';
import { loadPack } from '../../src/source/load.js';
import { agentConfig } from '../../src/tooling/agent-config/agent-config.js';
import { cli, EXAMPLES, expectGolden, memPack, okPack } from '../helpers.js';

/**
 * The crewai, claude-agents and agents-md presets over their example packs: each prompt
 * against the rule of the system it copies (implemented again here, from the files on
 * disk), golden files, provenance, and the edge cases of each rule.
 */

async function load(dir: string): Promise<Snapshot> {
  const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return snapshot!;
}

function composeOk(snapshot: Snapshot, request: Parameters<typeof tryCompose>[1]): ComposeResult {
  const outcome = tryCompose(snapshot, request);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  checkProvenance(outcome.result);
  return outcome.result;
}

/** Every included layer's and part's byte range holds exactly the text it hashes. */
function checkProvenance(result: ComposeResult): void {
  const bytes = Buffer.from(result.text, 'utf8');
  expect(result.bytes).toBe(bytes.length);
  const hash = (s: Buffer) => createHash('sha256').update(s.toString('utf8')).digest('hex');
  for (const layer of result.layers.filter((l) => l.included)) {
    expect(layer.sha256).toBe(hash(bytes.subarray(layer.start!, layer.end!)));
    for (const part of layer.parts ?? []) {
      if (!part.included) continue;
      expect(part.start).toBeGreaterThanOrEqual(layer.start!);
      expect(part.end).toBeLessThanOrEqual(layer.end!);
      expect(part.sha256).toBe(hash(bytes.subarray(part.start!, part.end!)));
    }
  }
}

describe('crewai preset over examples/crewai', () => {
  const dir = join(EXAMPLES, 'crewai');
  const agents = parse(readFileSync(join(dir, 'config', 'agents.yaml'), 'utf8')) as Record<
    string,
    Record<string, string>
  >;

  /** CrewAI's rule: inputs into role, goal, backstory; the template filled goal, role, backstory; right-stripped. */
  function crewai(id: string, inputs: Record<string, string>): string {
    const fill = (s: string) => {
      const names = [...s.matchAll(/(?<!\{)\{([A-Za-z_][A-Za-z0-9_-]*)\}(?!\})/g)].map((m) => m[1]!);
      const missing = names.find((n) => !(n in inputs));
      if (missing) throw new Error(`Template variable '${missing}' not found in inputs dictionary`);
      return names.reduce((out, n) => out.split(`{${n}}`).join(inputs[n]!), s);
    };
    const a = agents[id]!;
    return 'You are {role}. {backstory}\nYour personal goal is: {goal}'
      .split('{goal}')
      .join(fill(a.goal!))
      .split('{role}')
      .join(fill(a.role!))
      .split('{backstory}')
      .join(fill(a.backstory!))
      .trimEnd();
  }

  it.each([
    ['market_analyst', { sector: 'Fintech', quarter: 'Q3' }],
    ['report_writer', { audience: 'the trading desk' }],
    ['fact_checker', {}],
  ] as const)('%s: the role-playing template, byte for byte', async (id, vars) => {
    const snapshot = await load(dir);
    expect(snapshot.preset).toBe('crewai');
    const result = composeOk(snapshot, { role: id, vars });
    expect(result.text).toBe(crewai(id, vars));
    expectGolden(`crewai/${id}.txt`, result.text);
  });

  it('a folded scalar keeps its trailing newline: "…Analyst\\n. As the…"', async () => {
    const result = composeOk(await load(dir), {
      role: 'market_analyst',
      vars: { sector: 'Fintech', quarter: 'Q3' },
    });
    expect(result.text.startsWith('You are Fintech Market Analyst\n. As the analyst')).toBe(true);
    expect(result.inputs).toEqual({ sector: 'Fintech', quarter: 'Q3' });
    expect(result.inputSources).toEqual({ sector: 'request', quarter: 'request' });
    expect(result.layers[0]).toMatchObject({ source: 'config/agents.yaml', field: 'role, backstory, goal' });
  });

  it('a missing input is an error naming it', async () => {
    const snapshot = await load(dir);
    const outcome = tryCompose(snapshot, { role: 'market_analyst', vars: { sector: 'Fintech' } });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['MISSING_INPUT', 'config/agents.yaml'],
    ]);
    expect(outcome.diagnostics[0]!.message).toMatch(/^input quarter has no value/);
    expect(() => crewai('market_analyst', { sector: 'Fintech' })).toThrow(/quarter/);
    const cliRun = await cli(['compose', '--dir', dir, '--role', 'market_analyst']);
    expect(cliRun.code).toBe(1);
    expect(cliRun.stderr).toMatch(/^error MISSING_INPUT: config\/agents\.yaml: input sector has no value/);
  });

  it('a folder holding agents.yaml is a crewai pack too', async () => {
    const snapshot = await load(join(dir, 'config'));
    expect(snapshot.preset).toBe('crewai');
    expect([...snapshot.roles.keys()]).toEqual(['fact_checker', 'market_analyst', 'report_writer']);
  });

  it('strata config: llm is the model, tools a list, each with its source', async () => {
    const snapshot = await load(dir);
    const out = agentConfig(snapshot, { role: 'report_writer' });
    expect(out.ok && out.result.config).toEqual({
      model: 'anthropic/claude-3-5-haiku-latest',
      tools: ['file_writer', 'spell_checker'],
    });
    expect(out.ok && out.result.sources.model).toEqual({
      from: 'role',
      file: 'config/agents.yaml',
      field: 'llm',
    });
    const run = await cli(['config', '--dir', dir, '--role', 'market_analyst']);
    expect(run.code).toBe(0);
    expectGolden('crewai/config-market_analyst.txt', run.stdout);
  });

  it('explain lists the inputs', async () => {
    const run = await cli(['explain', '--dir', dir, '--role', 'report_writer', '--var', 'audience=traders']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^inputs audience=traders \(request\)$/m);
  });
});

describe('claude-agents preset over examples/claude-agents', () => {
  const dir = join(EXAMPLES, 'claude-agents');
  const agentsDir = join(dir, '.claude', 'agents');
  const files = {
    'code-reviewer': 'reviewer.md',
    'deploy-checker': 'ops/deploy-checker.md',
    'tech-writer': 'docs/writing/tech-writer.md',
  };

  /** Claude Code's rule for the prompt: the text after the frontmatter match, trimmed. */
  function body(file: string): string {
    const text = readFileSync(join(agentsDir, file), 'utf8');
    const m = /^---\s*\n([\s\S]*?)---\s*\n?/.exec(text);
    return (m ? text.slice(m[0].length) : text).trim();
  }

  it('finds every agent below .claude/agents recursively, by frontmatter name', async () => {
    const snapshot = await load(dir);
    expect(snapshot.preset).toBe('claude-agents');
    expect([...snapshot.roles.keys()]).toEqual(Object.keys(files));
    for (const [id, file] of Object.entries(files))
      expect(snapshot.roles.get(id)!.source).toBe(`.claude/agents/${file}`);
  });

  it.each(Object.entries(files))('%s: the body of %s, trimmed', async (id, file) => {
    const result = composeOk(await load(dir), { role: id });
    expect(result.text).toBe(body(file));
    expect(result.layers[0]!.source).toBe(`.claude/agents/${file}`);
    expectGolden(`claude-agents/${id}.txt`, result.text);
  });

  it('frontmatter that parses only with values quoted is read, and marked', async () => {
    const snapshot = await load(dir);
    expect(snapshot.files.get('.claude/agents/ops/deploy-checker.md')!.frontmatterRetried).toBe(true);
    expect(snapshot.roles.get('deploy-checker')!.description).toBe(
      'Use before a release: checks the deploy manifests, then reports what would change. Example: "is staging ready?"',
    );
    const result = composeOk(snapshot, { role: 'deploy-checker' });
    expect(result.layers[0]!.frontmatterRetried).toBe(true);
    expect(formatExplain(result)).toMatch(/included \(frontmatter quoted\)/);
  });

  it('the pack may be the .claude/agents folder itself', async () => {
    const snapshot = await load(agentsDir);
    expect(snapshot.preset).toBe('claude-agents');
    expect([...snapshot.roles.keys()]).toEqual(Object.keys(files));
    expect(composeOk(snapshot, { role: 'code-reviewer' }).text).toBe(body('reviewer.md'));
  });

  it.each([
    ['code-reviewer', 'sonnet', ['Read', 'Grep', 'Glob']],
    ['deploy-checker', 'inherit', ['Read', 'Bash']],
    ['tech-writer', 'opus', ['*']],
  ])('strata config %s: model %s and tools, from the frontmatter', async (id, model, tools) => {
    const out = agentConfig(await load(dir), { role: id });
    if (!out.ok) throw new Error(JSON.stringify(out.diagnostics));
    expect(out.result.config).toEqual({ model, tools });
    const file = `.claude/agents/${files[id as keyof typeof files]}`;
    expect(out.result.sources).toEqual({
      model: { from: 'role', file, field: 'model' },
      tools: { from: 'role', file, field: 'tools' },
    });
    const run = await cli(['config', '--dir', dir, '--role', id]);
    expectGolden(`claude-agents/config-${id}.txt`, run.stdout);
  });

  it('a file whose frontmatter fails even quoted is a warning, not a failed pack', () => {
    const result = memPack(
      {
        '.claude/agents/ok.md': '---\nname: ok\ndescription: fine\n---\nBody.\n',
        '.claude/agents/bad.md': '---\nname: bad\nname: again\ndescription: x\n---\nBody.\n',
      },
      { preset: 'claude-agents' },
    );
    expect(result.snapshot).toBeDefined();
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['warning', 'BAD_FRONTMATTER', '.claude/agents/bad.md'],
    ]);
    expect([...result.snapshot!.roles.keys()]).toEqual(['ok']);
  });

  it('a file with frontmatter but no description is not an agent (BAD_ROLE warning)', () => {
    const result = memPack({
      'a.md': '---\nname: a\n---\nA.\n',
      'b.md': '---\nname: b\ndescription: B\n---\nB.\n',
    });
    expect(result.snapshot!.preset).toBe('claude-agents');
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([['BAD_ROLE', 'a.md']]);
    expect([...result.snapshot!.roles.keys()]).toEqual(['b']);
  });

  it('does not take roboco or chorus packs', async () => {
    expect((await load(join(EXAMPLES, 'roboco'))).preset).toBe('roboco');
    expect((await load(join(EXAMPLES, 'chorus'))).preset).toBe('chorus');
  });
});

describe('agents-md preset over examples/agents-md', () => {
  const dir = join(EXAMPLES, 'agents-md');

  /** Codex's rule, from the bytes on disk. */
  function codex(cwd: string, budget = 32768): string {
    const folders = [''];
    const segs = cwd === '.' ? [] : cwd.split('/');
    for (let i = 1; i <= segs.length; i++) folders.push(segs.slice(0, i).join('/'));
    let remaining = budget;
    const parts: string[] = [];
    for (const folder of folders) {
      const file = ['AGENTS.override.md', 'AGENTS.md']
        .map((n) => join(dir, folder, n))
        .find((p) => existsSync(p));
      if (!file || remaining === 0) continue;
      const data = readFileSync(file).subarray(0, remaining);
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(data);
      if (text.trim() !== '') {
        parts.push(text);
        remaining -= data.length;
      }
    }
    return parts.join('\n\n');
  }

  it.each([
    ['root', '.', undefined],
    ['handlers', 'backend/api/handlers', undefined],
    ['frontend-app', 'frontend/app', undefined],
    ['frontend-app-cut', 'frontend/app', 300],
  ] as const)('%s: the chain from the root to %s, byte for byte', async (name, cwd, budget) => {
    const snapshot = await load(dir);
    expect(snapshot.preset).toBe('agents-md');
    const request = { vars: { cwd }, ...(budget ? { settings: { project_doc_max_bytes: budget } } : {}) };
    const result = composeOk(snapshot, request);
    expect(result.text).toBe(codex(cwd, budget));
    expectGolden(`agents-md/${name}.txt`, result.text);
  });

  it('override files win, a folder without a file is passed over, joins are untrimmed', async () => {
    const result = composeOk(await load(dir), { vars: { cwd: 'backend/api/handlers' } });
    const parts = result.layers[0]!.parts!;
    expect(parts.map((p) => p.source)).toEqual([
      'AGENTS.md',
      'backend/AGENTS.override.md',
      'backend/api/handlers/AGENTS.md',
    ]);
    const root = readFileSync(join(dir, 'AGENTS.md'), 'utf8');
    expect(result.text.startsWith(`${root}\n\n# Backend (release freeze)`)).toBe(true);
    expect(result.text.endsWith('No SQL in this folder.  \n')).toBe(true);
    expect(result.text).toContain('\n\n   Handlers stay thin');
  });

  it('a blank file is left out, and says so', async () => {
    const result = composeOk(await load(dir), { vars: { cwd: 'frontend/app' } });
    expect(result.layers[0]!.parts!.map((p) => [p.source, p.included, p.reason])).toEqual([
      ['AGENTS.md', true, undefined],
      ['frontend/AGENTS.md', false, 'empty'],
      ['frontend/app/AGENTS.md', true, undefined],
    ]);
  });

  it('a cut inside a multi-byte character leaves U+FFFD, recorded in provenance', async () => {
    const snapshot = await load(dir);
    const root = readFileSync(join(dir, 'AGENTS.md'));
    const app = readFileSync(join(dir, 'frontend/app/AGENTS.md'));
    const e = app.indexOf(Buffer.from('é'));
    const budget = root.length + e + 1;
    const result = composeOk(snapshot, {
      vars: { cwd: 'frontend/app' },
      settings: { project_doc_max_bytes: budget },
    });
    expect(result.text).toBe(codex('frontend/app', budget));
    expect(result.text.endsWith('Num\uFFFD')).toBe(true);
    const part = result.layers[0]!.parts![2]!;
    expect(part).toMatchObject({ included: true, truncatedFrom: app.length, bytes: e + 3 });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['TRUNCATED']);
    const run = await cli([
      'explain',
      '--dir',
      dir,
      '--var',
      'cwd=frontend/app',
      '--set',
      `project_doc_max_bytes=${budget}`,
    ]);
    expect(run.stdout).toContain(`included (cut from ${app.length} bytes)`);
    expectGolden('agents-md/explain-cut.txt', run.stdout);
  });

  it('no budget left: later files are listed as such', async () => {
    const root = readFileSync(join(dir, 'AGENTS.md'));
    const result = composeOk(await load(dir), {
      vars: { cwd: 'backend' },
      settings: { project_doc_max_bytes: root.length },
    });
    expect(result.layers[0]!.parts!.map((p) => p.reason ?? 'included')).toEqual(['included', 'budget']);
    expect(result.text).toBe(root.toString('utf8'));
  });

  it('a working directory outside the pack is an error', async () => {
    const outcome = tryCompose(await load(dir), { vars: { cwd: '../x' } });
    expect(outcome.ok ? [] : outcome.diagnostics.map((d) => d.code)).toEqual(['PATH_OUTSIDE_PACK']);
  });

  it('inputs are typed: unknown and invalid ones are errors naming them', async () => {
    const snapshot = await load(dir);
    const unknown = tryCompose(snapshot, { vars: { cdw: 'x' } });
    expect(unknown.ok ? '' : unknown.diagnostics[0]!.message).toBe(
      'unknown input "cdw"; did you mean "cwd"?; known inputs: cwd',
    );
    expect(unknown.ok ? [] : unknown.diagnostics[0]!.suggestions).toEqual(['cwd']);
    const roboco = await load(join(EXAMPLES, 'roboco'));
    const none = tryCompose(roboco, { role: 'developer', vars: { cwd: 'x' } });
    expect(none.ok ? [] : none.diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_INPUT']);
    const typed = okPack({
      'strata.yaml':
        'inputs:\n  level: { type: integer, min: 1, max: 3, default: 1 }\nlayers:\n  - id: a\n    text: "Level {{level}}."\n',
    });
    const bad = tryCompose(typed, { vars: { level: '9' } });
    expect(bad.ok ? '' : bad.diagnostics[0]!.message).toBe(
      'input level: value "9" is invalid; accepted values: an integer <= 3',
    );
    expect(composeOk(typed, { vars: { level: '2' } }).text).toBe('Level 2.');
    expect(composeOk(typed, {}).text).toBe('Level 1.');
  });
});

describe('a pack mixing primitives', () => {
  const files = {
    'strata.yaml': [
      'extends: roboco',
      'input_syntax: "{name}"',
      'inputs:',
      '  product: { description: The product the team builds }',
      'layers:',
      '  - id: persona',
      '    after: base',
      '    text: "You are {{role.role}}. {{role.backstory}}\\nYour personal goal is: {{role.goal}}"',
      '    trim: end',
      '',
    ].join('\n'),
    'base.md': '# Base\n\nBe precise.\n',
    'roles.yaml': [
      'roles:',
      '  developer:',
      '    role: >',
      '      {product} Developer',
      '    goal: Ship {product} features that work.',
      '    backstory: You have maintained {product} since its first release.',
      '',
    ].join('\n'),
    'roles/developer.md': 'Write tests first.\n',
  };

  it('a CrewAI-style record template inside the RoboCo layer stack composes and explains', () => {
    const snapshot = okPack(files);
    expect(snapshot.preset).toBe('roboco');
    const result = composeOk(snapshot, { role: 'developer', vars: { product: 'Atlas' } });
    expect(result.text).toBe(
      '# Base\n\nBe precise.\n\n---\n\nYou are Atlas Developer\n. You have maintained Atlas since its first release.\nYour personal goal is: Ship Atlas features that work.\n\n---\n\nWrite tests first.',
    );
    expect(result.layers.filter((l) => l.included).map((l) => [l.id, l.kind, l.source])).toEqual([
      ['base', 'file', 'base.md'],
      ['persona', 'text', 'roles.yaml'],
      ['role', 'file', 'roles/developer.md'],
    ]);
    expectGolden('layouts/mixed-explain.txt', formatExplain(result));
    const missing = tryCompose(snapshot, { role: 'developer' });
    expect(missing.ok ? [] : missing.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['MISSING_INPUT', 'roles.yaml'],
    ]);
  });
});
