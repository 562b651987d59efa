import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { agentConfig } from '../../src/tooling/agent-config/agent-config.js';
import { cli, memPack, tempDir, writeFiles } from '../helpers.js';
import { appFor } from '../server/helpers.js';

/**
 * Subagent collections as they are published: agent files in category folders whose
 * frontmatter `name` is written as people write names ("Frontend Developer", which Claude
 * Code takes as the agent's name as it is), with extra fields (`emoji`, `vibe`) and a
 * README beside them; and a repository of plugins whose descriptions hold `\n` escapes and
 * dialogue lines with colons, one of them continued on lines that are not indented (YAML
 * that does not parse, also with values quoted: Claude Code does not load such a project
 * agent either).
 */

const COLLECTION = {
  'README.md': '# The Agency\n\nA collection of agents.\n',
  'engineering/engineering-frontend-developer.md': [
    '---',
    'name: Frontend Developer',
    'description: Expert frontend developer specializing in React/Vue/Angular, UI implementation, and performance',
    'color: cyan',
    'emoji: 🖥️',
    'vibe: Builds responsive, accessible web apps.',
    '---',
    '',
    '# Frontend Developer Agent Personality',
    '',
    'You are **Frontend Developer**, an expert frontend developer.',
    '',
  ].join('\n'),
  'design/design-ui-designer.md':
    '---\nname: UI Designer\ndescription: Expert UI designer\ntools: Read, Write\n---\n\nYou are **UI Designer**.\n',
  'specialized/bad-names.md':
    '---\nname: "plugin:scoped"\ndescription: A colon is reserved for plugin namespaces\n---\nX.\n',
};

describe('claude-agents: names written as people write them', () => {
  it('"Frontend Developer" is the role id, as Claude Code takes it; a name with ":" is refused, as Claude Code refuses it', () => {
    const result = memPack(COLLECTION);
    expect(result.snapshot!.preset).toBe('claude-agents');
    expect([...result.snapshot!.roles.keys()]).toEqual(['Frontend Developer', 'UI Designer']);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.file, d.line])).toEqual([
      ['warning', 'BAD_ROLE', 'specialized/bad-names.md', 2],
    ]);
    const out = tryCompose(result.snapshot!, { role: 'Frontend Developer' });
    expect(out.ok && out.result.text).toBe(
      '# Frontend Developer Agent Personality\n\nYou are **Frontend Developer**, an expert frontend developer.',
    );
    const config = agentConfig(result.snapshot!, { role: 'UI Designer' });
    expect(config.ok && config.result.config).toEqual({ tools: ['Read', 'Write'] });
  });

  it('a name written as the pack writes names but no role of it is UNKNOWN_ROLE with the closest; path characters are BAD_NAME', () => {
    const { snapshot } = memPack(COLLECTION);
    for (const [role, closest] of [
      ['Backend Developer', 'Frontend Developer'],
      ['Frontend Developr', 'Frontend Developer'],
      ['frontend developer', 'Frontend Developer'],
      ['ui designer', 'UI Designer'],
    ]) {
      const unknown = tryCompose(snapshot!, { role });
      expect(unknown.ok ? [] : unknown.diagnostics.map((d) => [d.code, d.suggestions])).toEqual([
        ['UNKNOWN_ROLE', [closest]],
      ]);
    }
    for (const role of ['../x', 'a/b', 'plugin:scoped', '.hidden']) {
      const bad = tryCompose(snapshot!, { role });
      expect(bad.ok ? [] : bad.diagnostics.map((d) => d.code)).toEqual(['BAD_NAME']);
    }
  });

  it('a name in another Unicode form than the frontmatter’s is not that role, and the message says so', () => {
    const nfd = 'Caf\u0065\u0301 Barista';
    const { snapshot } = memPack({
      '.claude/agents/barista.md': `---\nname: ${nfd}\ndescription: Makes coffee\n---\nBrew.\n`,
    });
    const exact = tryCompose(snapshot!, { role: nfd });
    expect(exact.ok && exact.result.text).toBe('Brew.');
    const nfc = tryCompose(snapshot!, { role: nfd.normalize('NFC') });
    expect(nfc.ok ? [] : nfc.diagnostics.map((d) => [d.code, d.suggestions])).toEqual([
      ['UNKNOWN_ROLE', [nfd]],
    ]);
    expect(nfc.ok ? '' : nfc.diagnostics[0]!.message).toContain(
      'is the same text in another Unicode form: U+0043 U+0061 U+0066 U+00E9 U+0020',
    );
  });

  it.each([
    ['a leading dot', '.hidden'],
    ['a slash', 'UI/UX Designer'],
    ['a trailing space', '"Designer "'],
    ['a tab', '"A\\tB"'],
  ])('a frontmatter name with %s is no role', (_, name) => {
    const result = memPack(
      { 'a.md': `---\nname: ${name}\ndescription: D\n---\nA.\n` },
      { preset: 'claude-agents' },
    );
    expect(result.snapshot!.roles.size).toBe(0);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['BAD_ROLE']);
  });

  it('the CLI and the HTTP API take the name too (a path segment encoded)', async () => {
    const dir = tempDir('strata-claude-rw-');
    writeFiles(dir, COLLECTION);
    const run = await cli(['compose', '--dir', dir, '--role', 'UI Designer']);
    expect([run.code, run.stdout]).toEqual([0, 'You are **UI Designer**.']);
    const { app } = await appFor(dir);
    const res = await app.request('/api/prompts/UI%20Designer');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string };
    expect(body.text).toBe('You are **UI Designer**.');
    const post = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'Frontend Developer' }),
    });
    expect(post.status).toBe(200);
    const roles = (await (await app.request('/api/roles')).json()) as { roles: Array<{ id: string }> };
    expect(roles.roles.map((r) => r.id)).toEqual(['Frontend Developer', 'UI Designer']);
  });
});

