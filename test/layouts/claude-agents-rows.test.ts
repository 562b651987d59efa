import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { agentConfig } from '../../src/tooling/agent-config/agent-config.js';
import { cli, expectGolden, tempDir, writeFiles } from '../helpers.js';
import { claudeAgent } from './reference/claude-code.js';

// Claude Code subagents as Claude Code loads them: every prompt strata composes here is
// checked against Claude Code's own rules (reference/claude-code.ts, from its cli.js) and
// against a golden file.

function pack(files: Record<string, string>): string {
  const dir = tempDir('strata-claude-rows-');
  writeFiles(dir, files);
  return dir;
}

async function composed(dir: string, role: string, vars?: Record<string, string>) {
  const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
  if (!snapshot) throw new Error(JSON.stringify(diagnostics));
  return tryCompose(snapshot, vars ? { role, vars } : { role });
}

// Claude Code's placeholders, as written in an agent's body.
const ROOT = ['$', '{CLAUDE_PLUGIN_ROOT}'].join('');
const DATA = ['$', '{CLAUDE_PLUGIN_DATA}'].join('');

const RUNNER = [
  '---',
  'name: runner',
  'description: Runs the plugin scripts',
  '---',
  '',
  `Run \`cd "${ROOT}/scripts" && ./check.sh\`.`,
  `Keep results in ${DATA}/results.json; ${ROOT} twice.`,
  '',
].join('\n');
const PLUGIN = {
  root: '/home/ada/.claude/plugins/cache/market/kit/1.0.0',
  data: '/home/ada/.claude/plugins/data/kit',
};

