import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { DEFAULT_BOUNDS, DEFAULT_MAX_MESSAGE_BYTES } from '../../src/mcp/limits.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { MAX_BODY_BYTES } from '../../src/server/app.js';
import { MAX_QUERY_AMBIENT } from '../../src/server/schemas/requests.js';
import { loadPack } from '../../src/source/load.js';
import { cli, EXAMPLES, okPack } from '../helpers.js';
import { connected, promptText, rpcError } from './helpers.js';

// The MCP prompt server in-process, driven by the SDK's own client: what prompts/list
// names and describes, prompts/get byte for byte against `strata compose`, and the
// JSON-RPC errors with strata's codes.

const ROBOCO = join(EXAMPLES, 'roboco');
const CREWAI = join(EXAMPLES, 'crewai');
const AGENTS_MD = join(EXAMPLES, 'agents-md');

const packs: Record<string, Snapshot> = {};
const clients: Record<string, Awaited<ReturnType<typeof connected>>> = {};

beforeAll(async () => {
  for (const [name, dir] of [
    ['roboco', ROBOCO],
    ['crewai', CREWAI],
    ['agents-md', AGENTS_MD],
  ] as const) {
    const { snapshot } = await loadPack(dir, { env: {} });
    packs[name] = snapshot!;
    clients[name] = await connected(SnapshotStore.of(snapshot!));
  }
});

afterAll(async () => {
  for (const c of Object.values(clients)) await c.close();
});

describe('prompts/list', () => {
  it('names one prompt per role, then one per fleet agent, each with a description', async () => {
    const { prompts, nextCursor } = await clients.roboco!.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'architect',
      'board-chair',
      'board-finance',
      'board-tech',
      'developer',
      'pm',
      'qa',
      'ada',
      'linus',
      'frances',
      'grace',
      'ken',
      'margaret',
      'barbara',
      'edsger',
    ]);
    expect(nextCursor).toBeUndefined();
    const developer = prompts.find((p) => p.name === 'developer')!;
    expect(developer.title).toBe('Developer');
    expect(developer.description).toBe('Builds and ships features and fixes for one team.');
    expect(prompts.find((p) => p.name === 'ada')!.description).toBe(
      'The system prompt of agent ada (role developer, team platform): Builds and ships features and fixes for one team.',
    );
    expect(prompts.find((p) => p.name === 'barbara')!.description).toMatch(
      /^The system prompt of agent barbara \(role board-chair\): Runs board meetings/,
    );
  });

  it('gives a role team and agent arguments, an agent only what it does not bring, all optional here', async () => {
    const { prompts } = await clients.roboco!.client.listPrompts();
    const shape = (name: string) =>
      prompts.find((p) => p.name === name)!.arguments!.map((a) => [a.name, a.required]);
    expect(shape('developer')).toEqual([
      ['team', false],
      ['agent', false],
      ['ambient', false],
    ]);
    expect(shape('ada')).toEqual([['ambient', false]]);
    expect(prompts.find((p) => p.name === 'developer')!.arguments![0]!.description).toBe(
      'The team (growth, payments, platform)',
    );
  });

  it('marks an input required where the prompt cannot be composed without it', async () => {
    const { prompts } = await clients.crewai!.client.listPrompts();
    expect(
      prompts.map((p) => [p.name, p.arguments!.map((a) => `${a.name}${a.required ? '!' : ''}`)]),
    ).toEqual([
      ['fact_checker', []],
      ['market_analyst', ['quarter!', 'sector!']],
      ['report_writer', ['audience!']],
    ]);
    // A CrewAI record's own words describe it.
    expect(prompts[0]!.description).toBe(
      'Fact Checker: Confirm every figure in the brief against its source.',
    );
  });

  it('serves a pack without roles or agents as one prompt named and described by its manifest', async () => {
    const { prompts } = await clients['agents-md']!.client.listPrompts();
    expect(prompts).toEqual([
      {
        name: 'agents-md',
        description:
          'The AGENTS.md files from the project root to the working directory, within a byte budget.',
        arguments: [
          {
            name: 'cwd',
            description:
              'The working directory, relative to the project root (e.g. backend/api). (string; default ".")',
            required: false,
          },
        ],
      },
    ]);
  });

  it('pages a large list with nextCursor, and refuses a cursor it did not give', async () => {
    const { client, close } = await connected(SnapshotStore.of(packs.roboco!), { pageSize: 4 });
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
      pages.push(page.prompts.map((p) => p.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 3]);
    const all = (await clients.roboco!.client.listPrompts()).prompts.map((p) => p.name);
    expect(pages.flat()).toEqual(all);
    const bad = await rpcError(client.listPrompts({ cursor: 'not-a-cursor' }));
    expect(bad.code).toBe(-32602);
    expect(bad.data.code).toBe('BAD_CURSOR');
    await close();
  });

  it('says a cursor of an older version is stale', async () => {
    let version = 'one';
    const store = new SnapshotStore(async () => ({
      snapshot: okPack({
        'base.md': `Base ${version}.`,
        'roles/a.md': 'A.',
        'roles/b.md': 'B.',
        'roles/c.md': 'C.',
      }),
      diagnostics: [],
    }));
    await store.reload('initial');
    const { client, close } = await connected(store, { pageSize: 2 });
    const first = await client.listPrompts();
    expect(first.nextCursor).toBeDefined();
    version = 'two';
    expect((await store.reload('manual')).outcome).toBe('swapped');
    const stale = await rpcError(client.listPrompts({ cursor: first.nextCursor! }));
    expect(stale).toMatchObject({ code: -32602, data: { code: 'BAD_CURSOR' } });
    expect(stale.message).toMatch(/^BAD_CURSOR: the prompts changed since this cursor/);
    await close();
  });

  it('lists the role as role:<id> when a fleet agent has its id, and gets each', async () => {
    const snapshot = okPack({
      'base.md': 'Base.',
      'roles.yaml': 'roles:\n  qa:\n    description: Checks.\n  developer:\n    description: Builds.\n',
      'roles/qa.md': 'QA role.',
      'roles/developer.md': 'Developer role.',
      'fleet.yaml': 'agents:\n  - id: qa\n    role: developer\n',
      'identities/qa.md': 'I am the agent qa.',
    });
    const { client, close } = await connected(SnapshotStore.of(snapshot));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['developer', 'role:qa', 'qa']);
    expect(prompts[1]!.description).toBe('Checks. (listed as role:qa: the fleet agent qa has the id)');
    expect(promptText(await client.getPrompt({ name: 'qa' }))).toBe(
      'Base.\n\n---\n\nDeveloper role.\n\n---\n\nI am the agent qa.',
    );
    expect(promptText(await client.getPrompt({ name: 'role:qa' }))).toBe('Base.\n\n---\n\nQA role.');
    // Either kind may always be named explicitly.
    expect(promptText(await client.getPrompt({ name: 'agent:qa' }))).toBe(
      promptText(await client.getPrompt({ name: 'qa' })),
    );
    await close();
  });
});

