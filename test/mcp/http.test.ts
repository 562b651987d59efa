import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { createApp, type StrataApp } from '../../src/server/app.js';
import { type RunningService, type ServiceOptions, startService } from '../../src/server/node/start.js';
import { createLogger } from '../../src/server/service/logging.js';
import { checked, checkedFetch } from '../server/contract.js';
import { copyFixture, MINI, MINI_PROMPTS, memoryStore, waitFor } from '../server/helpers.js';
import { promptText, rpcError } from './helpers.js';

// /mcp on a running `strata serve` (a real socket), driven by the SDK's Streamable HTTP
// client; every answer it receives is checked against the service's OpenAPI document.

let pack: Awaited<ReturnType<typeof copyFixture>>;
let service: RunningService;
let logs: string[];
const clients: Client[] = [];

async function start(options: Partial<ServiceOptions> = {}): Promise<RunningService> {
  logs = [];
  const started = await startService({
    dir: pack.dir,
    env: {},
    port: 0,
    debounceMs: 20,
    pollMs: 0,
    logger: createLogger({ level: 'warn', write: (line) => logs.push(line) }),
    ...options,
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  return started.service;
}

async function connect(
  target: RunningService = service,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${target.url}/mcp`), {
    fetch: checkedFetch(target.app),
  });
  const client = new Client({ name: 'strata-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

beforeAll(async () => {
  pack = await copyFixture();
  service = await start();
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

afterAll(async () => {
  await service?.close();
  await pack?.cleanup();
});

/** A raw POST to /mcp (JSON body, the Accept the transport asks for). */
function post(body: string, headers: Record<string, string> = {}, target = service): Promise<Response> {
  return checkedFetch(target.app)(`${target.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('/mcp', () => {
  it('lists and gets the same prompts, byte for byte, as the HTTP API answers', async () => {
    const { client } = await connect();
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['critic', 'writer', 'w1', 'c1']);
    const viaApi = await fetch(`${service.url}/api/agents/w1/prompt`, { headers: { accept: 'text/plain' } });
    const got = await client.getPrompt({ name: 'w1' });
    expect(promptText(got)).toBe(await viaApi.text());
    expect(got._meta!['strata/version']).toBe(viaApi.headers.get('x-strata-version'));
    const team = await client.getPrompt({ name: 'writer', arguments: { team: 'blue' } });
    const teamApi = await fetch(`${service.url}/api/prompts/writer?team=blue`, {
      headers: { accept: 'text/plain' },
    });
    expect(promptText(team)).toBe(await teamApi.text());
  });

  it('tells every session list_changed when an edit of the pack is served', async () => {
    const streams = await getStreams();
    const first = await connect();
    const second = await connect();
    const changed = [0, 0];
    first.client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      changed[0]! += 1;
    });
    second.client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      changed[1]! += 1;
    });
    expect(promptText(await first.client.getPrompt({ name: 'critic' }))).toBe(MINI_PROMPTS.critic);
    // Each session's stream of server messages is open before the edit.
    await waitFor(
      async () => ((await getStreams()) >= streams + 2 ? true : undefined),
      30_000,
      'the GET streams',
    );
    await writeFile(join(pack.dir, 'roles', 'critic.md'), 'Critic, edited.\n');
    await waitFor(() => (changed[0]! > 0 && changed[1]! > 0 ? true : undefined), 30_000, 'list_changed');
    expect(promptText(await second.client.getPrompt({ name: 'critic' }))).toBe(
      'Base.\n\n---\n\nCritic, edited.',
    );
  });

  it('refuses a foreign Origin with 403 ORIGIN_NOT_ALLOWED on every method, and a foreign Host', async () => {
    const foreign = await post(INITIALIZE, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe('ORIGIN_NOT_ALLOWED');
    const stream = await checkedFetch(service.app)(`${service.url}/mcp`, {
      headers: { accept: 'text/event-stream', origin: 'http://evil.example' },
    });
    expect(stream.status).toBe(403);
    expect((await stream.json()).error.code).toBe('ORIGIN_NOT_ALLOWED');
    const host = await rawPost(service, INITIALIZE, { host: 'evil.example' });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body).error.code).toBe('HOST_NOT_ALLOWED');
    // The service's own origin (a page it serves) is welcome.
    const own = await post(INITIALIZE, { origin: service.url });
    expect(own.status).toBe(200);
    expect(own.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers messages outside a session, unreadable bodies and oversized ones with coded errors', async () => {
    const noSession = await post('{"jsonrpc":"2.0","id":1,"method":"prompts/list"}');
    expect(noSession.status).toBe(400);
    expect((await noSession.json()).error.code).toBe(-32600);
    const unknown = await post('{"jsonrpc":"2.0","id":1,"method":"prompts/list"}', {
      'mcp-session-id': 'no-such-session',
    });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe(-32001);
    const bad = await post('{"jsonrpc":');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe(-32700);
    const big = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(70_000) } }),
    );
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('BODY_TOO_LARGE');
    const get = await checkedFetch(service.app)(`${service.url}/mcp`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(get.status).toBe(400);
  });

  it('answers HEAD with 405 and the Allow that OPTIONS gives, which lists no HEAD, with a session or without', async () => {
    const request = checkedFetch(service.app);
    const options = await request(`${service.url}/mcp`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
    const sessionId = (await post(INITIALIZE)).headers.get('mcp-session-id')!;
    const sessions: Array<Record<string, string>> = [
      {},
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    ];
    for (const headers of sessions) {
      const head = await request(`${service.url}/mcp`, {
        method: 'HEAD',
        headers: { accept: 'text/event-stream', ...headers },
      });
      expect([head.status, head.headers.get('allow'), await head.text()]).toEqual([
        405,
        'GET, POST, DELETE, OPTIONS',
        '',
      ]);
    }
    const ended = await request(`${service.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(ended.status).toBe(200);
  });

  it('answers a body that is not JSON-RPC with -32600, as stdio does, and a misfit initialize with -32602', async () => {
    const sessionId = (await post(INITIALIZE)).headers.get('mcp-session-id')!;
    const inSession = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const refused = async (body: unknown, headers: Record<string, string> = inSession) => {
      const answer = await post(JSON.stringify(body), headers);
      return { status: answer.status, body: await answer.json() };
    };
    const invalid = (
      id: string | number | null,
      message = 'Invalid Request: not a JSON-RPC 2.0 message',
    ) => ({
      status: 400,
      body: { jsonrpc: '2.0', id, error: { code: -32600, message } },
    });
    expect(await refused({ id: 4, method: 'ping' })).toEqual(invalid(4));
    expect(await refused({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' })).toEqual(invalid(null));
    expect(await refused('ping')).toEqual(invalid(null));
    expect(await refused([{ jsonrpc: '2.0', id: 2, method: 'ping' }, 5])).toEqual(invalid(null));
    expect(await refused([])).toEqual(invalid(null, 'Invalid Request: an empty batch'));
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    expect(await refused(Array.from({ length: 101 }, (_, i) => ping(i)))).toEqual(
      invalid(null, 'Invalid Request: Batch must not exceed 100 messages'),
    );
    const misfit = JSON.parse(INITIALIZE);
    misfit.params.capabilities = { experimental: { x: 1 } };
    expect(await refused(misfit, {})).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: 'BAD_REQUEST: initialize: params.capabilities.experimental.x: Invalid input',
          data: { code: 'BAD_REQUEST' },
        },
      },
    });
    // The session is whole.
    const pong = await post('{"jsonrpc":"2.0","id":7,"method":"ping"}', inSession);
    expect(await pong.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('counts its composes in the service metrics, and ends a session on DELETE', async () => {
    const { client, transport } = await connect();
    await client.getPrompt({ name: 'c1' });
    await rpcError(client.getPrompt({ name: 'c2' }));
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/strata_compose_total\{route="mcp prompts\/get",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/strata_mcp_sessions [1-9]/);
    const before = gauge(metrics, 'strata_mcp_sessions');
    await transport.terminateSession();
    const after = gauge(await (await fetch(`${service.url}/metrics`)).text(), 'strata_mcp_sessions');
    expect(after).toBe(before - 1);
  });
});

describe('/mcp in-process (the app without a socket)', () => {
  let strata: StrataApp;
  let appLogs: string[];
  const appFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> =>
    strata.fetch(url instanceof Request ? url : new Request(url, init));
  const appClient = async () => {
    const client = new Client({ name: 'strata-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://prompts.internal/mcp'), { fetch: appFetch }),
    );
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const store = new SnapshotStore(stablePackLoader({ dir: MINI, env: {} }));
    await store.reload('initial');
    appLogs = [];
    // Any Host (createApp's default without a socket), two sessions at most.
    strata = checked(
      createApp({
        store,
        mcp: { maxSessions: 2 },
        logger: createLogger({ level: 'warn', write: (line) => appLogs.push(line) }),
      }),
    );
  });

  afterAll(() => strata.close());

  it('refuses a foreign Origin even when any Host is accepted', async () => {
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: INITIALIZE,
    };
    const foreign = await appFetch('http://prompts.internal/mcp', {
      ...init,
      headers: { ...init.headers, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const own = await appFetch('http://prompts.internal/mcp', {
      ...init,
      headers: { ...init.headers, origin: 'http://prompts.internal' },
    });
    expect(own.status).toBe(200);
    await appFetch('http://prompts.internal/mcp', {
      method: 'DELETE',
      headers: { 'mcp-session-id': own.headers.get('mcp-session-id')! },
    });
  });

  it('closes the session unused the longest past --max-mcp-sessions, saying so', async () => {
    const a = await appClient();
    const b = await appClient();
    await a.ping();
    await b.ping();
    const c = await appClient();
    await c.ping();
    // a was unused the longest: its session is gone, b and c are whole.
    await expect(a.ping()).rejects.toThrow(/404|Session not found/);
    expect(await b.ping()).toEqual({});
    const metrics = await (await appFetch('http://prompts.internal/metrics')).text();
    expect(gauge(metrics, 'strata_mcp_sessions_evicted_total')).toBe(1);
    expect(gauge(metrics, 'strata_mcp_sessions')).toBe(2);
    const warning = appLogs.map((l) => JSON.parse(l)).find((l) => l.code === 'MCP_SESSION_EVICTED');
    expect(warning).toMatchObject({ level: 40, maxSessions: 2 });
  });
});

describe('/mcp and a list_changed sent while no stream was open', () => {
  it('is told once its stream opens, when a version it has not listed is served', async () => {
    const pack = memoryStore({ 'base.md': 'Base one.', 'roles/a.md': 'A.' });
    await pack.store.reload('initial');
    const strata = checked(createApp({ store: pack.store }));
    const rpc = async (body: unknown, session?: string) =>
      strata.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            ...(session && { 'mcp-session-id': session }),
          },
          body: JSON.stringify(body),
        }),
      );
    const init = await rpc(JSON.parse(INITIALIZE));
    const session = init.headers.get('mcp-session-id')!;
    expect((await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    // A new version is served while the session has no stream: its list_changed is lost.
    pack.set('base.md', 'Base two.');
    expect((await pack.store.reload('manual')).outcome).toBe('swapped');
    const stream = await strata.fetch(
      new Request('http://127.0.0.1/mcp', {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
      }),
    );
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"method":"notifications/prompts/list_changed"');
    await reader.cancel();
    strata.close();
  });
});

describe('/mcp and a second stream of one session', () => {
  it('is answered 409, as its document says', async () => {
    const pack = memoryStore({ 'base.md': 'Base.', 'roles/a.md': 'A.' });
    await pack.store.reload('initial');
    const strata = checked(createApp({ store: pack.store }));
    const init = await strata.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: INITIALIZE,
      }),
    );
    const open = () =>
      strata.fetch(
        new Request('http://127.0.0.1/mcp', {
          headers: {
            accept: 'text/event-stream',
            'mcp-session-id': init.headers.get('mcp-session-id')!,
            'mcp-protocol-version': '2025-11-25',
          },
        }),
      );
    const first = await open();
    expect(first.status).toBe(200);
    const second = await open();
    expect(second.status).toBe(409);
    expect((await second.json()).error.message).toBe('Conflict: Only one SSE stream is allowed per session');
    await first.body!.cancel();
    strata.close();
  });
});

/** A POST with headers fetch will not send (Host), over node:http. */
function rawPost(
  target: RunningService,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${target.url}/mcp`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function gauge(metrics: string, name: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

/** GET /mcp streams opened so far (counted when their answer begins). */
async function getStreams(): Promise<number> {
  const metrics = await (await fetch(`${service.url}/metrics`)).text();
  const line = metrics
    .split('\n')
    .find((l) => l.startsWith('strata_http_requests_total{route="/mcp",method="GET",status="200"}'));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}