describe('claude-agents: CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA in a plugin agent', () => {
  const dir = pack({ '.claude-plugin/plugin.json': '{"name":"kit"}\n', 'agents/runner.md': RUNNER });

  it('are the plugin_root and plugin_data inputs, as Claude Code replaces them', async () => {
    const out = await composed(dir, 'runner', { plugin_root: PLUGIN.root, plugin_data: PLUGIN.data });
    const text = out.ok ? out.result.text : '';
    expect(text).toBe(claudeAgent(RUNNER, 'runner.md', PLUGIN).prompt);
    expectGolden('layouts/rows/claude-plugin-root.txt', text);
  });

  it('without them, the compose fails naming the --var to give (exit 1, never the text as written)', async () => {
    const out = await composed(dir, 'runner');
    expect(out.ok ? [] : out.diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([
      [
        'MISSING_INPUT',
        'agents/runner.md',
        `input plugin_root has no value: agents/runner.md writes ${ROOT} (the folder the plugin is installed in, which strata cannot know) and uses it; give --var plugin_root=VALUE (API: vars.plugin_root)`,
      ],
    ]);
    const run = await cli([
      'compose',
      '--dir',
      dir,
      '--role',
      'runner',
      '--var',
      `plugin_root=${PLUGIN.root}`,
    ]);
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toContain('give --var plugin_data=VALUE');
  });

  it('a value that would grow the prompt past its byte limit is PROMPT_TOO_LARGE, measured before it is made', async () => {
    const { snapshot } = await loadPack(dir, { env: {}, maxPromptBytes: 1000 });
    const out = tryCompose(snapshot!, {
      role: 'runner',
      vars: { plugin_root: 'x'.repeat(600), plugin_data: '/d' },
    });
    expect(out.ok ? [] : out.diagnostics.map((d) => d.code)).toEqual(['PROMPT_TOO_LARGE']);
  });

  it('an agent outside plugins keeps them as written, as Claude Code does', async () => {
    const project = pack({ '.claude/agents/runner.md': RUNNER });
    const out = await composed(project, 'runner');
    expect(out.ok && out.result.text).toBe(claudeAgent(RUNNER, 'runner.md').prompt);
    expect(out.ok && out.result.text).toContain(ROOT);
  });
});

describe('claude-agents: a plugin option (user_config.KEY) in a plugin agent', () => {
  const option = (key: string) => ['$', `{user_config.${key}}`].join('');
  const CALLER = [
    '---',
    'name: caller',
    'description: Calls the service',
    '---',
    '',
    `Call ${option('endpoint')} with the key ${option('api_key')}.`,
    `${option('undeclared')} and ${option('api_key')} again, from ${ROOT}.`,
    '',
  ].join('\n');
  const SCHEMA = {
    api_key: { type: 'string', title: 'Key', description: 'The key', sensitive: true },
    endpoint: { type: 'string', title: 'Endpoint', description: 'Where the service is' },
  };

  it("a sensitive option is Claude Code's placeholder; another is kept as written (PLACEHOLDER_KEPT, where it is written); an undeclared one stays", async () => {
    const dir = pack({
      '.claude-plugin/plugin.json': JSON.stringify({ name: 'kit', userConfig: SCHEMA }),
      'agents/caller.md': CALLER,
    });
    const out = await composed(dir, 'caller', { plugin_root: PLUGIN.root, plugin_data: PLUGIN.data });
    if (!out.ok) throw new Error(JSON.stringify(out.diagnostics));
    // Claude Code's text when the user saved no value for endpoint.
    const reference = claudeAgent(CALLER, 'caller.md', {
      ...PLUGIN,
      userConfig: { schema: SCHEMA, saved: {} },
    });
    expect(out.result.text).toBe(reference.prompt);
    expect(out.result.text).toBe(
      `Call ${option('endpoint')} with the key [sensitive option 'api_key' not available in skill content].\n${option('undeclared')} and [sensitive option 'api_key' not available in skill content] again, from ${PLUGIN.root}.`,
    );
    expect(out.result.diagnostics.map((d) => [d.code, d.severity, d.file, d.line, d.col, d.message])).toEqual(
      [
        [
          'PLACEHOLDER_KEPT',
          'warning',
          'agents/caller.md',
          6,
          6,
          `${option('endpoint')}: its runtime writes the value the user saved for the plugin's option endpoint (the text as written when none is saved) here, which strata cannot know: the text is kept as written`,
        ],
      ],
    );
    // Strict: refused, exit 1; validate lists it.
    const strict = await cli([
      'compose',
      '--dir',
      dir,
      '--role',
      'caller',
      '--var',
      'plugin_root=/r',
      '--strict',
    ]);
    expect([strict.code, strict.stdout]).toEqual([1, '']);
    expect(strict.stderr).toContain('error PLACEHOLDER_KEPT: agents/caller.md:6:6:');
    const validate = await cli(['validate', '--dir', dir]);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('warning PLACEHOLDER_KEPT: agents/caller.md:6:6:');
  });

  it('a plugin without userConfig, and an agent outside plugins, keep every option placeholder as written, unsaid', async () => {
    for (const dir of [
      pack({ '.claude-plugin/plugin.json': '{"name":"kit"}', 'agents/caller.md': CALLER }),
      pack({ '.claude/agents/caller.md': CALLER }),
    ]) {
      const out = await composed(dir, 'caller', { plugin_root: PLUGIN.root, plugin_data: PLUGIN.data });
      if (!out.ok) throw new Error(JSON.stringify(out.diagnostics));
      expect(out.result.text).toContain(`the key ${option('api_key')}.`);
      expect(out.result.diagnostics.map((d) => d.code)).toEqual([]);
    }
  });

  it("a marketplace's local plugin without a plugin.json takes its options from its entry; a nested plugin its own", async () => {
    const dir = pack({
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'market',
        plugins: [{ name: 'kit', source: './kit', userConfig: { api_key: { sensitive: true } } }],
      }),
      'kit/agents/caller.md': CALLER,
      'kit/inner/.claude-plugin/plugin.json': JSON.stringify({ name: 'inner', userConfig: { endpoint: {} } }),
      'kit/inner/agents/inner.md': CALLER.replace('name: caller', 'name: inner'),
    });
    const outer = await composed(dir, 'caller', { plugin_root: PLUGIN.root, plugin_data: PLUGIN.data });
    if (!outer.ok) throw new Error(JSON.stringify(outer.diagnostics));
    expect(outer.result.text).toContain(
      "the key [sensitive option 'api_key' not available in skill content].",
    );
    expect(outer.result.diagnostics.map((d) => d.code)).toEqual([]);
    const inner = await composed(dir, 'inner', { plugin_root: PLUGIN.root, plugin_data: PLUGIN.data });
    if (!inner.ok) throw new Error(JSON.stringify(inner.diagnostics));
    expect(inner.result.text).toContain(`the key ${option('api_key')}.`);
    expect(inner.result.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['PLACEHOLDER_KEPT', 'kit/inner/agents/inner.md'],
    ]);
  });
});