describe('prompts/get', () => {
  it.each([
    ['roboco', 'ada', {}, ['--dir', ROBOCO, '--agent', 'ada']],
    ['roboco', 'ada', { ambient: 'Ship it.' }, ['--dir', ROBOCO, '--agent', 'ada', '--ambient', 'Ship it.']],
    [
      'roboco',
      'developer',
      { team: 'payments' },
      ['--dir', ROBOCO, '--role', 'developer', '--team', 'payments'],
    ],
    ['roboco', 'qa', { agent: 'grace' }, ['--dir', ROBOCO, '--role', 'qa', '--agent', 'grace']],
    ['roboco', 'board-tech', {}, ['--dir', ROBOCO, '--role', 'board-tech']],
    [
      'crewai',
      'market_analyst',
      { sector: 'AI agents', quarter: 'Q3 2026' },
      ['--dir', CREWAI, '--role', 'market_analyst', '--var', 'sector=AI agents', '--var', 'quarter=Q3 2026'],
    ],
    [
      'agents-md',
      'agents-md',
      { cwd: 'backend/api/handlers' },
      ['--dir', AGENTS_MD, '--var', 'cwd=backend/api/handlers'],
    ],
    [
      'agents-md',
      'agents-md',
      { 'var.cwd': 'frontend/app' },
      ['--dir', AGENTS_MD, '--var', 'cwd=frontend/app'],
    ],
  ] as const)('%s %s %j is byte-identical to strata compose', async (pack, name, args, argv) => {
    const result = await clients[pack]!.client.getPrompt({ name, arguments: { ...args } });
    const composed = await cli(['compose', ...argv]);
    expect(composed.code).toBe(0);
    const text = promptText(result);
    expect(text).toBe(composed.stdout);
    expect(result._meta).toMatchObject({
      'strata/version': packs[pack]!.version,
      'strata/sha256': createHash('sha256').update(text).digest('hex'),
    });
  });

  it("composes with the operator's --set settings, as strata compose --set does", async () => {
    const { snapshot } = await loadPack(ROBOCO, { env: {}, settings: { fable_mode_enabled: 'on' } });
    const { client, close } = await connected(SnapshotStore.of(snapshot!));
    const composed = await cli([
      'compose',
      '--dir',
      ROBOCO,
      '--agent',
      'ada',
      '--set',
      'fable_mode_enabled=on',
    ]);
    expect(promptText(await client.getPrompt({ name: 'ada' }))).toBe(composed.stdout);
    expect(composed.stdout).toContain('Fable');
    await close();
  });

  it('takes a blank argument as an absent one', async () => {
    const blank = await clients.roboco!.client.getPrompt({
      name: 'developer',
      arguments: { team: '', ambient: '' },
    });
    expect(promptText(blank)).toBe(promptText(await clients.roboco!.client.getPrompt({ name: 'developer' })));
  });

  it('answers an unknown name with -32602 UNKNOWN_PROMPT and the closest names', async () => {
    const error = await rpcError(clients.roboco!.client.getPrompt({ name: 'devloper' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ code: 'UNKNOWN_PROMPT', suggestions: ['developer'] });
    expect(error.message).toMatch(
      /^UNKNOWN_PROMPT: unknown prompt "devloper"; did you mean "developer"\?; known prompts: /,
    );
  });

  it.each([
    [
      'prompts/get',
      { name: 'developer', arguments: { team: 5 } },
      'params.arguments.team: Invalid input: expected string, received number',
    ],
    ['prompts/get', {}, 'params.name: Invalid input: expected string, received undefined'],
    ['prompts/list', { cursor: 5 }, 'params.cursor: Invalid input: expected string, received number'],
    [
      'logging/setLevel',
      { level: 'loud' },
      'params.level: Invalid option: expected one of "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"',
    ],
    [
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'developer' } },
      'params.argument: Invalid input: expected object, received undefined',
    ],
    [
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: [], clientInfo: { name: 'x', version: '1' } },
      'params.capabilities: Invalid input: expected object, received array',
    ],
  ])(
    'answers %s with params that do not fit it with -32602 BAD_REQUEST naming the misfit',
    async (method, params, misfit) => {
      const error = await rpcError(
        clients.roboco!.client.request({ method, params } as never, EmptyResultSchema.loose()),
      );
      expect(error).toEqual({
        code: -32602,
        message: `BAD_REQUEST: ${method}: ${misfit}`,
        data: { code: 'BAD_REQUEST' },
      });
    },
  );

  it('answers a missing required input with -32602 MISSING_INPUT naming it', async () => {
    const error = await rpcError(clients.crewai!.client.getPrompt({ name: 'report_writer' }));
    expect(error.code).toBe(-32602);
    expect(error.data.code).toBe('MISSING_INPUT');
    expect(error.message).toMatch(/^MISSING_INPUT: input audience has no value/);
    expect(error.data.diagnostics?.[0]).toMatchObject({ code: 'MISSING_INPUT', file: 'config/agents.yaml' });
  });

  it('answers an unknown input with UNKNOWN_INPUT and the closest names', async () => {
    const error = await rpcError(
      clients['agents-md']!.client.getPrompt({ name: 'agents-md', arguments: { cwdd: 'x' } }),
    );
    expect(error).toMatchObject({ code: -32602, data: { code: 'UNKNOWN_INPUT', suggestions: ['cwd'] } });
  });

  it("refuses a name the prompt fixes (an agent prompt's agent, a role prompt's role), saying which prompt to ask for", async () => {
    const agent = await rpcError(
      clients.roboco!.client.getPrompt({ name: 'ada', arguments: { agent: 'grace' } }),
    );
    expect([agent.code, agent.data.code, agent.message]).toEqual([
      -32602,
      'BAD_REQUEST',
      "BAD_REQUEST: argument agent: the prompt ada is agent ada's: ask for the prompt of the agent meant (prompts/list), or give var.agent for a request input of that name",
    ]);
    const role = await rpcError(
      clients.roboco!.client.getPrompt({ name: 'developer', arguments: { role: 'reviewer' } }),
    );
    expect(role.message).toBe(
      "BAD_REQUEST: argument role: the prompt developer is role developer's: ask for the prompt of the role meant (prompts/list), or give var.role for a request input of that name",
    );
    const pack = await rpcError(
      clients['agents-md']!.client.getPrompt({ name: 'agents-md', arguments: { team: 'ops' } }),
    );
    expect(pack.message).toBe(
      "BAD_REQUEST: argument team: the pack's prompt agents-md takes no team, or give var.team for a request input of that name",
    );
  });

  it('refuses an input given twice, as itself and as var.<name>', async () => {
    const error = await rpcError(
      clients['agents-md']!.client.getPrompt({ name: 'agents-md', arguments: { cwd: 'a', 'var.cwd': 'b' } }),
    );
    expect(error).toMatchObject({ code: -32602, data: { code: 'BAD_REQUEST' } });
  });

  it("keeps an unknown team's warning in _meta, and strict mode makes it the error", async () => {
    const warned = await clients.roboco!.client.getPrompt({
      name: 'developer',
      arguments: { team: 'paymnts' },
    });
    expect((warned._meta!['strata/diagnostics'] as Array<{ code: string }>).map((d) => d.code)).toContain(
      'UNKNOWN_TEAM',
    );
    const { client, close } = await connected(SnapshotStore.of(packs.roboco!), { strict: true });
    const error = await rpcError(client.getPrompt({ name: 'developer', arguments: { team: 'paymnts' } }));
    expect(error).toMatchObject({ code: -32602, data: { code: 'UNKNOWN_TEAM', suggestions: ['payments'] } });
    await close();
  });

  it('bounds names and ambient text as the HTTP API does', async () => {
    const long = await rpcError(
      clients.roboco!.client.getPrompt({ name: 'developer', arguments: { team: 'x'.repeat(201) } }),
    );
    expect(long).toMatchObject({ code: -32602, data: { code: 'BAD_REQUEST' } });
    expect(long.message).toBe('BAD_REQUEST: argument team: 201 characters, over the limit of 200');
    const { client, close } = await connected(SnapshotStore.of(packs.roboco!), {
      bounds: { maxAmbientChars: 8 },
    });
    const ambient = await rpcError(client.getPrompt({ name: 'ada', arguments: { ambient: 'nine char' } }));
    expect(ambient.message).toBe(
      'BAD_REQUEST: argument ambient: 9 characters, over the limit of 8 (--max-query-ambient)',
    );
    expect(promptText(await client.getPrompt({ name: 'ada', arguments: { ambient: 'eight ch' } }))).toMatch(
      /eight ch$/,
    );
    await close();
  });

  it('bounds a prompt name as the HTTP API bounds names, before looking for the closest names', async () => {
    const { client } = clients.roboco!;
    const long = await rpcError(client.getPrompt({ name: `developer${'x'.repeat(192)}` }));
    expect(long).toEqual({
      code: -32602,
      message: 'BAD_REQUEST: prompt name: 201 characters, over the limit of 200',
      data: { code: 'BAD_REQUEST' },
    });
    const unknown = await rpcError(client.getPrompt({ name: `developer${'x'.repeat(191)}` }));
    expect(unknown.data).toEqual({ code: 'UNKNOWN_PROMPT', suggestions: ['developer'] });
    const ref = { type: 'ref/prompt' as const, name: `developer${'x'.repeat(192)}` };
    expect(await client.complete({ ref, argument: { name: 'team', value: '' } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it("takes its default bounds from the HTTP API's", () => {
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(MAX_BODY_BYTES);
    expect(DEFAULT_BOUNDS.maxAmbientChars).toBe(MAX_QUERY_AMBIENT);
  });

  it('says NOT_READY before any version is loaded', async () => {
    const { client, close } = await connected(new SnapshotStore(async () => ({ diagnostics: [] })));
    const error = await rpcError(client.listPrompts());
    expect(error).toMatchObject({ code: -32603, data: { code: 'NOT_READY' } });
    await close();
  });
});
