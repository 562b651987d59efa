import { join } from 'node:path';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { loadPack } from '../../src/source/load.js';
import { cli, EXAMPLES, okPack } from '../helpers.js';
import { connected, rpcError } from './helpers.js';

// The tools (compose, explain) for clients that speak only tools, argument completion,
// and logging/setLevel, in-process with the SDK's own client.

const ROBOCO = join(EXAMPLES, 'roboco');
let roboco: Snapshot;
let session: Awaited<ReturnType<typeof connected>>;

beforeAll(async () => {
  roboco = (await loadPack(ROBOCO, { env: {} })).snapshot!;
  session = await connected(SnapshotStore.of(roboco));
});

afterAll(() => session.close());

type ToolResult = {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};
const call = (name: string, args: Record<string, unknown>) =>
  session.client.callTool({ name, arguments: args }) as Promise<ToolResult>;

describe('tools', () => {
  it('lists compose and explain, read-only, explain with an output schema', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['compose', 'explain']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(tools[0]!.outputSchema).toBeUndefined();
    expect(tools[1]!.outputSchema?.required).toContain('layers');
  });

  it.each([
    [{ agent: 'ada' }, ['--agent', 'ada']],
    [
      { role: 'qa', team: 'payments', settings: { fable_mode_enabled: true } },
      ['--role', 'qa', '--team', 'payments', '--set', 'fable_mode_enabled=true'],
    ],
    [{ agent: 'margaret', ambient: 'Ship it.' }, ['--agent', 'margaret', '--ambient', 'Ship it.']],
  ])('compose %j gives the bytes strata compose prints', async (args, argv) => {
    const result = await call('compose', args);
    const composed = await cli(['compose', '--dir', ROBOCO, ...argv]);
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: composed.stdout }]);
    expect(result._meta).toMatchObject({ 'strata/version': roboco.version });
  });

  it('explain gives every layer with its wording as structured content, and the same as JSON text', async () => {
    const result = await call('explain', { agent: 'ada' });
    const explained = result.structuredContent as {
      version: string;
      bytes: number;
      layers: Array<{
        id: string;
        included: boolean;
        explain: { status: string; source: string };
        start?: number;
      }>;
    };
    expect(explained.version).toBe(roboco.version);
    expect(explained.layers.map((l) => l.id)).toEqual(roboco.manifest.layers.map((l) => l.id));
    expect(explained.layers.find((l) => l.id === 'fable')!.explain).toEqual({
      status: 'gated: fable_mode_enabled',
      source: '-',
    });
    expect(explained.layers.find((l) => l.id === 'identity')).toMatchObject({
      included: true,
      explain: { status: 'included', source: 'identities/ada.md' },
    });
    expect(explained).not.toHaveProperty('text');
    expect(JSON.parse(result.content[0]!.text)).toEqual(explained);
    const json = JSON.parse((await cli(['explain', '--dir', ROBOCO, '--agent', 'ada', '--json'])).stdout);
    expect(explained.bytes).toBe(json.bytes);
  });

  it('answers a failed compose as a tool error carrying the code and words', async () => {
    const result = await call('compose', { role: 'devloper' });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(
      /^UNKNOWN_ROLE: unknown role "devloper"; did you mean "developer"\?/,
    );
    expect(result._meta!['strata/error']).toMatchObject({ code: 'UNKNOWN_ROLE', suggestions: ['developer'] });
  });

  it.each([
    [
      { rol: 'qa' },
      /^BAD_REQUEST: unknown argument "rol"; accepted: role, team, agent, ambient, inputs, settings, strict$/,
    ],
    [{ role: 7 }, /^BAD_REQUEST: argument role must be a string$/],
    [{ agent: 'a'.repeat(201) }, /^BAD_REQUEST: argument agent: 201 characters, over the limit of 200$/],
    [
      { role: 'qa', settings: { fable_mode_enabled: ['on'] } },
      /^BAD_REQUEST: argument settings.fable_mode_enabled/,
    ],
    [{ role: 'qa', inputs: 'x=1' }, /^BAD_REQUEST: argument inputs must be an object of values$/],
    [
      { role: 'qa', settings: JSON.parse('{"__proto__": "x"}') },
      /^BAD_REQUEST: argument settings: "__proto__"/,
    ],
    [{ role: 'qa', settings: { unknown_setting: 'x' } }, /^UNKNOWN_SETTING: /],
  ])('refuses %j as the HTTP API would', async (args, message) => {
    const result = await call('compose', args);
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(message);
  });

  it('composes the default role when a call names neither a role nor an agent', async () => {
    const { client, close } = await connected(SnapshotStore.of(roboco), { defaultRole: 'qa' });
    const result = (await client.callTool({ name: 'compose', arguments: {} })) as ToolResult;
    expect(result.content[0]!.text).toBe((await cli(['compose', '--dir', ROBOCO, '--role', 'qa'])).stdout);
    await close();
  });

  it('answers a call whose params do not fit with -32602 BAD_REQUEST naming the misfit', async () => {
    const error = await rpcError(
      session.client.request(
        { method: 'tools/call', params: { name: 'compose', arguments: 'developer' } } as never,
        CallToolResultSchema,
      ),
    );
    expect(error).toEqual({
      code: -32602,
      message: 'BAD_REQUEST: tools/call: params.arguments: Invalid input: expected record, received string',
      data: { code: 'BAD_REQUEST' },
    });
  });

  it('answers an unknown tool with -32602 UNKNOWN_TOOL and the closest names', async () => {
    const error = await rpcError(session.client.callTool({ name: 'composer', arguments: {} }));
    expect(error).toEqual({
      code: -32602,
      message: 'UNKNOWN_TOOL: unknown tool "composer"; did you mean "compose"?; tools: compose, explain',
      data: { code: 'UNKNOWN_TOOL', suggestions: ['compose'] },
    });
    const far = await rpcError(session.client.callTool({ name: 'render', arguments: {} }));
    expect(far).toEqual({
      code: -32602,
      message: 'UNKNOWN_TOOL: unknown tool "render"; tools: compose, explain',
      data: { code: 'UNKNOWN_TOOL' },
    });
  });
});