describe('claude-agents: a repository of plugins with the descriptions plugins ship', () => {
  const PLUGINS = {
    'plugins/pr-kit/agents/hunter.md': [
      '---',
      'name: silent-failure-hunter',
      'description: Use this agent when reviewing error handling. Examples:\\n\\n<example>\\nContext: Daisy finished a feature.\\nDaisy: "Can you review it?"\\nAssistant: "I\'ll use the silent-failure-hunter agent."\\n</example>',
      'model: inherit',
      'color: yellow',
      '---',
      '',
      'You are an error handling auditor.',
      '',
    ].join('\n'),
    'plugins/pr-kit/agents/simplifier.md': [
      '---',
      'name: code-simplifier',
      'description: Use this agent after code was written.\\n\\nExamples:\\n\\n<example>',
      'Context: The assistant has just implemented a feature.',
      'user: "Please add auth"',
      '</example>',
      'model: opus',
      '---',
      '',
      'You simplify code.',
      '',
    ].join('\n'),
    'plugins/pr-kit/commands/review-pr.md':
      '---\ndescription: Review a pull request\n---\nReview $ARGUMENTS\n',
    'plugins/pr-kit/README.md': '# PR kit\n',
  };

  it('the escaped description parses on the retry; the unindented one is no agent, with a warning at its line', () => {
    const result = memPack(PLUGINS);
    expect(result.snapshot!.preset).toBe('claude-agents');
    expect([...result.snapshot!.roles.keys()]).toEqual(['silent-failure-hunter']);
    expect(result.snapshot!.roles.get('silent-failure-hunter')!.description).toBe(
      'Use this agent when reviewing error handling. Examples:\n\n<example>\nContext: Daisy finished a feature.\nDaisy: "Can you review it?"\nAssistant: "I\'ll use the silent-failure-hunter agent."\n</example>',
    );
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.file, d.line])).toEqual([
      ['warning', 'BAD_FRONTMATTER', 'plugins/pr-kit/agents/simplifier.md', 6],
    ]);
    const out = tryCompose(result.snapshot!, { role: 'silent-failure-hunter' });
    expect(out.ok && out.result.text).toBe('You are an error handling auditor.');
    const config = agentConfig(result.snapshot!, { role: 'silent-failure-hunter' });
    expect(config.ok && config.result.config).toEqual({ model: 'inherit' });
  });
});

