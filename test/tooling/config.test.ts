import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentConfigJsonSchema } from '../../src/tooling/agent-config/agent-config.js';
import { cli, EXAMPLES, FIXTURES, okPack } from '../helpers.js';

const PACK = join(FIXTURES, 'tooling-config');

describe('strata config', () => {
  it('roboco: role fields at top level, the fleet entry over them', async () => {
    const r = await cli(['config', '--dir', join(EXAMPLES, 'roboco'), '--agent', 'grace', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ agent: 'grace', role: 'qa', team: 'payments' });
    expect(out.config).toEqual({
      model: 'claude-sonnet',
      capabilities: ['tests', 'staging', 'review'],
      max_tasks: 2,
      temperature: 0,
    });
    expect(out.sources).toEqual({
      model: { from: 'role', file: 'roles.yaml' },
      capabilities: { from: 'role', file: 'roles.yaml' },
      max_tasks: { from: 'agent', file: 'fleet.yaml' },
      temperature: { from: 'agent', file: 'fleet.yaml' },
    });
  });

  it('chorus: fields under defaults:, the first of models is the model; the site file wins', async () => {
    const r = await cli(['config', '--dir', join(EXAMPLES, 'chorus'), '--role', 'arbiter', '--json']);
    const out = JSON.parse(r.stdout);
    expect(out.config.model).toBe('llama3.1:405b');
    expect(out.sources.model).toEqual({ from: 'role', file: 'site-roles.yaml', via: 'models[0]' });
    expect(out.config.capabilities).toEqual(['review', 'decide', 'release']);
  });

  it.each([
    // [request, model, model source, extra expectations]
    [
      { role: 'plain' },
      'house-model',
      { from: 'agent_defaults', file: 'strata.yaml' },
      { temperature: 0.5, max_tokens: 4096 },
    ],
    [
      { role: 'writer' },
      'big-model',
      { from: 'role', file: 'roles.yaml', via: 'models[0]' },
      { max_tasks: 2 },
    ],
    [{ role: 'editor' }, 'editor-model', { from: 'role', file: 'roles.yaml' }, { expertise: ['style'] }],
    [
      { agent: 'wendy' },
      'big-model',
      { from: 'role', file: 'roles.yaml', via: 'models[0]' },
      { temperature: 0.9, tools: ['search'] },
    ],
    [
      { agent: 'wes' },
      'tiny-model',
      { from: 'agent', file: 'fleet.yaml', via: 'models[0]' },
      { models: ['tiny-model'] },
    ],
    [
      { agent: 'wes', role: 'editor' },
      'tiny-model',
      { from: 'agent', file: 'fleet.yaml', via: 'models[0]' },
      { expertise: ['style'] },
    ],
  ])('merges agent_defaults < role < agent for %j', async (request, model, source, extra) => {
    const args = ['config', '--dir', PACK, '--json'];
    if ('role' in request) args.push('--role', request.role!);
    if ('agent' in request) args.push('--agent', request.agent!);
    const out = JSON.parse((await cli(args)).stdout);
    expect(out.config.model).toBe(model);
    expect(out.sources.model).toEqual(source);
    expect(out.config).toMatchObject(extra);
  });

  it('prints a table with each source', async () => {
    const r = await cli(['config', '--dir', PACK, '--agent', 'wendy']);
    expect(r.stdout).toBe(
      [
        'agent=wendy role=writer',
        '',
        'field         value                        source',
        'model         "big-model"                  role writer (roles.yaml), models[0]',
        'models        ["big-model","small-model"]  role writer (roles.yaml)',
        'capabilities  ["write"]                    role writer (roles.yaml)',
        'max_tasks     2                            role writer (roles.yaml)',
        'temperature   0.9                          agent wendy (fleet.yaml)',
        'max_tokens    4096                         agent_defaults (strata.yaml)',
        'tools         ["search"]                   agent wendy (fleet.yaml)',
        '',
      ].join('\n'),
    );
  });

  it('--schema prints the JSON Schema', async () => {
    const r = await cli(['config', '--schema']);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(schema).toEqual(agentConfigJsonSchema());
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(schema.properties)).toEqual([
      'model',
      'models',
      'capabilities',
      'expertise',
      'max_tasks',
      'temperature',
      'top_p',
      'max_tokens',
    ]);
    expect(schema.properties.max_tasks).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('hostile input: unknown role, bad name, agent without a role, missing pack, no flags', async () => {
    const unknown = await cli(['config', '--dir', PACK, '--role', 'ghost']);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      'error UNKNOWN_ROLE: unknown role "ghost"; known roles: editor, plain, writer\n',
    ]);
    const bad = await cli(['config', '--dir', PACK, '--role', '../etc']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error BAD_NAME: role "\.\.\/etc"/);
    const stranger = await cli(['config', '--dir', PACK, '--agent', 'stranger']);
    expect([stranger.code, stranger.stderr]).toEqual([
      1,
      'error UNKNOWN_AGENT: agent "stranger" is not in the fleet (fleet: wendy, wes, pat; give a role to get its config for an agent outside the fleet)\n',
    ]);
    // A typo of a fleet member is said as a compose says it, with the closest names.
    const near = await cli(['config', '--dir', join(EXAMPLES, 'roboco'), '--agent', 'adaa']);
    expect([near.code, near.stderr]).toEqual([
      1,
      'error UNKNOWN_AGENT: agent "adaa" is not in the fleet; did you mean "ada"? (fleet: ada, linus, frances, grace, ken, margaret, barbara, edsger; give a role to get its config for an agent outside the fleet)\n',
    ]);
    // With a role, an agent outside the fleet gets the role's config, and is told so.
    const typo = await cli([
      'config',
      '--dir',
      join(EXAMPLES, 'roboco'),
      '--agent',
      'adaa',
      '--role',
      'developer',
    ]);
    expect(typo.code).toBe(0);
    expect(typo.stderr).toMatch(
      /^warning UNKNOWN_AGENT: agent "adaa" is not in the fleet; did you mean "ada"\?/,
    );
    expect((await cli(['config', '--dir', '/nonexistent'])).code).toBe(2);
    const missing = await cli(['config', '--dir', '/nonexistent', '--role', 'x']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error PACK_NOT_FOUND/);
  });
});