describe('completion/complete', () => {
  const complete = (
    client: typeof session.client,
    prompt: string,
    name: string,
    value: string,
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }> =>
    client
      .complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name, value } })
      .then((r) => r.completion);

  it('completes team and agent from the pack, by prefix, case-insensitively', async () => {
    expect(await complete(session.client, 'developer', 'team', 'P')).toEqual({
      values: ['payments', 'platform'],
      total: 2,
      hasMore: false,
    });
    expect((await complete(session.client, 'developer', 'agent', '')).values).toEqual(
      roboco.fleet.map((a) => a.id),
    );
    expect((await complete(session.client, 'developer', 'agent', 'gr')).values).toEqual(['grace']);
  });

  it('completes an enumerated or boolean input, and nothing for free text or unknown names', async () => {
    const snapshot = okPack({
      'strata.yaml': [
        'inputs:',
        '  tone: { type: enum, values: [terse, warm, formal], default: warm }',
        '  urgent: { type: boolean, default: false }',
        '  ticket: { type: string }',
        'layers:',
        '  - id: body',
        '    text: "Tone {{tone}}, urgent {{urgent}}, ticket {{ticket}}."',
      ].join('\n'),
    });
    const { client, close } = await connected(SnapshotStore.of(snapshot));
    const [prompt] = (await client.listPrompts()).prompts;
    expect(prompt!.arguments!.map((a) => [a.name, a.required])).toEqual([
      ['tone', false],
      ['urgent', false],
      ['ticket', true],
    ]);
    expect((await complete(client, prompt!.name, 'tone', '')).values).toEqual(['terse', 'warm', 'formal']);
    expect((await complete(client, prompt!.name, 'tone', 'f')).values).toEqual(['formal']);
    expect((await complete(client, prompt!.name, 'urgent', 't')).values).toEqual(['true']);
    expect((await complete(client, prompt!.name, 'ticket', '')).values).toEqual([]);
    expect((await complete(client, 'no-such-prompt', 'tone', '')).values).toEqual([]);
    await close();
  });
});

describe('logging', () => {
  it('answers setLevel with {}, and sends only messages at or above the level set', async () => {
    let base = 'Base one.';
    const store = new SnapshotStore(async () =>
      base === 'broken'
        ? {
            diagnostics: [{ code: 'YAML_SYNTAX', severity: 'error', message: 'broken', file: 'strata.yaml' }],
          }
        : { snapshot: okPack({ 'base.md': base, 'roles/a.md': 'A.' }), diagnostics: [] },
    );
    await store.reload('initial');
    const { client, close } = await connected(store);
    const logs: Array<{ level: string; data: unknown }> = [];
    let changed = 0;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push({ level: n.params.level, data: n.params.data });
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      changed += 1;
    });
    expect(await client.setLoggingLevel('warning')).toEqual({});
    base = 'Base two.';
    await store.reload('manual');
    base = 'broken';
    await store.reload('manual');
    await client.ping(); // every notification sent before the answer has arrived
    expect(changed).toBe(1);
    expect(logs).toEqual([
      {
        level: 'error',
        data: {
          event: 'reload-failed',
          version: store.state!.snapshot.version,
          diagnostics: ['error YAML_SYNTAX: strata.yaml: broken'],
        },
      },
    ]);
    await close();
  });
});