describe('claude-agents: a root AGENTS.md beside .claude/agents', () => {
  const REVIEWER = '---\nname: reviewer\ndescription: Reviews\n---\n\nReview every diff twice.\n';
  const dir = pack({ 'AGENTS.md': '# Repository rules\n', '.claude/agents/reviewer.md': REVIEWER });

  it('compose --role of an agent composes it from the claude-agents layout, saying so', async () => {
    const run = await cli(['compose', '--dir', dir, '--role', 'reviewer']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(claudeAgent(REVIEWER, 'reviewer.md').prompt);
    expectGolden('layouts/rows/claude-beside-agents-md.txt', run.stdout);
    expect(run.stderr).toBe(
      'warning UNKNOWN_ROLE: role "reviewer" is no role of the agents-md layout detected first; the folder is also a claude-agents layout, which has it: composed as --preset claude-agents does\n',
    );
    const config = await cli(['config', '--dir', dir, '--role', 'reviewer', '--json']);
    expect(config.code).toBe(0);
  });

  it('a role neither layout has fails (exit 1) naming the --preset, never the AGENTS.md text', async () => {
    const run = await cli(['compose', '--dir', dir, '--role', 'reviewr']);
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toContain('compose with --preset claude-agents');
  });
});

describe('a root AGENTS.md beside Claude Code agents and a crew in a deep folder', () => {
  const HELPER = '---\nname: helper\ndescription: Helps\n---\nYou help.\n';
  const dir = pack({
    'AGENTS.md': '# Rules\n',
    'docs/helper.md': HELPER,
    'lib/crews/deep/research/config/agents.yaml': 'researcher:\n  role: R\n  goal: G\n  backstory: B\n',
  });

  it('a role of the crew is composed from the crewai layout, not refused naming claude-agents', async () => {
    const { snapshot } = await loadPack(dir, { env: {} });
    expect([snapshot!.preset, snapshot!.alsoLayouts]).toEqual(['agents-md', ['claude-agents', 'crewai']]);
    const run = await cli(['compose', '--dir', dir, '--role', 'researcher']);
    const crew = await cli(['compose', '--dir', dir, '--preset', 'crewai', '--role', 'researcher']);
    expect([run.code, crew.code]).toEqual([0, 0]);
    expect(run.stdout).toBe(crew.stdout);
    expect(run.stderr).toBe(
      'warning UNKNOWN_ROLE: role "researcher" is no role of the agents-md layout detected first; the folder is also a crewai layout, which has it: composed as --preset crewai does\n',
    );
    const helper = await cli(['compose', '--dir', dir, '--role', 'helper']);
    expect([helper.code, helper.stdout]).toEqual([0, claudeAgent(HELPER, 'helper.md').prompt]);
  });

  it('a role neither has names both presets', async () => {
    const { snapshot } = await loadPack(dir, { env: {} });
    const out = tryCompose(snapshot!, { role: 'nobody' });
    expect(out.ok ? [] : out.diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'UNKNOWN_ROLE',
        'role "nobody" is unknown: the pack declares no roles (its registry is empty and no role file names it); the folder is also the layouts claude-agents and crewai, whose roles --preset reads (agents-md was detected first): compose with --preset claude-agents or --preset crewai',
      ],
    ]);
  });
});

