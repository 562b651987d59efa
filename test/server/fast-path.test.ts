import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFastPath } from '../../src/server/node/fast-path.js';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { routeTable } from '../../src/server/routes/route.js';
import {
  type AccessLine,
  createLogger,
  logRequest,
  requestId,
  writeAccessLines,
} from '../../src/server/service/logging.js';
import { RouteTable } from '../../src/server/service/route-table.js';
import { checkedFetch } from './contract.js';
import { MINI } from './helpers.js';

let service: RunningService;
let fetch: typeof globalThis.fetch;
beforeAll(async () => {
  const started = await startService({
    dir: MINI,
    env: {},
    port: 0,
    watch: false,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  service = started.service;
  fetch = checkedFetch(service.app);
});
afterAll(() => service.close());

async function snapshotOf(res: Response) {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    if (key !== 'date' && key !== 'x-request-id') headers[key] = value;
  });
  return { status: res.status, headers, body: await res.text() };
}

describe('the node fast path for cached prompts', () => {
  it.each([
    ['/api/prompts/writer', { accept: 'text/plain' }],
    ['/api/prompts/writer?team=blue&set.fable_mode_enabled=on', {}],
    ['/api/agents/w1/prompt', { accept: 'text/plain, application/json' }],
    ['/api/agents/zed/prompt?role=critic&team=blue', {}],
  ])('answers %s exactly as the app does (200 and 304)', async (path, headers) => {
    const viaApp = await snapshotOf(await fetch(service.url + path, { headers })); // fills the cache
    const viaFast = await snapshotOf(await fetch(service.url + path, { headers }));
    expect(viaFast).toEqual(viaApp);
    const etag = viaApp.headers.etag!;
    const notModified = await snapshotOf(
      await fetch(service.url + path, { headers: { ...headers, 'if-none-match': etag } }),
    );
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(etag);
  });

  it('leaves errors and unusual queries to the app', async () => {
    await fetch(`${service.url}/api/prompts/writer`);
    for (const [path, status] of [
      ['/api/prompts/writer?team=', 400],
      ['/api/prompts/writer?colour=red', 400],
      ['/api/prompts/writer?version=previous', 404],
      ['/api/agents/zed/prompt', 404],
    ] as const) {
      expect((await fetch(service.url + path)).status, path).toBe(status);
    }
  });

  it('counts fast answers in the metrics like any other', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${service.url}/api/prompts/critic`);
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const n = Number(
      /strata_http_requests_total\{route="\/api\/prompts\/:role",method="GET",status="200"\} (\d+)/.exec(
        text,
      )?.[1],
    );
    expect(n).toBeGreaterThanOrEqual(3);
  });
});

describe('one routing table for the app and the node server', () => {
  /** The same app behind a plain node:http server: every request goes through hono. */
  async function appOnly(): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer(getRequestListener(service.app.fetch));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise((done) => server.close(() => done())),
    };
  }

  it('names every documented operation once, with the pattern the document gives it', async () => {
    const doc = await (await service.app.app.request('/openapi.json')).json();
    const documented = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap(([path, ops]) =>
        Object.entries(ops).map(([m, op]) => `${m.toUpperCase()} ${path} ${op.operationId}`),
      )
      .sort();
    const table = routeTable(service.app.app)
      .routes.map((r) => `${r.method} ${r.path} ${r.operationId}`)
      .sort();
    expect(table).toEqual(documented);
    const direct = routeTable(service.app.app)
      .routes.filter((r) => r.direct)
      .map((r) => r.path);
    expect(direct.sort()).toEqual([
      '/api/agents/{agent}/prompt',
      '/api/compose',
      '/api/prompts/{role}',
      '/healthz',
      '/readyz',
    ]);
  });

  const json = { 'content-type': 'application/json' };
  it.each<[string, string, Record<string, string>, string?]>([
    ['GET', '/healthz', {}],
    ['HEAD', '/healthz', {}],
    ['GET', '/readyz', {}],
    ['GET', '/api/prompts/writer?team=blue&agent=w1', { accept: 'text/plain' }],
    ['HEAD', '/api/prompts/critic', {}],
    ['GET', '/api/agents/w1/prompt?set.fable_mode_enabled=on', {}],
    ['GET', '/api/prompts/writer?version=current', {}],
    ['GET', '/api/prompts/writer?format=openai', {}],
    ['GET', '/api/agents/w1/prompt?format=anthropic', {}],
    ['GET', '/api/prompts/writer?strict=true&team=blue', {}],
    ['GET', '/api/prompts/writer?strict=1&team=nosuch', {}],
    ['GET', '/api/prompts/writer?ambient=Today+is+Monday', { accept: 'text/plain' }],
    ['GET', '/api/prompts/nosuch', {}],
    ['GET', '/api/prompts/writer?team=', {}],
    ['GET', '/api/prompts/writer?team=a&team=b', {}],
    ['GET', '/api/prompts/writer?set.x=1&set.x=2', {}],
    ['GET', '/api/prompts/writer?version=previous', {}],
    ['GET', '/api/prompts/writer?format=gemini', {}],
    ['GET', '/api/prompts/writer', { accept: 'image/png' }],
    ['POST', '/api/compose', json, '{"role":"writer","team":"blue"}'],
    [
      'POST',
      '/api/compose',
      { ...json, accept: 'text/plain' },
      '{"agent":"w1","settings":{"fable_mode_enabled":"on"}}',
    ],
    ['POST', '/api/compose', json, '{"role":"critic","format":"openai","version":"current","strict":true}'],
    ['POST', '/api/compose', json, '{"role":"writer","ambient":"Today is Monday."}'],
    ['POST', '/api/compose', json, '{"role":"nosuch"}'],
    ['POST', '/api/compose', json, '{"role":"writer","colour":"red"}'],
    ['POST', '/api/compose', json, '{"role":"writer"'],
    ['POST', '/api/compose', json, '{"role":"writer","role":"critic"}'],
    ['POST', '/api/compose', { 'content-type': 'application/json; charset=utf-8' }, '{"role":"writer"}'],
    ['POST', '/api/compose', { 'content-type': 'text/plain' }, '{"role":"writer"}'],
  ])('%s %s %j %s: the direct answer is the app’s, byte for byte', async (method, path, headers, body) => {
    const plain = await appOnly();
    try {
      await fetch(service.url + path, { method, headers, body }); // fills the render cache
      const conditions: Array<Record<string, string>> = [
        {},
        { 'if-none-match': 'nothing' },
        { 'if-match': '"nothing"' },
      ];
      for (const condition of conditions) {
        const h = { ...headers, ...condition };
        const viaApp = await snapshotOf(await fetch(plain.url + path, { method, headers: h, body }));
        const direct = await snapshotOf(await fetch(service.url + path, { method, headers: h, body }));
        expect(direct).toEqual(viaApp);
        if (viaApp.headers.etag) {
          const e = { ...headers, 'if-none-match': viaApp.headers.etag };
          const notModified = await snapshotOf(await fetch(service.url + path, { method, headers: e, body }));
          expect(notModified).toEqual(
            await snapshotOf(await fetch(plain.url + path, { method, headers: e, body })),
          );
          // RFC 9110 §13.1.2: a 304 answers only GET and HEAD; a POST is 412.
          expect(notModified.status).toBe(method === 'POST' ? 412 : 304);
        }
      }
    } finally {
      await plain.close();
    }
  });

  it('answers the prompt routes, every query variant and POST /api/compose without the app', async () => {
    let viaApp = 0;
    const app = getRequestListener(service.app.fetch);
    const fast = createFastPath(service.app.service, routeTable(service.app.app), app);
    const server = createServer((req, res) => {
      if (fast(req, res)) return;
      viaApp++;
      void app(req, res);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const json = { 'content-type': 'application/json' };
    try {
      for (const [path, init, status] of [
        ['/readyz', {}, 200],
        ['/api/prompts/writer?version=current&format=openai&strict=true', {}, 200],
        ['/api/prompts/writer?ambient=now', { headers: { accept: 'text/plain' } }, 200],
        ['/api/prompts/nosuch', {}, 404],
        ['/api/prompts/writer?team=', {}, 400],
        [
          '/api/compose',
          { method: 'POST', headers: json, body: '{"role":"writer","format":"anthropic"}' },
          200,
        ],
        ['/api/compose', { method: 'POST', headers: json, body: '{"role":"writer"' }, 400],
        ['/api/compose', { method: 'POST', headers: json, body: 'x'.repeat(70_000) }, 413],
      ] as const) {
        expect((await fetch(url + path, init)).status, path).toBe(status);
      }
      expect(viaApp).toBe(0);
      // What the direct path leaves: another route, a body that is not JSON, a refused query.
      for (const [path, init] of [
        ['/api/roles', {}],
        ['/api/compose', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }],
        ['/api/prompts/writer?colour=red', {}],
      ] as const)
        await fetch(url + path, init);
      expect(viaApp).toBe(3);
    } finally {
      await new Promise((done) => server.close(done));
      fast.flush();
    }
  });

  it('serves a route added with a direct handler on both paths, and the app alone without one', async () => {
    const table = new RouteTable();
    table.add('get', '/x/{id}', 'getX', ({ params }) => ({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: new TextEncoder().encode(params.id),
    }));
    table.add('get', '/y', 'getY');
    table.add('post', '/x/{id}', 'postX');
    expect(table.direct('GET', '/x/abc')?.params).toEqual({ id: 'abc' });
    expect(table.direct('HEAD', '/x/abc')?.route.operationId).toBe('getX');
    expect(table.direct('POST', '/x/abc')).toBeUndefined();
    expect(table.direct('GET', '/x/a%62c')).toBeUndefined(); // the app decodes
    expect(table.direct('GET', '/y')).toBeUndefined();
    expect(table.direct('GET', '/x/abc/')).toBeUndefined();
    expect(table.methods('/x/abc')).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
    expect(table.methods('/z')).toEqual([]);
  });
});

describe('fast-path access log', () => {
  it('writes one request line per answer, with its request id, by the time the service closes', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const started = await startService({
      dir: MINI,
      env: {},
      port: 0,
      watch: false,
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }),
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    const { url } = started.service;
    await fetch(`${url}/api/prompts/writer`); // through the app: fills the cache
    const ids = ['req-a', 'req-b', 'req-c'];
    for (const id of ids) {
      const res = await fetch(`${url}/api/prompts/writer`, { headers: { 'x-request-id': id } });
      expect(res.headers.get('x-request-id')).toBe(id);
      await res.text();
    }
    await started.service.close();
    const requests = lines.filter((l) => l.msg === 'request' && ids.includes(l.reqId as string));
    expect(requests.map((l) => [l.reqId, l.route, l.status, l.method])).toEqual(
      ids.map((id) => [id, '/api/prompts/:role', 200, 'GET']),
    );
  });
});

describe('writeAccessLines', () => {
  const untimed = (s: string) => s.replace(/"time":"[^"]+"/, '"time":"T"');
  /** The lines as logRequest writes them, one pino call each. */
  const viaPino = (lines: readonly AccessLine[]) => {
    const out: string[] = [];
    const logger = createLogger({ level: 'info', write: (s) => out.push(s) });
    for (const line of lines) logRequest(logger, { ...line });
    return out.map(untimed);
  };
  /** The lines as writeAccessLines writes them: one write for the batch. */
  const direct = (lines: readonly AccessLine[]) => {
    const out: string[] = [];
    writeAccessLines(createLogger({ level: 'info', write: (s) => out.push(s) }), lines);
    expect(out).toHaveLength(1);
    return out[0]!.split(/(?<=\n)/).map(untimed);
  };

  it('writes the same bytes as logRequest, apart from the time, in one write', () => {
    const line = {
      reqId: requestId('r-1'),
      method: 'GET',
      path: '/api/prompts/a"b',
      route: '/api/prompts/:role',
      status: 200,
      ms: 1.23456,
    };
    const lines = [
      line,
      { ...line, reqId: requestId('r-2') },
      { ...line, path: '/api/prompts/ab', ms: 12.1 },
    ];
    expect(direct(lines)).toEqual(viaPino(lines));
    expect(direct(lines)).toHaveLength(3);
  });

  it('quotes every path, method and route, and writes every duration, as pino does', () => {
    const text = fc.oneof(
      fc.constantFrom('/api/compose', '/api/prompts/:role', 'GET', 'POST'),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({
        unit: fc.constantFrom(
          '"',
          '\\',
          '\n',
          '\u0001',
          '\u007f',
          '\ud800',
          '\udc00',
          '\ud83d\ude00',
          'é',
          '/',
          'a',
        ),
        maxLength: 8,
      }),
    );
    const ms = fc.oneof(
      fc.double({ min: 0, max: 1e7, noNaN: true }),
      fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100),
      fc.constantFrom(0, 0.005, 0.015, 1.005, 99.995, 1e14, 1e16, 123456.785),
    );
    const line = fc.record({
      reqId: fc.oneof(fc.uuid(), fc.stringMatching(/^[\w.:-]{1,20}$/)).map((id) => requestId(id)),
      method: text,
      path: text,
      route: text,
      status: fc.constantFrom(200, 304, 404, 500),
      ms,
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        const written = direct(lines);
        // Every line is JSON holding the fields as given (a lone surrogate escaped, as
        // JSON.stringify escapes it, where pino writes it raw), the duration rounded.
        expect(written.map((l) => JSON.parse(l))).toEqual(
          lines.map((l) => ({
            level: 30,
            time: 'T',
            service: 'strata',
            ...l,
            ms: Math.round(l.ms * 100) / 100,
            msg: 'request',
          })),
        );
        const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
        const wellFormed = lines.every((l) => [l.method, l.path, l.route].every((f) => !lone.test(f)));
        if (wellFormed) expect(written).toEqual(viaPino(lines));
      }),
      { numRuns: 300 },
    );
  });

  it('writes nothing below info', () => {
    const out: string[] = [];
    writeAccessLines(createLogger({ level: 'warn', write: (s) => out.push(s) }), [
      { reqId: requestId('r'), method: 'GET', path: '/', route: '/', status: 200, ms: 1 },
    ]);
    expect(out).toEqual([]);
  });
});