describe('claude-agents: a plugin registers its agent files even without usable frontmatter', () => {
  const plugin = {
    'plugins/pr-kit/.claude-plugin/plugin.json': '{ "name": "pr-review-kit", "version": "1.0.0" }\n',
    'plugins/pr-kit/agents/hunter.md': '---\nname: silent-failure-hunter\ndescription: Hunts\n---\nHunt.\n',
    // Frontmatter that does not parse (continuation lines not indented).
    'plugins/pr-kit/agents/code-simplifier.md':
      '---\nname: code-simplifier\ndescription: Use after code was written.\\n\\n<example>\nuser: "Add auth"\n</example>\nmodel: opus\n---\n\nYou simplify code.\n',
    // No frontmatter at all.
    'plugins/pr-kit/agents/mentor.md': '# Mentor\n\nYou mentor.\n',
    // A name but no description.
    'plugins/pr-kit/agents/quiet.md': '---\nname: quiet-one\n---\nQuiet.\n',
    // Nested: Claude Code reads agents/ at any depth and names it `pr-review-kit:sub:deep`;
    // here, as every plugin agent, without the plugin and its folders.
    'plugins/pr-kit/agents/sub/deep.md': 'Deep.\n',
    'plugins/pr-kit/commands/review.md': '---\ndescription: Review\n---\nReview $ARGUMENTS\n',
  };

  it('named by its file, described as `Agent from <plugin> plugin`, as Claude Code registers it', () => {
    const result = memPack(plugin);
    const roles = result.snapshot!.roles;
    expect([...roles.keys()]).toEqual([
      'code-simplifier',
      'deep',
      'mentor',
      'quiet-one',
      'silent-failure-hunter',
    ]);
    expect(roles.get('deep')!.description).toBe('Agent from pr-review-kit plugin');
    expect(roles.get('mentor')!.description).toBe('Agent from pr-review-kit plugin');
    expect(roles.get('quiet-one')!.description).toBe('Agent from pr-review-kit plugin');
    expect(roles.get('code-simplifier')!.description).toBe('Agent from pr-review-kit plugin');
    // The frontmatter that does not parse is still said.
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['warning', 'BAD_FRONTMATTER', 'plugins/pr-kit/agents/code-simplifier.md'],
    ]);
    const compose = (role: string) => {
      const out = tryCompose(result.snapshot!, { role });
      return out.ok ? out.result.text : out.diagnostics.map((d) => d.code).join();
    };
    expect(compose('mentor')).toBe('# Mentor\n\nYou mentor.');
    expect(compose('deep')).toBe('Deep.');
    expect(compose('code-simplifier')).toBe('You simplify code.');
    // Its model is lost with its frontmatter, as in Claude Code (all tools, the parent's model).
    const config = agentConfig(result.snapshot!, { role: 'code-simplifier' });
    expect(config.ok && config.result.config).toEqual({});
  });

  it('without plugin.json the folder is no plugin: such files are no agents', () => {
    const { 'plugins/pr-kit/.claude-plugin/plugin.json': _, ...rest } = plugin;
    expect([...memPack(rest).snapshot!.roles.keys()]).toEqual(['silent-failure-hunter']);
  });

  it('a plugin at the pack root; a plugin.json without a name gives the folder name', () => {
    const root = memPack({
      '.claude-plugin/plugin.json': '{ "name": "solo" }',
      'agents/helper.md': 'Help.\n',
      'agents/x.md': '---\nname: x\ndescription: X\n---\nX.\n',
    });
    expect(root.snapshot!.roles.get('helper')!.description).toBe('Agent from solo plugin');
    const unnamed = memPack({
      'tools/.claude-plugin/plugin.json': '{}',
      'tools/agents/helper.md': 'Help.\n',
      'tools/agents/x.md': '---\nname: x\ndescription: X\n---\nX.\n',
    });
    expect(unnamed.snapshot!.roles.get('helper')!.description).toBe('Agent from tools plugin');
  });

  it('a plugin.json that is no JSON, or lists what is no path, is a BAD_ROLE warning: the agents it lists are not read', () => {
    const said = (json: string) =>
      memPack({
        'p/.claude-plugin/plugin.json': json,
        'p/agents/a.md': '---\nname: a\ndescription: A\n---\nA.\n',
      }).diagnostics.map((d) => [d.severity, d.code, d.file, d.message.split(' (')[0]!.split(';')[0]]);
    const file = 'p/.claude-plugin/plugin.json';
    expect(said('{ "name": "p", "agents": ["./agents/a.md", "./extra/b.md"] }')).toEqual([]);
    expect(said('{ "name": "p", "agents": ["./extra/b.md"], }')).toEqual([
      ['warning', 'BAD_ROLE', file, 'plugin.json is no JSON'],
    ]);
    expect(said('{ "name": "p", "agents": [42, "./agents/a.md"] }')).toEqual([
      ['warning', 'BAD_ROLE', file, 'plugin.json: "agents" is a path or a list of paths'],
    ]);
  });

  it('validate does not call plugin.json an orphan', async () => {
    const dir = tempDir('strata-claude-plugin-');
    writeFiles(dir, plugin);
    const run = await cli(['validate', '--dir', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('ORPHAN_FILE');
  });
});

