import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { type ComposeResult, tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { agentConfig } from '../../src/tooling/agent-config/agent-config.js';
import { cli, EXAMPLES, expectGolden, memPack } from '../helpers.js';
import { appFor } from '../server/helpers.js';

/**
 * The layout presets over packs shaped like the ones teams keep: a project made by
 * `crewai create` (agents.yaml under src/<package>/config, shared fields merged with
 * `<<: *anchor`), a `.claude/agents` folder with Windows line endings and a file saved
 * with a byte order mark, and AGENTS.md requests with an absolute working directory or
 * a cut file.
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const CREW = join(FIXTURES, 'layouts-crewai-project');
const CLAUDE = join(FIXTURES, 'layouts-claude-agents');
const AGENTS_YAML = 'src/trip_planner/config/agents.yaml';

async function load(dir: string): Promise<{ snapshot: Snapshot; diagnostics: string[][] }> {
  const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
  if (!snapshot) throw new Error(JSON.stringify(diagnostics));
  return {
    snapshot,
    diagnostics: diagnostics.map((d) => [d.severity, d.code, `${d.file}:${d.line}:${d.col}`]),
  };
}

function composeOk(snapshot: Snapshot, request: Parameters<typeof tryCompose>[1]): ComposeResult {
  const outcome = tryCompose(snapshot, request);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return outcome.result;
}

describe('crewai: a project made by `crewai create crew`', () => {
  it('is found under src/<package>/config/ and composes as CrewAI does', async () => {
    const { snapshot, diagnostics } = await load(CREW);
    expect(snapshot.preset).toBe('crewai');
    expect([...snapshot.roles.keys()]).toEqual(['budget_keeper', 'planner']);
    // The block of shared fields is no agent, and says so (it used to fail `validate`).
    expect(diagnostics).toEqual([['warning', 'BAD_ROLE', `${AGENTS_YAML}:2:1`]]);
    // Checked against PyYAML (merge keys applied) and CrewAI's template, filled and right-stripped.
    const planner = composeOk(snapshot, { role: 'planner', vars: { city: 'Lisbon', days: '3' } });
    expect(planner.text).toBe(
      'You are Lisbon Travel Planner\n. You grew up in Lisbon and have guided visitors through it for a decade. You know which museums close on Mondays.\n\nYour personal goal is: Plan 3 days in Lisbon that a first-time visitor will remember: one neighbourhood a day, no backtracking.',
    );
    expectGolden('layouts/crewai-project-planner.txt', planner.text);
    const keeper = composeOk(snapshot, { role: 'budget_keeper', vars: { city: 'Lisbon' } });
    expect(keeper.text).toBe(
      'You are Budget Keeper. You ran the finances of a travel agency for fifteen years.\nYou round prices up, never down.\n\nYour personal goal is: Keep the plan for Lisbon under budget, with every price sourced.',
    );
    expect(keeper.layers[0]!.source).toBe(AGENTS_YAML);
  });

  it('fields merged with `<<: *defaults` reach strata config; an own field wins over the merged one', async () => {
    const { snapshot } = await load(CREW);
    const planner = agentConfig(snapshot, { role: 'planner' });
    const keeper = agentConfig(snapshot, { role: 'budget_keeper' });
    expect(planner.ok && planner.result.config).toEqual({
      model: 'openai/gpt-4o-mini',
      tools: ['SerperDevTool', 'ScrapeWebsiteTool'],
    });
    expect(keeper.ok && keeper.result.config).toEqual({
      model: 'anthropic/claude-3-5-haiku-latest',
      tools: ['SerperDevTool', 'CalculatorTool'],
    });
    expect(snapshot.roles.get('planner')!.fields).toMatchObject({ allow_delegation: false, max_iter: 5 });
  });

  it('an llm that is no string (CrewAI takes a name) is BAD_ROLE at the value in agents.yaml', () => {
    const snapshot = memPack({
      'agents.yaml':
        'editor:\n  role: Editor\n  goal: Edit\n  backstory: Words.\n  llm:\n    model: gpt-4o\n',
    }).snapshot!;
    const out = agentConfig(snapshot, { role: 'editor' });
    expect(out.ok ? [] : out.diagnostics.map((d) => [d.code, d.file, d.line, d.col])).toEqual([
      ['BAD_ROLE', 'agents.yaml', 6, 5],
    ]);
  });

  it('validate passes with the run inputs, naming the entry that is no agent', async () => {
    const run = await cli(['validate', '--dir', CREW, '--var', 'city=Lisbon', '--var', 'days=3']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `warning BAD_ROLE: ${AGENTS_YAML}:2:1: not a role: x-defaults has no role, goal, backstory (the registry requires role, goal, backstory as strings)\n`,
    );
  });

  it.each([
    ['a flow crew', 'src/flow/crews/poem_crew/config/agents.yaml'],
    ['config/agents.yml', 'config/agents.yml'],
  ])('%s is read too', (_, path) => {
    const result = memPack({ [path]: 'poet:\n  role: Poet\n  goal: Write\n  backstory: Verse.\n' });
    expect(result.snapshot!.preset).toBe('crewai');
    expect(composeOk(result.snapshot!, { role: 'poet' }).text).toBe(
      'You are Poet. Verse.\nYour personal goal is: Write',
    );
  });

  it.each([
    ['an id that is no valid name', '_shared: &s\n  llm: gpt-4o\n', '_shared', 'is not a valid name'],
    ['an entry that is no mapping', 'version: 2\n', 'version', 'must be a mapping of fields'],
  ])('top-level entries beside the agents: %s is a warning, not a failed pack', (_, extra, id, says) => {
    const result = memPack({
      'agents.yaml': `${extra}writer:\n  role: Writer\n  goal: Write\n  backstory: Words.\n`,
    });
    expect(result.snapshot).toBeDefined();
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line, d.col])).toEqual([
      ['warning', 'BAD_ROLE', 1, 1],
    ]);
    expect(result.diagnostics[0]!.message).toContain(says);
    expect(result.diagnostics[0]!.message).toContain(id === '_shared' ? '"_shared"' : 'version');
    expect([...result.snapshot!.roles.keys()]).toEqual(['writer']);
  });

  it('placeholders in values are found as CrewAI finds them: {{topic}} is {topic} in braces; JSON is kept', () => {
    const result = memPack({
      'agents.yaml': [
        'analyst:',
        '  role: "{topic} Analyst"',
        `  goal: 'Report on {{topic}} as {"topic": "{topic}"}; keep {123} and { spaced }'`,
        '  backstory: Knows {topic-area}.',
        '',
      ].join('\n'),
    });
    const snapshot = result.snapshot!;
    // Checked against CrewAI's interpolate_only (pattern \{([A-Za-z_][A-Za-z0-9_\-]*)}, one pass).
    expect(composeOk(snapshot, { role: 'analyst', vars: { topic: 'AI {x}', 'topic-area': 'ML' } }).text).toBe(
      'You are AI {x} Analyst. Knows ML.\nYour personal goal is: Report on {AI {x}} as {"topic": "AI {x}"}; keep {123} and { spaced }',
    );
    const missing = tryCompose(snapshot, { role: 'analyst', vars: { topic: 'AI' } });
    expect(missing.ok ? [] : missing.diagnostics.map((d) => d.code)).toEqual(['MISSING_INPUT']);
  });

  it('an agent whose role, goal or backstory is no string is no agent (CrewAI refuses it too)', () => {
    const result = memPack({
      'agents.yaml':
        'counter:\n  role: 42\n  goal: Count\n  backstory: Numbers.\nok:\n  role: OK\n  goal: g\n  backstory: b\n',
    });
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line, d.message])).toEqual([
      [
        'warning',
        'BAD_ROLE',
        1,
        "not a role: counter's role is the number 42, not text (the registry requires role, goal, backstory as strings)",
      ],
    ]);
    expect([...result.snapshot!.roles.keys()]).toEqual(['ok']);
  });

  it('the warning tells a field given as something else than text from one not given', () => {
    const result = memPack({
      'agents.yaml': 'big:\n  goal: 12\n  backstory: .inf\nok:\n  role: OK\n  goal: g\n  backstory: b\n',
    });
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'not a role: big has no role; its goal is the number 12, backstory is the number .inf, not text (the registry requires role, goal, backstory as strings)',
    ]);
  });

  it('an agent with a key a typo away from goal is no agent, and the warning names the key meant', () => {
    const result = memPack({
      'agents.yaml':
        'analyst:\n  role: Analyst\n  gaol: Find things.\n  backstory: Reads.\nok:\n  role: OK\n  goal: g\n  backstory: b\n',
    });
    expect(result.diagnostics.map((d) => [d.code, d.line, d.suggestions, d.message])).toEqual([
      [
        'BAD_ROLE',
        1,
        ['goal'],
        'not a role: analyst has no goal (the registry requires role, goal, backstory as strings); it has "gaol": did you mean "goal"?',
      ],
    ]);
    expect([...result.snapshot!.roles.keys()]).toEqual(['ok']);
  });

  it('a role registry under a key still refuses a bad id (an error)', () => {
    const result = memPack({ 'roles.yaml': 'roles:\n  _x:\n    system_prompt: X\n' });
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line, d.col])).toEqual([
      ['error', 'BAD_ROLE', 2, 3],
    ]);
  });

  it('a merge key whose value is no mapping is a YAML error at its place', () => {
    const result = memPack({ 'agents.yaml': 'writer:\n  <<: 5\n  role: Writer\n' });
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.col])).toEqual([
      ['YAML_SYNTAX', 'agents.yaml', 2, 3],
    ]);
  });
});

describe('claude-agents: a .claude/agents folder from a Windows checkout', () => {
  it('reads the agents Claude Code reads, and says why the others are not agents', async () => {
    const { snapshot, diagnostics } = await load(CLAUDE);
    expect(snapshot.preset).toBe('claude-agents');
    expect([...snapshot.roles.keys()]).toEqual(['formatter', 'pr-reviewer']);
    // A BOM before `---`, and CRLF with an unquoted ": " (no quoting retry for CRLF
    // lines): Claude Code skips both files without a word; here each is a warning.
    expect(diagnostics).toEqual([
      ['warning', 'BAD_FRONTMATTER', '.claude/agents/release-notes.md:1:1'],
      ['warning', 'BAD_FRONTMATTER', '.claude/agents/windows/linter.md:3:14'],
    ]);
    const run = await cli(['validate', '--dir', CLAUDE]);
    expect(run.stdout).toBe(
      [
        'warning BAD_FRONTMATTER: .claude/agents/release-notes.md:1:1: frontmatter is not read: a byte order mark comes before the opening `---` line, which must start the file; the file has no metadata',
        'warning BAD_FRONTMATTER: .claude/agents/windows/linter.md:3:14: Nested mappings are not allowed in compact mappings (also with values quoted, which skips lines ending in CRLF); the file has no metadata',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(0);
  });

  it('a CRLF agent: its body keeps its line endings, trimmed; its list of tools is config', async () => {
    const { snapshot } = await load(CLAUDE);
    const result = composeOk(snapshot, { role: 'formatter' });
    expect(result.text).toBe(
      'You format the files the last edit touched.\r\n\r\nRun the project formatter, never a global one.',
    );
    expectGolden('layouts/claude-formatter-crlf.txt', result.text);
    const config = agentConfig(snapshot, { role: 'formatter' });
    expect(config.ok && config.result.config).toEqual({ model: 'haiku', tools: ['Read', 'Edit', 'Bash'] });
  });

  it.each([
    ['Read, Bash(git add:*, git commit:*), Grep', ['Read', 'Bash(git add:*, git commit:*)', 'Grep']],
    ['Read Grep  Glob', ['Read', 'Grep', 'Glob']],
    ['[Read, "Bash(npm run test, npm run lint)"]', ['Read', 'Bash(npm run test, npm run lint)']],
    ['["Read, Edit", Bash]', ['Read', 'Edit', 'Bash']],
  ])('tools: %s is split as Claude Code splits it', (tools, list) => {
    const snapshot = memPack(
      { 'a.md': `---\nname: a\ndescription: A\ntools: ${tools}\n---\nA.\n` },
      { preset: 'claude-agents' },
    ).snapshot!;
    const config = agentConfig(snapshot, { role: 'a' });
    expect(config.ok && config.result.config.tools).toEqual(list);
  });

  it('a description with <example> blocks, `\\n` escapes and colons parses on the retry', async () => {
    const { snapshot } = await load(CLAUDE);
    expect(snapshot.files.get('.claude/agents/reviewer.md')!.frontmatterRetried).toBe(true);
    expect(snapshot.roles.get('pr-reviewer')!.fields.color).toBe('purple');
    expect(composeOk(snapshot, { role: 'pr-reviewer' }).text).toBe(
      'You review pull requests.\n\n1. Read the whole diff before commenting.\n2. For each problem: file, line, what is wrong, the smallest fix.\n3. Say plainly when the change is fine.',
    );
  });

  it('`\\n` in a description is a line break, as Claude Code reads it: in the record and GET /api/roles', async () => {
    const { snapshot } = await load(CLAUDE);
    const description =
      'Use this agent after a pull request is opened. Examples:\n\n<example>\nContext: the user pushed a branch.\nuser: "review my PR"\nassistant: "I\'ll use the pr-reviewer agent: it reads the diff first."\n<commentary>A review request: use pr-reviewer.</commentary>\n</example>';
    expect(snapshot.roles.get('pr-reviewer')!.description).toBe(description);
    expect(snapshot.roles.get('pr-reviewer')!.fields.description).toBe(description);
    const { app } = await appFor(CLAUDE);
    const roles = (await (await app.request('/api/roles')).json()) as {
      roles: Array<{ id: string; description?: string }>;
    };
    expect(roles.roles.find((r) => r.id === 'pr-reviewer')!.description).toBe(description);
  });

  it.each([
    ['plain', 'description: A\\nB', 'A\nB'],
    ['single-quoted', "description: 'A\\nB'", 'A\nB'],
    // YAML reads `\\n` in double quotes as the two characters `\n`, which Claude Code then reads as a line break.
    ['double-quoted, escaped backslash', 'description: "A\\\\nB"', 'A\nB'],
    // Only `\n` is replaced: a backslash before it stays.
    ['plain, a doubled backslash', 'description: A\\\\nB', 'A\\\nB'],
    ['double-quoted, a YAML line break', 'description: "A\\nB"', 'A\nB'],
    ['no escape', 'description: A\\tB', 'A\\tB'],
  ])('description %s: %s', (_, line, description) => {
    const snapshot = memPack({ 'a.md': `---\nname: a\n${line}\n---\nA.\n` }, { preset: 'claude-agents' })
      .snapshot!;
    expect(snapshot.roles.get('a')!.description).toBe(description);
    expect(tryCompose(snapshot, { role: 'a' })).toMatchObject({ ok: true, result: { text: 'A.' } });
  });

  it('a file that is no agent is named with the line of the field at fault', () => {
    const result = memPack(
      {
        'num.md': '---\nname: 123\ndescription: A numeric name\n---\nN.\n',
        'spaces.md': '---\ndescription: Slash\nname: Code/Reviewer\n---\nS.\n',
        'ok.md': '---\nname: ok\ndescription: Fine\n---\nOK.\n',
        'quiet.md': '---\nname: quiet\ndescription: ""\n---\nQ.\n',
      },
      { preset: 'claude-agents' },
    );
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.col])).toEqual([
      ['BAD_ROLE', 'num.md', 2, 7],
      ['BAD_ROLE', 'quiet.md', 3, 14],
      ['BAD_ROLE', 'spaces.md', 3, 7],
    ]);
    // Claude Code refuses an empty description too ('Missing required "description" field').
    expect(result.diagnostics[1]!.message).toBe(
      'not a role: frontmatter description must be a non-empty string',
    );
    expect([...result.snapshot!.roles.keys()]).toEqual(['ok']);
  });

  it('an agent file whose frontmatter mistypes description names the key meant', () => {
    const result = memPack(
      {
        'reviewer.md': '---\nname: reviewer\ndescriptoin: Reviews changes.\n---\nR.\n',
        'ok.md': '---\nname: ok\ndescription: Fine\n---\nOK.\n',
      },
      { preset: 'claude-agents' },
    );
    expect(result.diagnostics.map((d) => [d.code, d.file, d.suggestions, d.message])).toEqual([
      [
        'BAD_ROLE',
        'reviewer.md',
        ['description'],
        'not a role: frontmatter description must be a non-empty string; it has "descriptoin": did you mean "description"?',
      ],
    ]);
    expect([...result.snapshot!.roles.keys()]).toEqual(['ok']);
  });

  it('blank lines before `---` are a warning on the line of the fence', () => {
    const result = memPack(
      { 'a.md': '\n\n---\nname: a\ndescription: A\n---\nA.\n' },
      { preset: 'claude-agents' },
    );
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.file, d.line, d.col])).toEqual([
      ['warning', 'BAD_FRONTMATTER', 'a.md', 3, 1],
    ]);
    expect(result.snapshot!.roles.size).toBe(0);
  });
});

describe('claude-agents: a .claude folder (~/.claude), and an agent without a body', () => {
  const files = {
    'CLAUDE.md': '# My rules\n',
    'agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews changes\n---\nReview.\n',
    'agents/blank.md': '---\nname: blank\ndescription: Nothing below\n---\n\n',
    'skills/pdf/SKILL.md': '---\nname: pdf\ndescription: Reads PDF files\n---\nUse pdftotext.\n',
    'output-styles/terse.md': '---\nname: terse\ndescription: Short answers\n---\nBe terse.\n',
    'commands/review.md': '---\ndescription: Review a pull request\n---\nReview $ARGUMENTS\n',
  };

  it('the agents are those below agents/: skills, output styles and commands are not', () => {
    const result = memPack(files);
    expect(result.snapshot!.preset).toBe('claude-agents');
    expect([...result.snapshot!.roles.keys()]).toEqual(['blank', 'reviewer']);
    expect(result.diagnostics).toEqual([]);
  });

  it('a repository of plugins: the agents are those below each plugin agents/ folder', () => {
    const result = memPack({
      'README.md': '# Plugins\n',
      'plugins/git/agents/committer.md': '---\nname: committer\ndescription: Writes commits\n---\nCommit.\n',
      'plugins/git/commands/commit.md': '---\ndescription: Commit the staged changes\n---\nCommit.\n',
      'plugins/git/skills/history/SKILL.md': '---\nname: history\ndescription: Reads history\n---\nLog.\n',
      'plugins/docs/agents/nested/writer.md': '---\nname: writer\ndescription: Writes docs\n---\nWrite.\n',
    });
    expect(result.snapshot!.preset).toBe('claude-agents');
    expect([...result.snapshot!.roles.keys()]).toEqual(['committer', 'writer']);
    expect(result.diagnostics).toEqual([]);
  });

  it('an agent whose body is empty has an empty prompt, as in Claude Code', () => {
    const outcome = tryCompose(memPack(files).snapshot!, { role: 'blank' });
    expect(outcome.ok && [outcome.result.text, outcome.result.diagnostics.map((d) => d.code)]).toEqual([
      '',
      ['FALLBACK_USED'],
    ]);
  });
});

describe('agents-md: working directories and budgets', () => {
  const dir = join(EXAMPLES, 'agents-md');

  it.each([['/srv/repo/backend/api'], ['C:\\repo\\backend'], ['\\\\server\\share']])(
    'an absolute cwd outside the pack (%s) is an error, not the root alone',
    async (cwd) => {
      const { snapshot } = await load(dir);
      const outcome = tryCompose(snapshot, { vars: { cwd } });
      expect(outcome.ok ? [] : outcome.diagnostics.map((d) => [d.code, d.message])).toEqual([
        [
          'PATH_OUTSIDE_PACK',
          `layer agents: ${JSON.stringify(cwd)} (from {cwd}) is an absolute path outside the pack; give a path relative to the pack root or one inside ${snapshot.root}`,
        ],
      ]);
    },
  );

  it('a cwd in a folder the pack does not read is an error; hidden: opts the folder in', () => {
    const files = { 'AGENTS.md': '# Root\n', '.github/AGENTS.md': '# CI\n' };
    const outcome = tryCompose(memPack(files).snapshot!, { vars: { cwd: '.github/workflows' } });
    expect(outcome.ok ? [] : outcome.diagnostics.map((d) => d.code)).toEqual(['PATH_OUTSIDE_PACK']);
    const opted = memPack({ ...files, 'strata.yaml': 'extends: agents-md\nhidden: [.github]\n' });
    expect(composeOk(opted.snapshot!, { vars: { cwd: '.github/workflows' } }).text).toBe(
      '# Root\n\n\n# CI\n',
    );
  });

  it('the CLI refuses an absolute cwd outside the pack with exit 1, and takes one inside it', async () => {
    const run = await cli(['compose', '--dir', dir, '--var', `cwd=${join(dir, '..', 'backend')}`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^error PATH_OUTSIDE_PACK: layer agents: ".*" \(from \{cwd\}\) is an absolute path outside the pack/,
    );
    const inside = await cli(['compose', '--dir', dir, '--var', `cwd=${join(realpathSync(dir), 'backend')}`]);
    const relative = await cli(['compose', '--dir', dir, '--var', 'cwd=backend']);
    expect([inside.code, inside.stdout]).toEqual([0, relative.stdout]);
  });

  it('TRUNCATED names the file cut, its sizes, and the files left out', () => {
    const big = `# API\n\n${'Réponse rapide — 応答。\n'.repeat(40)}`;
    const result = memPack({
      'AGENTS.md': '# Root\n',
      'api/AGENTS.md': big,
      'api/v2/AGENTS.md': '# v2\n',
    });
    const outcome = composeOk(result.snapshot!, {
      vars: { cwd: 'api/v2' },
      settings: { project_doc_max_bytes: 100 },
    });
    expect(outcome.diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([
      [
        'TRUNCATED',
        'api/AGENTS.md',
        `layer agents: cut from ${Buffer.byteLength(big)} to 93 bytes by its byte budget; the layer keeps 102 bytes; left out, no budget left: api/v2/AGENTS.md`,
      ],
    ]);
  });

  it('a project root with installed node_modules loads: node_modules is not read (unless hidden: names it)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'strata-agents-md-'));
    try {
      writeFileSync(join(root, 'AGENTS.md'), '# Root\n');
      mkdirSync(join(root, 'app'));
      writeFileSync(join(root, 'app', 'AGENTS.md'), '# App\n');
      for (let p = 0; p < 4; p++) {
        const pkg = join(root, 'node_modules', `pkg${p}`);
        mkdirSync(pkg, { recursive: true });
        writeFileSync(join(pkg, 'AGENTS.md'), '# vendored\n');
        for (let f = 0; f < 5; f++) writeFileSync(join(pkg, `f${f}.js`), 'x');
      }
      // 30 entries under node_modules: over the limit of 10 if they were counted.
      const { snapshot, diagnostics } = await loadPack(root, { env: {}, maxFiles: 10 });
      expect(diagnostics).toEqual([]);
      expect([...snapshot!.files.keys()]).toEqual(['AGENTS.md', 'app/AGENTS.md']);
      expect(composeOk(snapshot!, { vars: { cwd: 'app' } }).text).toBe('# Root\n\n\n# App\n');
      const read = await readPackDir(root, { maxFiles: 100, hidden: ['node_modules'] });
      expect(read.files.has('node_modules/pkg0/AGENTS.md')).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a dangling symlink elsewhere in the project is not reported; one named AGENTS.md is a warning', async () => {
    const root = mkdtempSync(join(tmpdir(), 'strata-agents-md-'));
    try {
      writeFileSync(join(root, 'AGENTS.md'), '# Root\n');
      symlinkSync(join(root, 'gone'), join(root, 'result'));
      const { snapshot, diagnostics } = await loadPack(root, { env: {} });
      expect(diagnostics).toEqual([]);
      expect(composeOk(snapshot!, {}).text).toBe('# Root\n');
      mkdirSync(join(root, 'app'));
      symlinkSync(join(root, 'gone.md'), join(root, 'app', 'AGENTS.md'));
      const broken = await loadPack(root, { env: {} });
      expect(broken.diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
        ['warning', 'READ_ERROR', 'app/AGENTS.md'],
      ]);
      expect(composeOk(broken.snapshot!, { vars: { cwd: 'app' } }).text).toBe('# Root\n');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("a project root with a Python virtual environment: its site-packages' agent files are no part of the pack", async () => {
    const root = mkdtempSync(join(tmpdir(), 'strata-venv-'));
    try {
      const agent = (name: string) => `---\nname: ${name}\ndescription: ${name}\n---\n${name}\n`;
      mkdirSync(join(root, 'agents'));
      writeFileSync(join(root, 'agents', 'reviewer.md'), agent('reviewer'));
      const pkg = join(root, 'venv', 'lib', 'python3.12', 'site-packages', 'pkg');
      mkdirSync(join(pkg, 'agents'), { recursive: true });
      writeFileSync(join(pkg, 'agents', 'helper.md'), agent('helper'));
      writeFileSync(join(pkg, 'AGENTS.md'), '# vendored\n');
      const { snapshot, diagnostics } = await loadPack(root, { env: {} });
      expect(diagnostics).toEqual([]);
      expect([...snapshot!.files.keys()]).toEqual(['agents/reviewer.md']);
      expect([...snapshot!.roles.keys()]).toEqual(['reviewer']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('in memory too, a path under site-packages or dist-packages is no part of the pack', () => {
    const result = memPack({
      'AGENTS.md': '# Root\n',
      'venv/lib/python3.12/site-packages/x/AGENTS.md': '# vendored\n',
      'usr/lib/python3/dist-packages/y/AGENTS.md': '# vendored\n',
    });
    expect([...result.snapshot!.files.keys()]).toEqual(['AGENTS.md']);
    const outside = tryCompose(result.snapshot!, { vars: { cwd: 'venv/lib/python3.12/site-packages/x' } });
    expect(outside.ok ? [] : outside.diagnostics.map((d) => d.code)).toEqual(['PATH_OUTSIDE_PACK']);
  });

  it('in memory too, a path under node_modules is no part of the pack', () => {
    const result = memPack({ 'AGENTS.md': '# Root\n', 'node_modules/x/AGENTS.md': '# vendored\n' });
    expect([...result.snapshot!.files.keys()]).toEqual(['AGENTS.md']);
  });

  it('a file holding only a byte order mark is not blank (as Codex trims: U+FEFF is no white space)', () => {
    const result = memPack({ 'AGENTS.md': '# Root\n', 'web/AGENTS.md': '\uFEFF\n' });
    const outcome = composeOk(result.snapshot!, { vars: { cwd: 'web' } });
    expect(outcome.text).toBe('# Root\n\n\n\uFEFF\n');
  });
});