describe('agentConfig', () => {
  it('returns diagnostics, never throws, for invalid values, with the level they came from', () => {
    const snapshot = okPack({
      'strata.yaml': 'extends: chorus\nagent_defaults: { temperature: 7 }\n',
      'roles.yaml': 'roles:\n  r: { system_prompt: R, defaults: { max_tasks: -1 } }\n',
      'fleet.yaml': 'agents:\n  - { id: a, role: r, config: { model: 42 } }\n',
    });
    const out = agentConfig(snapshot, { agent: 'a' });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.diagnostics.map((d) => [d.code, d.file, d.line])).toEqual([
      ['BAD_FLEET', 'fleet.yaml', 2],
      ['BAD_ROLE', 'roles.yaml', undefined],
      ['BAD_MANIFEST', 'strata.yaml', undefined],
    ]);
  });

  it('config keys named like Object.prototype members are own keys: never the prototype set, nor a source taken from it', () => {
    const snapshot = okPack({
      'roles.yaml':
        'roles:\n  r:\n    system_prompt: R\n    defaults:\n      __proto__: { model: evil }\n      constructor: { prototype: 1 }\n',
      'fleet.yaml': 'agents:\n  - { id: a, role: r, config: { __proto__: { max_tasks: 9 }, toString: 3 } }\n',
    });
    const out = agentConfig(snapshot, { agent: 'a' });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const { config, sources } = out.result;
    expect(Object.getPrototypeOf(config)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(config))).toEqual(
      JSON.parse('{"__proto__":{"max_tasks":9},"constructor":{"prototype":1},"toString":3}'),
    );
    expect(config.model).toBeUndefined();
    expect(JSON.parse(JSON.stringify(sources))).toEqual(
      JSON.parse(
        '{"__proto__":{"from":"agent","file":"fleet.yaml"},"constructor":{"from":"role","file":"roles.yaml"},"toString":{"from":"agent","file":"fleet.yaml"}}',
      ),
    );
  });

  it('with no registry, any role has just the defaults', () => {
    const snapshot = okPack({ 'base.md': 'B' }, { preset: 'roboco' });
    const out = agentConfig(snapshot, { role: 'anyone' });
    expect(out.ok && out.result).toMatchObject({ role: 'anyone', config: {}, sources: {} });
  });
});

describe('strata config: subagent frontmatter as people leave it', () => {
  const agent = (fm: string) =>
    okPack({ '.claude/agents/a.md': `---\nname: a\ndescription: Does things\n${fm}\n---\nBody.\n` });

  it('model: with no value is no model (the parent’s); tools: with no value is no tools, as Claude Code reads them', () => {
    const out = agentConfig(agent('model:\ntools:'), { role: 'a' });
    expect(out.ok && out.result.config).toEqual({ tools: [] });
    expect(out.ok && agentConfig(agent('model:'), { role: 'a' }).ok).toBe(true);
    const none = agentConfig(agent('model:'), { role: 'a' });
    expect(none.ok && none.result.config).toEqual({});
  });

  it('tools that are neither a string nor a list of strings are BAD_ROLE at the line, not passed on', () => {
    for (const [fm, what] of [
      ['tools: 42', 'the number 42'],
      ['tools: [Read, 42]', 'a list holding the number 42'],
      ['tools: { Read: true }', 'a mapping'],
    ]) {
      const out = agentConfig(agent(fm!), { role: 'a' });
      expect(out.ok ? [] : out.diagnostics.map((d) => [d.code, d.file, d.line, d.col, d.message])).toEqual([
        [
          'BAD_ROLE',
          '.claude/agents/a.md',
          4,
          8,
          `config tools (from role a): tools is ${what}; it takes a list of names or a string of them separated by commas`,
        ],
      ]);
    }
  });
});
