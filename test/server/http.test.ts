import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/text/text.js';
import { createApp } from '../../src/server/app.js';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { checkedApp, checkedFetch } from './contract.js';
import { appFor, MINI, MINI_PROMPTS, memoryStore, ROOT } from './helpers.js';

/** HTTP semantics: an ETag per representation, methods (405, OPTIONS, HEAD) and CORS. */

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer }\n',
};

describe('ETags per representation', () => {
  it('answers a JSON If-None-Match with 200 once the pack version changed, the text one with 304', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload('initial');
    const { app } = checkedApp({ store: mem.store, heartbeatMs: 0 });
    const json1 = await app.request('/api/prompts/writer');
    const jsonTag = json1.headers.get('etag')!;
    const v1 = (await json1.json()).version;
    const textTag = (
      await app.request('/api/prompts/writer', { headers: { accept: 'text/plain' } })
    ).headers.get('etag')!;
    expect(textTag).toBe(`"${sha256('Base.\n\n---\n\nWriter.')}"`);

    mem.set('roles/critic.md', 'Critic, sharper.'); // the writer's text does not change
    const swapped = await mem.store.reload('manual');
    expect(swapped.version).not.toBe(v1);

    const json2 = await app.request('/api/prompts/writer', { headers: { 'if-none-match': jsonTag } });
    expect(json2.status).toBe(200);
    expect((await json2.json()).version).toBe(swapped.version);
    expect(json2.headers.get('etag')).not.toBe(jsonTag);
    const text2 = await app.request('/api/prompts/writer', {
      headers: { accept: 'text/plain', 'if-none-match': textTag },
    });
    expect(text2.status).toBe(304);
    expect(text2.headers.get('x-strata-version')).toBe(swapped.version);
  });

  it('gives ?format= answers their own ETag and revalidates them', async () => {
    const service = await appFor(MINI);
    const tags = new Set<string>();
    for (const format of ['openai', 'anthropic']) {
      const path = `/api/prompts/writer?format=${format}`;
      const res = await service.app.request(path);
      expect(res.status).toBe(200);
      const body = await res.text();
      const etag = res.headers.get('etag')!;
      expect(etag).toBe(`"${sha256(body)}"`);
      tags.add(etag);
      const again = await service.app.request(path, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      const post = await service.app.request('/api/compose', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'if-none-match': etag },
        body: JSON.stringify({ role: 'writer', format }),
      });
      expect(post.status).toBe(412);
      expect(post.headers.get('etag')).toBe(etag);
    }
    tags.add((await service.app.request('/api/prompts/writer')).headers.get('etag')!);
    expect(tags.size).toBe(3);
    service.close();
  });
});

describe('preconditions (RFC 9110 §13.1, §13.2.2)', () => {
  let service: Awaited<ReturnType<typeof appFor>>;
  beforeAll(async () => {
    service = await appFor(MINI);
  });
  afterAll(() => service.close());

  const post = (headers: Record<string, string>, accept = 'application/json') =>
    service.app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, ...headers },
      body: JSON.stringify({ role: 'writer' }),
    });

  it('answers a POST /api/compose whose If-None-Match names its ETag (or *) 412 PRECONDITION_FAILED, not 304', async () => {
    const first = await post({});
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await post({ 'if-none-match': tag });
      expect(res.status, tag).toBe(412);
      expect(res.headers.get('etag')).toBe(etag);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('PRECONDITION_FAILED');
      expect(body.error.message).toContain('RFC 9110');
    }
    expect((await post({ 'if-none-match': '"other"' })).status).toBe(200);
    // The text's ETag is another representation's: its own If-None-Match is 412 too.
    const text = await post({}, 'text/plain');
    const textTag = text.headers.get('etag')!;
    expect((await post({ 'if-none-match': textTag }, 'text/plain')).status).toBe(412);
    expect((await post({ 'if-none-match': textTag })).status).toBe(200);
  });

  it('answers an If-Match naming neither * nor the ETag 412, on GET and POST; a weak tag never matches', async () => {
    const get = (headers: Record<string, string>) => service.app.request('/api/prompts/writer', { headers });
    const etag = (await get({})).headers.get('etag')!;
    for (const [headers, status] of [
      [{ 'if-match': etag }, 200],
      [{ 'if-match': `"other", ${etag}` }, 200],
      [{ 'if-match': '*' }, 200],
      [{ 'if-match': '"other"' }, 412],
      [{ 'if-match': `W/${etag}` }, 412],
      // If-Match is evaluated first: a failed one is 412 whatever If-None-Match says.
      [{ 'if-match': '"other"', 'if-none-match': etag }, 412],
      [{ 'if-match': etag, 'if-none-match': etag }, 304],
    ] as const) {
      const res = await get(headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      if (status === 412)
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PRECONDITION_FAILED');
    }
    const posted = (await post({})).headers.get('etag')!;
    expect((await post({ 'if-match': posted })).status).toBe(200);
    expect((await post({ 'if-match': '"other"' })).status).toBe(412);
    // An error answer is not subject to preconditions: an unknown role is 404 still.
    const unknown = await service.app.request('/api/prompts/nosuch', { headers: { 'if-match': '"other"' } });
    expect(unknown.status).toBe(404);
  });
});