describe('claude-agents: the catch-all takes no command file', () => {
  const command = (extra: string, body: string) =>
    `---\nname: deploy\ndescription: Deploy the app\n${extra}---\n\n${body}\n`;

  it.each([
    ['argument-hint:', command('argument-hint: <env>\n', 'Deploy.'), 'tools/catalog/deploy.md'],
    ['allowed-tools:', command('allowed-tools: Bash\n', 'Deploy.'), 'tools/catalog/deploy.md'],
    ['$ARGUMENTS', command('', 'Deploy to $ARGUMENTS.'), 'tools/catalog/deploy.md'],
    ['a commands/ folder', command('', 'Deploy.'), 'commands/deploy.md'],
  ])('a file with %s is no agent', async (_what, text, path) => {
    const agent = '---\nname: helper\ndescription: Helps\n---\nHelp.\n';
    const { snapshot } = await loadPack(pack({ [path]: text, 'docs/helper.md': agent }), { env: {} });
    expect([...snapshot!.roles.keys()]).toEqual(['helper']);
  });

  it('in a tree of plugins, only the agents their plugin.json files list are agents', async () => {
    const designer =
      '---\nname: api-designer\ndescription: Designs APIs\ntools: Read, Write\n---\n\nYou design APIs.\n';
    const dir = pack({
      'categories/01-core/.claude-plugin/plugin.json': '{"name":"core","agents":["./api-designer.md"]}\n',
      'categories/01-core/api-designer.md': designer,
      'categories/01-core/README.md': '# Core\n',
      'tools/subagent-catalog/fetch.md':
        '---\nname: fetch\ndescription: "Fetch a subagent from the catalog"\n---\n\n# Fetch\n\n## Input: $ARGUMENTS\n',
      'tools/subagent-catalog/list.md': '---\nname: list\ndescription: "List the catalog"\n---\n\n# List\n',
    });
    const { snapshot } = await loadPack(dir, { env: {} });
    expect([...snapshot!.roles.keys()]).toEqual(['api-designer']);
    const out = tryCompose(snapshot!, { role: 'api-designer' });
    expect(out.ok && out.result.text).toBe(claudeAgent(designer, 'api-designer.md', PLUGIN).prompt);
  });
});

describe('claude-agents: hidden files and sub-folders of .claude/agents', () => {
  it('are agents, as Claude Code lists the folder (rg --hidden)', async () => {
    const hidden = '---\nname: archived\ndescription: Old\n---\n\nArchived agent.\n';
    const dot = '---\nname: dotted\ndescription: Dot\n---\n\nDotted agent.\n';
    const dir = pack({
      '.claude/agents/.archive/archived.md': hidden,
      '.claude/agents/.dotted.md': dot,
      '.claude/agents/visible.md': '---\nname: visible\ndescription: V\n---\nV.\n',
    });
    const { snapshot } = await loadPack(dir, { env: {} });
    expect([...snapshot!.roles.keys()]).toEqual(['archived', 'dotted', 'visible']);
    const out = tryCompose(snapshot!, { role: 'archived' });
    expect(out.ok && out.result.text).toBe(claudeAgent(hidden, 'archived.md').prompt);
    expectGolden('layouts/rows/claude-hidden-agent.txt', out.ok ? out.result.text : '');
  });
});

