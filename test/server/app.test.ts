import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerResult } from '../../src/core/compose/compose.js';
import { layerSource, layerStatus } from '../../src/core/compose/explain.js';
import { sha256 } from '../../src/core/text/text.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { checkedApp } from './contract.js';
import { appFor, MINI, MINI_PROMPTS } from './helpers.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  body: typeof body === 'string' ? body : JSON.stringify(body),
  headers: { ...JSON_HEADERS, ...headers },
});

let service: Awaited<ReturnType<typeof appFor>>;
let version: string;

beforeAll(async () => {
  service = await appFor(MINI, { adminToken: 's3cret' });
  version = service.store.state!.snapshot.version;
});
afterAll(() => service.close());

describe('the wording of each layer', () => {
  it("carries explain's status and source for every layer, as `strata explain` words them", async () => {
    const res = await service.app.request('/api/prompts/writer');
    const body = (await res.json()) as {
      layers: Array<LayerResult & { explain: { status: string; source: string } }>;
    };
    expect(body.layers.length).toBeGreaterThan(2);
    for (const layer of body.layers) {
      const {
        explain,
        tokens: _tokens,
        budget: _budget,
        ...plain
      } = layer as typeof layer & {
        tokens?: number;
        budget?: unknown;
      };
      expect(explain, layer.id).toEqual({ status: layerStatus(plain), source: layerSource(plain) });
    }
    const fable = body.layers.find((l) => l.id === 'fable')!;
    expect(fable.explain.status).toBe('gated: fable_mode_enabled');
  });
});

describe('GET /api/prompts/:role', () => {
  it('answers the result with provenance; its ETag is the sha256 of the JSON bytes', async () => {
    const res = await service.app.request('/api/prompts/writer');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const raw = await res.text();
    const body = JSON.parse(raw);
    expect(body.text).toBe(MINI_PROMPTS.writer);
    expect(body.sha256).toBe(sha256(MINI_PROMPTS.writer));
    expect(body.version).toBe(version);
    expect(
      body.layers
        .filter((l: { included: boolean }) => l.included)
        .map((l: { id: string; source: string }) => [l.id, l.source]),
    ).toEqual([
      ['base', 'base.md'],
      ['role', 'roles/writer.md'],
    ]);
    expect(res.headers.get('etag')).toBe(`"${sha256(raw)}"`);
    expect(res.headers.get('x-strata-version')).toBe(version);
  });

  it('answers the bare text with Accept: text/plain; its ETag is the text sha256', async () => {
    const res = await service.app.request('/api/prompts/writer', { headers: { accept: 'text/plain' } });
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe(MINI_PROMPTS.writer);
    expect(res.headers.get('etag')).toBe(`"${sha256(MINI_PROMPTS.writer)}"`);
  });

  it('answers 304 to an If-None-Match naming the ETag of the representation asked for', async () => {
    const textTag = `"${sha256(MINI_PROMPTS.writer)}"`;
    const jsonTag = (await service.app.request('/api/prompts/writer')).headers.get('etag')!;
    expect(jsonTag).not.toBe(textTag);
    for (const [accept, etag, other] of [
      ['text/plain', textTag, jsonTag],
      ['application/json', jsonTag, textTag],
    ] as const) {
      const res = await service.app.request('/api/prompts/writer', {
        headers: { accept, 'if-none-match': `"x", ${etag}` },
      });
      expect(res.status).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(await res.text()).toBe('');
      // The other representation's tag does not validate this one.
      const cross = await service.app.request('/api/prompts/writer', {
        headers: { accept, 'if-none-match': other },
      });
      expect(cross.status).toBe(200);
    }
    const stale = await service.app.request('/api/prompts/writer', {
      headers: { 'if-none-match': '"other"' },
    });
    expect(stale.status).toBe(200);
  });

  it('takes team, agent and set.KEY=VALUE from the query', async () => {
    const res = await service.app.request('/api/prompts/writer?set.fable_mode_enabled=on', {
      headers: { accept: 'text/plain' },
    });
    expect(await res.text()).toBe(MINI_PROMPTS.writerFable);
    const agent = await service.app.request('/api/prompts/writer?team=blue&agent=w1', {
      headers: { accept: 'text/plain' },
    });
    expect(await agent.text()).toBe(MINI_PROMPTS.w1);
  });

  it.each([
    ['/api/prompts/nobody', 404, 'UNKNOWN_ROLE'],
    ['/api/prompts/..writer', 400, 'BAD_NAME'],
    ['/api/prompts/writer?team=a%2Fb', 400, 'BAD_NAME'],
    ['/api/prompts/writer?set.nope=1', 400, 'UNKNOWN_SETTING'],
    ['/api/prompts/writer?set.ponytail_intensity=max', 400, 'INVALID_SETTING'],
    ['/api/prompts/writer?colour=red', 400, 'BAD_REQUEST'],
    ['/api/prompts/writer?team=a&team=b', 400, 'BAD_REQUEST'],
    ['/api/prompts/writer?version=0000000000000000', 404, 'UNKNOWN_VERSION'],
  ])('%s → %i %s', async (path, status, code) => {
    const res = await service.app.request(path);
    expect(res.status).toBe(status);
    expect((await res.json()).error.code).toBe(code);
  });

  it('names the known roles in a 404', async () => {
    const body = await (await service.app.request('/api/prompts/nobody')).json();
    expect(body.error.message).toContain('critic, writer');
  });
});