describe('claude-agents: a repository with stray links loads', () => {
  it('a dangling link and a link leaving the pack are left out with warnings; the agents compose', async () => {
    const dir = tempDir('strata-claude-links-');
    writeFiles(dir, { '.claude/agents/a.md': '---\nname: a\ndescription: A\n---\nA body.\n' });
    symlinkSync('../nowhere.md', join(dir, 'guide.md'));
    symlinkSync('/etc/hostname', join(dir, '.claude', 'agents', 'outside.md'));
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['warning', 'PATH_OUTSIDE_PACK', '.claude/agents/outside.md'],
      ['warning', 'READ_ERROR', 'guide.md'],
    ]);
    const out = tryCompose(snapshot!, { role: 'a' });
    expect(out.ok && out.result.text).toBe('A body.');
  });
});

describe('a repository with a root AGENTS.md and a .claude/agents folder', () => {
  const files = {
    'AGENTS.md': '# Repository rules\n',
    '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n',
  };

  it('is agents-md (detected first); a role named there is an error naming the preset that reads it', () => {
    const { snapshot } = memPack(files);
    expect([snapshot!.preset, snapshot!.alsoLayouts]).toEqual(['agents-md', ['claude-agents']]);
    const out = tryCompose(snapshot!, { role: 'reviewer' });
    expect(out.ok ? [] : out.diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
      [
        'error',
        'UNKNOWN_ROLE',
        'role "reviewer" is unknown: the pack declares no roles (its registry is empty and no role file names it); the folder is also a claude-agents layout, whose roles --preset claude-agents reads (agents-md was detected first): compose with --preset claude-agents',
      ],
    ]);
    const forced = memPack(files, { preset: 'claude-agents' });
    const agent = tryCompose(forced.snapshot!, { role: 'reviewer' });
    expect(agent.ok && agent.result.text).toBe('Review.');
    expect(forced.snapshot!.alsoLayouts).toBeUndefined();
  });

  it('a plain AGENTS.md project has no other layout', () => {
    expect(
      memPack({ 'AGENTS.md': '# Rules\n', 'docs/guide.md': '# Guide\n' }).snapshot!.alsoLayouts,
    ).toBeUndefined();
  });
});