describe('claude-agents: tools: written without a value', () => {
  it.each([
    ['tools:', '[]'],
    ['tools: ""', '[]'],
    ['tools: "*"', undefined],
    ['model: sonnet', undefined],
  ])('%s is tools %s, as Claude Code reads it', async (line, shown) => {
    const text = `---\nname: t\ndescription: d\n${line}\n---\nT.\n`;
    const { snapshot } = await loadPack(pack({ '.claude/agents/t.md': text }), { env: {} });
    const config = agentConfig(snapshot!, { role: 't' });
    const tools = config.ok ? config.result.config.tools : 'failed';
    const reference = claudeAgent(text, 't.md').tools;
    expect(reference === undefined ? undefined : JSON.stringify(reference)).toBe(shown);
    // `*` is every tool: strata shows the list as written.
    if (line !== 'tools: "*"') expect(tools).toEqual(reference);
  });
});

describe('claude-agents: tools split as Claude Code splits them', () => {
  // Claude Code (cb in cli.js) splits a tools value at each comma and space outside
  // parentheses: a rule's own commas and spaces (`Agent(a, b)`, `Bash(git add:*)`) stay.
  it.each([
    [
      'tools: Read, Agent(scan-a, scan-b), Bash(git add:*)',
      ['Read', 'Agent(scan-a, scan-b)', 'Bash(git add:*)'],
    ],
    ['tools: Read Grep,Glob', ['Read', 'Grep', 'Glob']],
    ['tools: [Read, "Task(x, y) Edit"]', ['Read', 'Task(x, y)', 'Edit']],
  ])('%s', async (line, list) => {
    const text = `---\nname: t\ndescription: d\n${line}\n---\nT.\n`;
    const { snapshot } = await loadPack(pack({ '.claude/agents/t.md': text }), { env: {} });
    const config = agentConfig(snapshot!, { role: 't' });
    expect(claudeAgent(text, 't.md').tools).toEqual(list);
    expect(config.ok && config.result.config.tools).toEqual(list);
  });
});

describe('claude-agents: a plugin agent whose name is no string', () => {
  it.each([
    ['name: 42', '42'],
    ['name: true', 'true'],
    ['name: 1.5', '1.5'],
    ['name: ""', 'numeric'],
  ])('%s is the agent %s (String(name), else the file name)', async (line, id) => {
    const text = `---\n${line}\ndescription: Counts\n---\n\nCount.\n`;
    const dir = pack({
      '.claude-plugin/plugin.json': '{"name":"kit"}\n',
      'agents/numeric.md': text,
      'agents/other.md': '---\nname: other\ndescription: O\n---\nO.\n',
    });
    const { snapshot } = await loadPack(dir, { env: {} });
    expect(claudeAgent(text, 'numeric.md', PLUGIN).name).toBe(id);
    expect([...snapshot!.roles.keys()]).toContain(id);
    const out = tryCompose(snapshot!, { role: id });
    expect(out.ok && out.result.text).toBe(claudeAgent(text, 'numeric.md', PLUGIN).prompt);
  });
});