describe('methods', () => {
  let service: Awaited<ReturnType<typeof appFor>>;
  beforeAll(async () => {
    service = await appFor(MINI);
  });
  afterAll(() => service.close());

  it.each([
    ['POST', '/api/prompts/writer', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/api/agents/w1/prompt', 'GET, HEAD, OPTIONS'],
    ['GET', '/api/compose', 'POST, OPTIONS'],
    ['PUT', '/api/prompts/reload', 'GET, HEAD, POST, OPTIONS'], // also the role "reload"
    ['PUT', '/api/teams/compose', 'POST, OPTIONS'],
    ['POST', '/healthz', 'GET, HEAD, OPTIONS'],
    ['POST', '/openapi.json', 'GET, HEAD, OPTIONS'],
    ['POST', '/', 'GET, HEAD, OPTIONS'],
  ])('%s %s → 405 with Allow: %s', async (method, path, allow) => {
    const res = await service.app.request(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect((await res.json()).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers 404 on unknown paths, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'OPTIONS']) {
      const res = await service.app.request('/api/nope', { method });
      expect(res.status).toBe(404);
    }
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const res = await service.app.request('/api/prompts/writer', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers HEAD with the headers of GET, Content-Length included, and no body', async () => {
    for (const [path, headers] of [
      ['/api/prompts/writer', { accept: 'text/plain' }],
      ['/api/prompts/writer', {}],
      ['/api/roles', {}],
      ['/openapi.json', {}],
      ['/', {}],
    ] as const) {
      const get = await service.app.request(path, { headers });
      const bytes = (await get.arrayBuffer()).byteLength;
      const head = await service.app.request(path, { method: 'HEAD', headers });
      expect(head.status, path).toBe(200);
      expect(head.headers.get('content-length'), path).toBe(String(bytes));
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(head.headers.get('etag'), path).toBe(get.headers.get('etag'));
      expect((await head.arrayBuffer()).byteLength, path).toBe(0);
    }
    // An error too: a HEAD answered "no route for HEAD /nope" was a byte longer than its GET.
    for (const [path, status] of [
      ['/nope', 404],
      ['/api/nope', 404],
      ['/api/compose', 405],
      ['/api/prompts/nobody', 404],
    ] as const) {
      const get = await service.app.request(path);
      const bytes = (await get.arrayBuffer()).byteLength;
      const head = await service.app.request(path, { method: 'HEAD' });
      expect([head.status, get.status], path).toEqual([status, status]);
      expect(head.headers.get('content-length'), path).toBe(String(bytes));
      expect(head.headers.get('allow'), path).toBe(get.headers.get('allow'));
    }
    const events = await service.app.request('/api/events', { method: 'HEAD' });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    expect(service.events.size).toBe(0);
  });
});

describe('CORS', () => {
  it('is off by default', async () => {
    const service = await appFor(MINI);
    const res = await service.app.request('/api/roles', { headers: { origin: 'https://ui.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBeNull();
    const preflight = await service.app.request('/api/compose', {
      method: 'OPTIONS',
      headers: { origin: 'https://ui.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    service.close();
  });

  it('exposes every header of its own a script reads, X-Strata-Warnings included', async () => {
    const service = await appFor(MINI, { cors: ['https://ui.example'] });
    // An agent outside the fleet, given a role: composed, with an UNKNOWN_AGENT warning.
    const res = await service.app.request('/api/agents/zed/prompt?role=writer', {
      headers: { origin: 'https://ui.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-strata-warnings')).toBe('UNKNOWN_AGENT');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    const names: string[] = [];
    res.headers.forEach((_, name) => {
      names.push(name);
    });
    const own = names.filter(
      (name) => name === 'etag' || name.startsWith('x-strata-') || name === 'x-request-id',
    );
    expect(own.length).toBeGreaterThanOrEqual(4);
    for (const name of own) expect(exposed, name).toContain(name);
    // Nothing is exposed that the service never sends.
    expect(exposed).not.toContain('warning');
  });

  it('allows the configured origins only, and answers their preflights', async () => {
    const service = await appFor(MINI, { cors: ['https://ui.example', 'http://localhost:5173'] });
    const ok = await service.app.request('/api/prompts/writer', {
      headers: { origin: 'https://ui.example' },
    });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://ui.example');
    expect(ok.headers.get('access-control-expose-headers')).toContain('ETag');
    expect(ok.headers.get('vary')).toBe('Accept, Origin');
    const other = await service.app.request('/api/roles', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('vary')).toBe('Origin');

    const preflight = await service.app.request('/api/compose', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Content-Type, X-Unknown',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');

    const wrongMethod = await service.app.request('/api/compose', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'DELETE' },
    });
    expect(wrongMethod.headers.get('access-control-allow-origin')).toBeNull();
    const wrongOrigin = await service.app.request('/api/compose', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(wrongOrigin.headers.get('access-control-allow-origin')).toBeNull();
    service.close();
  });

  it('refuses a malformed origin', async () => {
    const mem = memoryStore(PACK);
    for (const origin of ['ui.example', 'https://ui.example/', 'https://ui.example/path', 'ftp://x']) {
      expect(() => createApp({ store: mem.store, cors: [origin] }), origin).toThrow(/is not an origin/);
    }
  });

  it.each([
    ['https://app.example.com', true],
    ['https://PR-12.example.com', true],
    ['https://xn--bcher-kva.example.com', true],
    ['https://example.com', false],
    ['https://a.b.example.com', false],
    ['http://app.example.com', false],
    ['https://app.example.com:8443', false],
    ['https://app.example.com.evil.example', false],
    ['https://evil-example.com', false],
    ['https://.example.com', false],
    ['https://a_b.example.com', false],
    ['null', false],
  ])(
    'https://*.example.com allows one subdomain label, scheme and port fixed: %s → %s',
    async (origin, allowed) => {
      const service = await appFor(MINI, {
        cors: ['https://*.example.com', 'http://*.example.org:8080'],
        allowedHosts: [],
      });
      const res = await service.app.request('/api/prompts/writer', { headers: { origin } });
      expect(res.headers.get('access-control-allow-origin')).toBe(allowed ? origin : null);
      expect(res.headers.get('vary')).toBe('Accept, Origin');
      const preflight = await service.app.request('/api/compose', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe(allowed ? origin : null);
      // An unsafe method from an allowed origin passes the Origin check (DNS rebinding), others do not.
      const post = await service.app.request('/api/compose', {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: '{"role":"writer"}',
      });
      expect(post.status).toBe(allowed ? 200 : 403);
      const port = await service.app.request('/api/roles', {
        headers: { origin: 'http://x.example.org:8080' },
      });
      expect(port.headers.get('access-control-allow-origin')).toBe('http://x.example.org:8080');
      service.close();
    },
  );

  it('refuses at start a pattern it cannot read, naming the one it can', async () => {
    const mem = memoryStore(PACK);
    for (const origin of [
      'https://*',
      '*.example.com',
      'https://a.*.example.com',
      'https://**.example.com',
      'https://*example.com',
      'https://*.com',
      'https://*.example.com/path',
      'https://*.1.2.3.4',
    ]) {
      expect(() => createApp({ store: mem.store, cors: [origin] }), origin).toThrow(
        /is not an origin or a pattern strata reads: give scheme:\/\/host\[:port\] \(no path\), scheme:\/\/\*\.host\[:port\] for any one subdomain label of host, or \*/,
      );
    }
  });
});

/**
 * Accept negotiation (RFC 9110 §12.5.1): quality values, case, wildcards and exclusions are
 * honoured. The choice used to be "text/plain appears before application/json in the
 * header": `text/plain;q=0` got the text, `TEXT/PLAIN` and `text/*` got JSON, and
 * `text/plain-x` the text.
 */
describe('content negotiation of a prompt', () => {
  let running: RunningService;
  let fetch: typeof globalThis.fetch;
  beforeAll(async () => {
    const started = await startService({ dir: MINI, env: {}, port: 0, watch: false });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    running = started.service;
    fetch = checkedFetch(running.app);
  });
  afterAll(() => running.close());

  it.each([
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['text/plain', 'text/plain'],
    ['TEXT/Plain', 'text/plain'],
    ['text/*', 'text/plain'],
    ['text/plain;q=0, application/json', 'application/json'],
    ['text/plain;q=0, */*', 'application/json'],
    ['application/json;q=0.1, text/plain', 'text/plain'],
    ['application/json, text/plain;q=0.5', 'application/json'],
    ['text/plain, application/json', 'text/plain'],
    ['application/json, text/plain', 'application/json'],
    ['application/*;q=0.2, text/plain;q=0.1', 'application/json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json'],
    ['garbage', 'application/json'],
    // A weight that is no qvalue leaves its range out, whatever it is (it used to count as q=1
    // when it was not made of digits and dots).
    ['text/plain;q=2, application/json', 'application/json'],
    ['text/plain;q=-1, application/json', 'application/json'],
    ['text/plain;q=abc, application/json', 'application/json'],
    ['text/plain;q=, application/json', 'application/json'],
    ['text/plain-x', 406],
    ['image/png', 406],
    ['text/plain;q=0', 406],
    ['application/json;q=0, text/plain;q=0', 406],
    ['*/*;q=0', 406],
  ])('Accept %s → %s, by the app and the cached-answer path alike', async (accept, expected) => {
    const headers: Record<string, string> = accept === undefined ? {} : { accept };
    for (const path of ['/api/prompts/writer', '/api/agents/w1/prompt']) {
      // The first request may be composed by the app, the second is served from the cache.
      for (const _ of [1, 2]) {
        const res = await fetch(running.url + path, { headers });
        if (expected === 406) {
          expect(res.status, path).toBe(406);
          expect(res.headers.get('vary'), path).toContain('Accept');
          expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_ACCEPTABLE');
        } else {
          expect(res.status, path).toBe(200);
          expect(res.headers.get('content-type')?.split(';')[0], path).toBe(expected);
          await res.arrayBuffer();
        }
      }
    }
    const composed = await fetch(`${running.url}/api/compose`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"role":"writer"}',
    });
    expect(composed.status).toBe(expected === 406 ? 406 : 200);
    await composed.arrayBuffer();
  });
});

describe('the node fast path and the app agree', () => {
  let running: RunningService;
  let fetch: typeof globalThis.fetch;
  beforeAll(async () => {
    const started = await startService({
      dir: MINI,
      env: {},
      port: 0,
      watch: false,
      logger: pino({ level: 'silent' }),
      cors: ['https://ui.example'],
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    running = started.service;
    fetch = checkedFetch(running.app);
  });
  afterAll(() => running.close());

  async function seen(res: Response) {
    const headers: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (key !== 'date' && key !== 'x-request-id' && key !== 'connection' && key !== 'keep-alive')
        headers[key] = value;
    });
    return { status: res.status, headers, body: await res.text() };
  }

  it.each([
    ['GET', { origin: 'https://ui.example', accept: 'text/plain' }],
    ['GET', { origin: 'https://evil.example' }],
    ['HEAD', { origin: 'https://ui.example' }],
    ['HEAD', { accept: 'text/plain' }],
  ])('%s with %o', async (method, headers) => {
    const path = `/api/prompts/critic?team=t${method}${Object.keys(headers).length}`;
    const viaApp = await seen(await fetch(running.url + path, { method, headers })); // fills the cache
    const viaFast = await seen(await fetch(running.url + path, { method, headers }));
    expect(viaFast).toEqual(viaApp);
    if (method === 'HEAD') {
      const get = await fetch(running.url + path, { headers });
      expect(viaFast.headers['content-length']).toBe(String((await get.arrayBuffer()).byteLength));
      expect(viaFast.body).toBe('');
    }
  });

  it('serves the text of the mini pack through both', async () => {
    const a = await fetch(`${running.url}/api/prompts/writer`, { headers: { accept: 'text/plain' } });
    const b = await fetch(`${running.url}/api/prompts/writer`, { headers: { accept: 'text/plain' } });
    expect([await a.text(), await b.text()]).toEqual([MINI_PROMPTS.writer, MINI_PROMPTS.writer]);
  });
});

describe('request inputs (var.KEY, body vars)', () => {
  it('composes with the inputs a pack declares, by query and by body, each cached apart', async () => {
    const service = await appFor(join(ROOT, 'examples/crewai'));
    const role = 'market_analyst';
    const a = await service.app.request(`/api/prompts/${role}?var.sector=energy&var.quarter=Q1`, {
      headers: { accept: 'text/plain' },
    });
    const b = await service.app.request(`/api/prompts/${role}?var.sector=retail&var.quarter=Q1`, {
      headers: { accept: 'text/plain' },
    });
    expect(a.status).toBe(200);
    expect(await a.text()).toContain('energy');
    expect(await b.text()).toContain('retail');
    const body = await service.app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role, vars: { sector: 'shipping', quarter: 'Q2' } }),
    });
    const result = await body.json();
    expect(result.text).toContain('shipping');
    expect(result.inputs).toMatchObject({ sector: 'shipping', quarter: 'Q2' });
    service.close();
  });
});

/**
 * A query parameter the route does not declare is refused on every API route, as the
 * prompt routes always did: a typo used to be ignored without a word, and the answer was
 * not what was asked (`?rol=critic` gave the agent's own config, `?version=previous` on
 * `/api/settings` the current settings).
 */
describe('query parameters a route does not declare', () => {
  let service: Awaited<ReturnType<typeof appFor>>;
  beforeAll(async () => {
    service = await appFor(MINI, { adminToken: 'secret' });
  });
  afterAll(() => service.close());

  it.each([
    ['GET', '/api/agents/w1/config?rol=critic', 'rol', 'accepted: role'],
    ['GET', '/api/settings?version=previous', 'version', 'takes none'],
    ['GET', '/api/roles?x=1', 'x', 'takes none'],
    ['HEAD', '/api/fleet?team=blue', 'team', 'takes none'],
    ['GET', '/api/status?verbose', 'verbose', 'takes none'],
    ['GET', '/api/events?since=1', 'since', 'takes none'],
    ['POST', '/api/compose?role=writer', 'role', 'takes none'],
    ['POST', '/api/prompts/reload?acept=true', 'acept', 'accepted: accept'],
    ['GET', '/api/prompts/writer?set=on', 'set', 'set.KEY, var.KEY'],
  ])('%s %s is 400 naming the parameter', async (method, path, key, words) => {
    const res = await service.app.request(path, {
      method,
      headers: { 'content-type': 'application/json', authorization: 'Bearer secret' },
      body: method === 'POST' ? '{"role":"writer"}' : undefined,
    });
    expect(res.status).toBe(400);
    if (method === 'HEAD') return;
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toContain(`unknown query parameter ${JSON.stringify(key)}`);
    expect(error.message).toContain(words);
  });

  it.each([
    '/api/agents/w1/config?role=critic',
    '/api/prompts/writer?set.fable_mode_enabled=on',
    '/healthz?probe=1',
    '/?agent=w1&tab=compare',
  ])('GET %s is served (declared, or not an API route)', async (path) => {
    const res = await service.app.request(path);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });
});