describe('GET /api/agents/:agent/prompt', () => {
  it("composes a fleet member's prompt from its role and team", async () => {
    const res = await service.app.request('/api/agents/w1/prompt', { headers: { accept: 'text/plain' } });
    expect(await res.text()).toBe(MINI_PROMPTS.w1);
    expect(res.headers.get('etag')).toBe(`"${sha256(MINI_PROMPTS.w1)}"`);
  });

  it('answers 404 UNKNOWN_AGENT for an agent outside the fleet, unless a role is given', async () => {
    const res = await service.app.request('/api/agents/zed/prompt');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('UNKNOWN_AGENT');
    const withRole = await service.app.request('/api/agents/zed/prompt?role=critic', {
      headers: { accept: 'text/plain' },
    });
    expect(await withRole.text()).toBe(MINI_PROMPTS.critic);
  });
});

describe('POST /api/compose', () => {
  it('composes a request body', async () => {
    const res = await service.app.request(
      '/api/compose',
      post({ role: 'writer', settings: { fable_mode_enabled: true } }),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.text).toBe(MINI_PROMPTS.writerFable);
    expect(body.settingSources.fable_mode_enabled).toBe('request');
    expect(res.headers.get('etag')).toBe(`"${sha256(JSON.stringify(body))}"`);
  });

  it('composes with ambient text', async () => {
    const res = await service.app.request(
      '/api/compose',
      post({ agent: 'w1', ambient: '  Now: review.  ' }, { accept: 'text/plain' }),
    );
    expect(await res.text()).toBe(`${MINI_PROMPTS.w1}${'\n\n---\n\n'}Now: review.`);
  });

  it.each([
    ['malformed JSON', post('{"role":'), 400, 'BAD_REQUEST'],
    ['an unknown key', post({ role: 'writer', colour: 'red' }), 400, 'BAD_REQUEST'],
    ['a wrong type', post({ role: 7 }), 400, 'BAD_REQUEST'],
    ['a bad name', post({ agent: 'a b' }), 400, 'BAD_NAME'],
    ['an unknown role', post({ role: 'nobody' }), 404, 'UNKNOWN_ROLE'],
    ['an invalid setting', post({ settings: { fable_mode_enabled: 'perhaps' } }), 400, 'INVALID_SETTING'],
    [
      'a body that is not JSON',
      { method: 'POST', body: 'role=writer', headers: { 'content-type': 'text/plain' } },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['a body over 64 KiB', post({ ambient: 'x'.repeat(64 * 1024) }), 413, 'BODY_TOO_LARGE'],
  ] as const)('refuses %s', async (_what, init, status, code) => {
    const res = await service.app.request('/api/compose', init as RequestInit);
    expect(res.status).toBe(status);
    expect((await res.json()).error.code).toBe(code);
  });

  it('refuses a body over the limit without Content-Length (streamed)', async () => {
    const chunk = new TextEncoder().encode(`{"ambient":"${'x'.repeat(70 * 1024)}"}`);
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await service.fetch(
      new Request('http://x/api/compose', {
        method: 'POST',
        body,
        headers: JSON_HEADERS,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
  });
});

describe('POST /api/teams/compose', () => {
  it('composes every member from one version, in order', async () => {
    const res = await service.app.request(
      '/api/teams/compose',
      post({
        team: 'blue',
        members: [{ agent: 'w1' }, { agent: 'zed', role: 'critic', settings: { fable_mode_enabled: 'on' } }],
      }),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.version).toBe(version);
    expect(
      body.results.map((r: { agent: string; team: string; role: string }) => [r.agent, r.role, r.team]),
    ).toEqual([
      ['w1', 'writer', 'blue'],
      ['zed', 'critic', 'blue'],
    ]);
    expect(body.results[0].text).toBe(MINI_PROMPTS.w1);
    expect(body.results[1].text).toBe(
      ['Base.', 'Fable.', 'Ethos.', 'Critic.', 'Team blue.'].join('\n\n---\n\n'),
    );
  });

  it('fails as a whole, naming the member', async () => {
    const res = await service.app.request(
      '/api/teams/compose',
      post({ members: [{ agent: 'w1' }, { agent: 'x', role: 'nobody' }] }),
    );
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe('UNKNOWN_ROLE');
    expect(body.error.message).toMatch(/^member 1 \(x\): /);
  });

  it('refuses an empty member list', async () => {
    const res = await service.app.request('/api/teams/compose', post({ members: [] }));
    expect(res.status).toBe(400);
  });
});

describe('pack endpoints', () => {
  it('GET /api/roles', async () => {
    const body = await (await service.app.request('/api/roles')).json();
    expect(body).toEqual({
      version,
      roles: [
        { id: 'critic', name: 'Critic', description: 'Finds faults.', tags: ['review'] },
        { id: 'writer' },
      ],
    });
  });

  it('GET /api/fleet', async () => {
    const body = await (await service.app.request('/api/fleet')).json();
    expect(body).toEqual({
      version,
      agents: [
        { id: 'w1', role: 'writer', team: 'blue' },
        { id: 'c1', role: 'critic', team: null },
      ],
    });
  });

  it('GET /api/settings', async () => {
    const body = await (await service.app.request('/api/settings')).json();
    expect(
      body.settings.map((s: { name: string; value: unknown; source: string; env: string }) => [
        s.name,
        s.value,
        s.source,
        s.env,
      ]),
    ).toEqual([
      ['fable_mode_enabled', false, 'default', 'ROBOCO_FABLE_MODE_ENABLED'],
      ['ponytail_intensity', 'full', 'default', 'ROBOCO_PONYTAIL_INTENSITY'],
    ]);
    expect(body.settings[1].values).toEqual(['lite', 'full', 'ultra']);
  });

  it('GET /api/agents/:agent/config', async () => {
    const res = await service.app.request('/api/agents/w1/config');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.config).toEqual({ temperature: 0.5 });
    expect(body.sources.temperature).toEqual({ from: 'agent', file: 'fleet.yaml' });
    expect(body.role).toBe('writer');
  });

  // A parameter given twice was refused by its validator as a bad value: format=openai
  // twice was "Invalid option: expected one of openai|anthropic".
  it.each([
    ['/api/prompts/writer?format=openai&format=openai', 'format'],
    ['/api/agents/w1/prompt?team=a&version=current&team=a', 'team'],
    ['/api/agents/w1/config?role=writer&role=critic', 'role'],
  ])('%s is 400 saying %s is given more than once', async (path, name) => {
    const res = await service.app.request(path);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({
      code: 'BAD_REQUEST',
      message: `query parameter "${name}" is given more than once; give it once`,
    });
  });

  // A typo of a fleet member, given a role, was answered the role's config as if it were
  // the agent's (w1's own temperature missing), with nothing said.
  it('GET /api/agents/:agent/config?role= for an agent outside the fleet warns UNKNOWN_AGENT, naming the closest', async () => {
    const res = await service.app.request('/api/agents/w2/config?role=writer');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-strata-warnings')).toBe('UNKNOWN_AGENT');
    const body = await res.json();
    expect(body.config).toEqual({});
    expect(body.diagnostics).toEqual([
      {
        code: 'UNKNOWN_AGENT',
        severity: 'warning',
        message:
          'agent "w2" is not in the fleet; did you mean "w1"? (fleet: w1, c1); the config is role writer\'s alone, without a fleet entry\'s config',
        suggestions: ['w1'],
      },
    ]);
    const member = await service.app.request('/api/agents/w1/config?role=writer');
    expect(member.headers.get('x-strata-warnings')).toBeNull();
    expect((await member.json()).diagnostics).toBeUndefined();
  });

  it.each([
    ['/api/agents/zed/config', 404, 'UNKNOWN_AGENT'],
    ['/api/agents/w1/config?role=nobody', 404, 'UNKNOWN_ROLE'],
    ['/api/agents/w1/config?role=..x', 400, 'BAD_NAME'],
  ])('%s → %i %s', async (path, status, code) => {
    const res = await service.app.request(path);
    expect(res.status).toBe(status);
    expect((await res.json()).error.code).toBe(code);
  });

  it('GET /api/status', async () => {
    const body = await (await service.app.request('/api/status')).json();
    expect(body).toMatchObject({
      ready: true,
      version,
      previous: null,
      preset: 'roboco',
      lastError: null,
      lastReloadRead: 'full',
      counts: { roles: 2, agents: 2 },
    });
    expect(Date.parse(body.loadedAt)).not.toBeNaN();
  });
});

describe('POST /api/prompts/reload', () => {
  it('answers 403 when no admin token is configured', async () => {
    const other = checkedApp({ store: SnapshotStore.of(service.store.state!.snapshot), heartbeatMs: 0 });
    const res = await other.app.request('/api/prompts/reload', {
      method: 'POST',
      headers: { authorization: 'Bearer s3cret' },
    });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('FORBIDDEN');
    other.close();
  });

  it.each([
    [undefined, 401],
    ['Bearer wrong', 401],
    ['Basic s3cret', 401],
    ['Bearer s3cret', 200],
    ['bearer s3cret', 200],
  ])('authorization %s → %i', async (authorization, status) => {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const res = await service.app.request('/api/prompts/reload', { method: 'POST', headers });
    expect(res.status).toBe(status);
    const body = await res.json();
    if (status === 200)
      expect(body).toEqual({
        outcome: 'unchanged',
        version,
        previous: version,
        changed: { agents: [], roles: [] },
        diagnostics: [],
      });
    else expect(body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('operations', () => {
  it('GET /healthz and /readyz', async () => {
    expect((await service.app.request('/healthz')).status).toBe(200);
    const ready = await service.app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, version });
  });

  it('answers 503 before a snapshot is loaded', async () => {
    const empty = new SnapshotStore(async () => ({ diagnostics: [] }));
    const cold = checkedApp({ store: empty, heartbeatMs: 0 });
    expect((await cold.app.request('/healthz')).status).toBe(200);
    for (const path of ['/readyz', '/api/prompts/writer', '/api/roles', '/api/events']) {
      expect((await cold.app.request(path)).status, path).toBe(503);
    }
    expect((await (await cold.app.request('/api/roles')).json()).error.code).toBe('NOT_READY');
    cold.close();
  });

  it('counts a request no route took as unmatched, whatever its method; the inspector as inspector', async () => {
    const own = await appFor(MINI, {
      assets: async () => new Map([['/', { type: 'text/html; charset=utf-8', body: '<!doctype html>' }]]),
    });
    const asked: Array<[string, string, number]> = [
      ['PATCH', '/api/prompts/writer', 405],
      ['PROPFIND', '/api/roles', 405],
      ['PROPFIND', '/api/nothing', 404],
      ['OPTIONS', '/api/roles', 204],
      ['GET', '/', 200],
    ];
    for (const [method, path, status] of asked)
      expect((await own.app.request(path, { method })).status, `${method} ${path}`).toBe(status);
    const lines = (await (await own.app.request('/metrics')).text())
      .split('\n')
      .filter((l) => l.startsWith('strata_http_requests_total{') && !l.includes('route="/metrics"'));
    expect(lines.sort()).toEqual([
      'strata_http_requests_total{route="inspector",method="GET",status="200"} 1',
      'strata_http_requests_total{route="unmatched",method="OPTIONS",status="204"} 1',
      'strata_http_requests_total{route="unmatched",method="PATCH",status="405"} 1',
      'strata_http_requests_total{route="unmatched",method="PROPFIND",status="404"} 1',
      'strata_http_requests_total{route="unmatched",method="PROPFIND",status="405"} 1',
    ]);
    own.close();
  });

  it('GET /metrics speaks the Prometheus text format', async () => {
    await service.app.request('/api/prompts/writer');
    await service.store.reload('manual');
    const res = await service.app.request('/metrics');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain(
      `strata_pack_info{version="${version}",preset="roboco",service_version="0.1.0"} 1`,
    );
    expect(text).toMatch(
      /strata_http_requests_total\{route="\/api\/prompts\/:role",method="GET",status="200"\} \d+/,
    );
    expect(text).toMatch(/strata_compose_total\{route="\/api\/prompts\/\{role\}",outcome="ok"\} \d+/);
    expect(text).toContain(
      'strata_http_request_duration_seconds_bucket{le="0.001",route="/api/prompts/:role",method="GET"}',
    );
    expect(text).toMatch(/strata_reloads_total\{outcome="unchanged",trigger="manual"\} \d+/);
    expect(text).toMatch(/strata_reload_reads_total\{read="full"\} \d+/);
    expect(text).toContain('strata_reload_error 0');
  });

  it('sets and echoes a request id', async () => {
    const res = await service.app.request('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const fresh = await service.app.request('/healthz');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await service.app.request('/api/nothing');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('NOT_FOUND');
  });

  it('serves the inspector page at /', async () => {
    const res = await service.app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('GET /openapi.json describes every API route from the validating schemas', async () => {
    const doc = await (await service.app.request('/openapi.json')).json();
    expect(doc.openapi).toBe('3.0.3');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/agents/{agent}/config',
      '/api/agents/{agent}/prompt',
      '/api/compose',
      '/api/events',
      '/api/fleet',
      '/api/prompts/reload',
      '/api/prompts/{role}',
      '/api/roles',
      '/api/settings',
      '/api/status',
      '/api/teams/compose',
      '/healthz',
      '/mcp',
      '/metrics',
      '/openapi.json',
      '/readyz',
    ]);
    expect(doc.components.schemas.ComposeRequest.additionalProperties).toBe(false);
    // A POST is never answered 304 (RFC 9110 §13.1.2): its matching If-None-Match is 412.
    expect(Object.keys(doc.paths['/api/compose'].post.responses).sort()).toEqual([
      '200',
      '400',
      '403',
      '404',
      '406',
      '412',
      '413',
      '415',
      '422',
      '500',
      '503',
    ]);
  });
});