describe('claude-agents: agents a plugin.json lists, in place of its agents/ folder', () => {
  // Claude Code reads a plugin's `agents/` folder only when its plugin.json has no
  // "agents": a list replaces the folder (a plugin without one keeps its folder's agents,
  // and a list naming the folder keeps them too); a repository of plugins may mix them.
  const LISTED = '---\nname: auditor\ndescription: Audits\n---\n\nAudit the lockfile.\n';
  const NESTED = '---\nname: scout\ndescription: Scouts\n---\n\nScout the repository.\n';
  const FOLDER = '---\nname: builder\ndescription: Builds\n---\n\nBuild it.\n';
  const KEPT = '---\nname: keeper\ndescription: Keeps\n---\n\nKeep it.\n';
  const dir = pack({
    'plugins/kit/.claude-plugin/plugin.json':
      '{"name":"kit","agents":["./specialists/auditor.md","./crew"]}\n',
    'plugins/kit/agents/builder.md': FOLDER,
    'plugins/kit/specialists/auditor.md': LISTED,
    'plugins/kit/specialists/unlisted.md': '---\nname: unlisted\ndescription: U\n---\nU.\n',
    'plugins/kit/crew/deep/scout.md': NESTED,
    'plugins/tool/.claude-plugin/plugin.json': '{"name":"tool"}\n',
    'plugins/tool/agents/helper.md': '---\nname: helper\ndescription: Helps\n---\nHelp.\n',
    'plugins/own/.claude-plugin/plugin.json': '{"name":"own","agents":"./agents/"}\n',
    'plugins/own/agents/keeper.md': KEPT,
  });

  it('are the agents, with the bytes Claude Code gives them; its agents/ folder and a file no plugin.json lists are none', async () => {
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([
      [
        'BAD_ROLE',
        'plugins/kit/.claude-plugin/plugin.json',
        'plugin.json lists its agents ("agents"), which replaces its agents/ folder: 1 file there (plugins/kit/agents/builder.md) is no agent, as for Claude Code',
      ],
    ]);
    expect([...snapshot!.roles.keys()].sort()).toEqual(['auditor', 'helper', 'keeper', 'scout']);
    for (const [role, text, file] of [
      ['auditor', LISTED, 'auditor.md'],
      ['scout', NESTED, 'scout.md'],
      ['keeper', KEPT, 'keeper.md'],
    ] as const) {
      const out = tryCompose(snapshot!, { role });
      expect([role, out.ok && out.result.text]).toEqual([role, claudeAgent(text, file, PLUGIN).prompt]);
    }
    const builder = tryCompose(snapshot!, { role: 'builder' });
    expect(!builder.ok && builder.diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_ROLE']);
  });

  it('strata compose --role auditor exits 0 with the listed file body, saying the folder passed over', async () => {
    const run = await cli(['compose', '--dir', dir, '--role', 'auditor']);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      0,
      'Audit the lockfile.',
      'warning BAD_ROLE: plugins/kit/.claude-plugin/plugin.json: plugin.json lists its agents ("agents"), which replaces its agents/ folder: 1 file there (plugins/kit/agents/builder.md) is no agent, as for Claude Code\n',
    ]);
  });
});

describe('claude-agents: a marketplace plugin without a plugin.json', () => {
  // Claude Code loads a folder its marketplace.json lists as a local plugin
  // (`"source": "./plugins/devkit"`) even without a plugin.json: the entry is its manifest
  // (its name; its "agents" beside its agents/ folder). Its agents have the plugin
  // fallbacks and placeholders of any plugin's.
  const CREATOR = [
    '---',
    'name: creator',
    'description: Use this agent when the user asks to "create an agent". Examples:',
    '',
    '<example>',
    'user: "Create one"',
    '</example>',
    '---',
    '',
    `Read ${ROOT}/skills/guide.md first.`,
    '',
  ].join('\n');
  const MORE = '---\nname: more\ndescription: More\n---\n\nMore.\n';
  const dir = pack({
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'market',
      plugins: [
        { name: 'devkit', source: './plugins/devkit', agents: ['./extra/more.md'] },
        { name: 'remote', source: { source: 'github', repo: 'someone/remote' } },
        { name: 'other', source: './plugins/other' },
      ],
    }),
    'plugins/devkit/agents/creator.md': CREATOR,
    'plugins/devkit/extra/more.md': MORE,
    'plugins/other/.claude-plugin/plugin.json': '{"name":"other"}\n',
    'plugins/other/agents/helper.md': '---\nname: helper\ndescription: Helps\n---\nHelp.\n',
  });

  it('is a plugin: its agents, named by their files where the frontmatter does not parse, with Claude Code bytes', async () => {
    const { snapshot } = await loadPack(dir, { env: {} });
    expect([...snapshot!.roles.keys()].sort()).toEqual(['creator', 'helper', 'more']);
    expect(snapshot!.roles.get('creator')!.fields.description).toBe('Agent from devkit plugin');
    const ref = claudeAgent(CREATOR, 'creator.md', PLUGIN);
    expect(ref.name).toBe('creator');
    const out = tryCompose(snapshot!, { role: 'creator', vars: { plugin_root: PLUGIN.root } });
    expect(out.ok && out.result.text).toBe(ref.prompt);
    const more = tryCompose(snapshot!, { role: 'more' });
    expect(more.ok && more.result.text).toBe(claudeAgent(MORE, 'more.md', PLUGIN).prompt);
    const bare = tryCompose(snapshot!, { role: 'creator' });
    expect(!bare.ok && bare.diagnostics.map((d) => d.code)).toEqual(['MISSING_INPUT']);
  });
});