describe('claude-agents: a name both a user agent and a plugin agent have', () => {
  // A ~/.claude folder: the user's agents/ and an installed plugin's agents/.
  const HOME = {
    'agents/reviewer.md': '---\nname: reviewer\ndescription: My reviewer\n---\nMine.\n',
    'plugins/cache/market/review-kit/1.0.0/.claude-plugin/plugin.json': '{"name":"review-kit"}\n',
    'plugins/cache/market/review-kit/1.0.0/agents/reviewer.md':
      '---\nname: reviewer\ndescription: The kit reviewer\n---\nThe kit’s.\n',
    'plugins/cache/market/review-kit/1.0.0/agents/linter.md':
      '---\nname: linter\ndescription: Lints\n---\nLint.\n',
  };

  it('is the user’s; the plugin’s is review-kit.reviewer, as Claude Code calls it review-kit:reviewer', () => {
    const result = memPack(HOME);
    expect(result.snapshot!.preset).toBe('claude-agents');
    const out = tryCompose(result.snapshot!, { role: 'reviewer' });
    expect(out.ok && out.result.text).toBe('Mine.');
    const kit = tryCompose(result.snapshot!, { role: 'review-kit.reviewer' });
    expect(kit.ok && kit.result.text).toBe('The kit’s.');
    // Its note is no warning: a strict compose of it is answered.
    expect(kit.ok && kit.result.diagnostics.map((d) => d.severity)).toEqual(['info']);
    expect(tryCompose(result.snapshot!, { role: 'linter' }).ok).toBe(true);
    expect([...result.snapshot!.roles.keys()].sort()).toEqual(['linter', 'review-kit.reviewer', 'reviewer']);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.file, d.message])).toEqual([
      [
        'info',
        'DUPLICATE_ROLE',
        'plugins/cache/market/review-kit/1.0.0/agents/reviewer.md',
        'role reviewer is defined in agents/reviewer.md and here, kept apart as the system keeps them: this one is role review-kit.reviewer (reviewer is the one in agents/reviewer.md)',
      ],
    ]);
  });

  it('two plugins with the same agent name: each is its plugin’s, the name alone none', () => {
    const result = memPack({
      'a/.claude-plugin/plugin.json': '{"name":"kit-a"}\n',
      'a/agents/x.md': '---\nname: lint\ndescription: A\n---\nA.\n',
      'b/.claude-plugin/plugin.json': '{"name":"kit-b"}\n',
      'b/agents/x.md': '---\nname: lint\ndescription: B\n---\nB.\n',
      'c/.claude-plugin/plugin.json': '{"name":"kit-c"}\n',
      'c/agents/x.md': '---\nname: lint\ndescription: C\n---\nC.\n',
    });
    const text = (role: string) => {
      const out = tryCompose(result.snapshot!, { role });
      return out.ok ? out.result.text : out.diagnostics.map((d) => `${d.code}: ${d.message}`);
    };
    expect([text('kit-a.lint'), text('kit-b.lint'), text('kit-c.lint')]).toEqual(['A.', 'B.', 'C.']);
    expect(text('lint')).toEqual([
      'UNKNOWN_ROLE: unknown role "lint"; did you mean "kit-a.lint", "kit-b.lint" or "kit-c.lint"?; known roles: kit-a.lint, kit-b.lint, kit-c.lint',
    ]);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['info', 'DUPLICATE_ROLE', 'a/agents/x.md'],
      ['info', 'DUPLICATE_ROLE', 'b/agents/x.md'],
      ['info', 'DUPLICATE_ROLE', 'c/agents/x.md'],
    ]);
    expect(result.diagnostics[0]!.message).toBe(
      'role lint is defined in b/agents/x.md, c/agents/x.md and here, kept apart as the system keeps them: this one is role kit-a.lint (lint alone is no role: kit-a.lint, kit-b.lint, kit-c.lint)',
    );
  });

  it('a plugin agent and a project agent after it in path order: the bare name is the project’s', () => {
    const result = memPack({
      'a/.claude-plugin/plugin.json': '{"name":"kit"}\n',
      'a/agents/x.md': '---\nname: x\ndescription: A\n---\nA.\n',
      'z/agents/x.md': '---\nname: x\ndescription: Z\n---\nZ.\n',
    });
    const a = tryCompose(result.snapshot!, { role: 'kit.x' });
    const z = tryCompose(result.snapshot!, { role: 'x' });
    expect([a.ok && a.result.text, z.ok && z.result.text]).toEqual(['A.', 'Z.']);
  });
});