describe('claude-agents: a plugin agent in a folder below agents/', () => {
  // Claude Code reads a plugin's agents/ folder (and a folder its plugin.json lists) at
  // any depth, each file with the plugin fallbacks: `agents/team/lead.md` without
  // frontmatter is the agent `<plugin>:team:lead`, named `lead` here.
  const LEAD = `Lead the team from ${ROOT}/notes.md.\n`;
  const DEEP = '---\nmodel: opus\n---\n\nGo deep.\n';
  const dir = pack({
    '.claude-plugin/plugin.json': '{"name":"kit"}\n',
    'agents/helper.md': '---\nname: helper\ndescription: Helps\n---\nHelp.\n',
    'agents/team/lead.md': LEAD,
    'other/.claude-plugin/plugin.json': '{"name":"other","agents":["./crew/"]}\n',
    'other/crew/deep/diver.md': DEEP,
  });

  it('is an agent without usable frontmatter, named by its file, with Claude Code bytes', async () => {
    const { snapshot } = await loadPack(dir, { env: {} });
    expect([...snapshot!.roles.keys()].sort()).toEqual(['diver', 'helper', 'lead']);
    expect(snapshot!.roles.get('lead')!.fields.description).toBe('Agent from kit plugin');
    expect(snapshot!.roles.get('diver')!.fields.description).toBe('Agent from other plugin');
    const lead = tryCompose(snapshot!, { role: 'lead', vars: { plugin_root: PLUGIN.root } });
    expect(lead.ok && lead.result.text).toBe(claudeAgent(LEAD, 'lead.md', PLUGIN).prompt);
    const diver = tryCompose(snapshot!, { role: 'diver' });
    expect(diver.ok && diver.result.text).toBe(claudeAgent(DEEP, 'diver.md', PLUGIN).prompt);
  });
});

describe("claude-agents: a marketplace entry's agents beside a plugin.json's", () => {
  // Claude Code merges the agents a plugin's marketplace entry lists into those its
  // plugin.json gives: beside its agents/ folder, or beside the files its plugin.json
  // lists (which replace that folder).
  const agent = (name: string) => `---\nname: ${name}\ndescription: ${name}\n---\n\n${name} here.\n`;
  const dir = pack({
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'market',
      plugins: [
        { name: 'kit', source: './plugins/kit', agents: ['./extra/added.md'] },
        { name: 'set', source: './plugins/set', agents: './more/' },
      ],
    }),
    'plugins/kit/.claude-plugin/plugin.json': '{"name":"kit"}\n',
    'plugins/kit/agents/folder.md': agent('folder'),
    'plugins/kit/extra/added.md': agent('added'),
    'plugins/set/.claude-plugin/plugin.json': '{"name":"set","agents":["./own.md"]}\n',
    'plugins/set/own.md': agent('own'),
    'plugins/set/more/deep/listed.md': agent('listed'),
    'plugins/set/agents/passed.md': agent('passed'),
  });

  it('are agents too, with Claude Code bytes', async () => {
    const { snapshot } = await loadPack(dir, { env: {} });
    expect([...snapshot!.roles.keys()].sort()).toEqual(['added', 'folder', 'listed', 'own']);
    for (const role of ['added', 'listed']) {
      const out = tryCompose(snapshot!, { role });
      expect(out.ok && out.result.text).toBe(claudeAgent(agent(role), `${role}.md`, PLUGIN).prompt);
    }
  });
});
