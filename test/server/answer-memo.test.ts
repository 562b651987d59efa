import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { engineOf } from '../../src/engine/default-engine.js';
import { answerPrompt } from '../../src/server/answers/prompt.js';
import { createApp, type StrataApp } from '../../src/server/app.js';
import { AnswerMemo, MAX_KEY_CHARS, SEEN_KEYS } from '../../src/server/node/answer-memo.js';
import { createFastPath } from '../../src/server/node/fast-path.js';
import { routeTable } from '../../src/server/routes/route.js';
import type { Answer } from '../../src/server/service/answer.js';
import { RouteTable } from '../../src/server/service/route-table.js';
import { stopCountWorker } from '../../src/tokens/count-off-thread.js';
import { memoryStore } from './helpers.js';

// The node server's direct path gives a prompt route's answer again to the same request
// (method, URL, Accept, If-None-Match, body) while the store holds the same versions,
// once the request was asked twice. Each test counts the route handlers' calls: a kept
// answer is given without one.

afterAll(() => stopCountWorker());

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
  'teams/blue.md': 'Team blue.',
};

/** A node server with the app's direct path, its handlers' calls counted. */
async function serve(app: StrataApp) {
  const counted = new RouteTable();
  let calls = 0;
  for (const r of routeTable(app.app).routes) {
    const direct = r.direct;
    counted.add(
      r.method,
      r.path,
      r.operationId,
      direct &&
        ((req) => {
          calls++;
          return direct(req);
        }),
      r.query,
    );
  }
  const fallback = getRequestListener(app.app.fetch);
  const fast = createFastPath(app.service, counted, fallback);
  const server = createServer((req, res) => fast(req, res) || void fallback(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls: () => calls,
    flush: () => fast.flush(),
    close: () => new Promise((done) => server.close(done)),
  };
}

async function started(files: Record<string, string> = PACK, options: { strict?: boolean } = {}) {
  const mem = memoryStore(files);
  await mem.store.reload('initial');
  const app = createApp({ store: mem.store, heartbeatMs: 0, ...options });
  return { mem, app, server: await serve(app) };
}

/** Status, headers (but the date and request id) and body. */
async function seen(res: Response) {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    if (key !== 'date' && key !== 'x-request-id') headers[key] = value;
  });
  return { status: res.status, headers, body: await res.text() };
}

describe('answers given again', () => {
  it('answers a request asked twice from what it was answered, byte for byte, each with its own request id', async () => {
    const { server } = await started();
    try {
      const ids = new Set<string>();
      const answers = [];
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${server.url}/api/prompts/writer?team=blue`, {
          headers: { accept: 'text/plain' },
        });
        ids.add(res.headers.get('x-request-id')!);
        answers.push(await seen(res));
      }
      expect(server.calls()).toBe(2);
      expect(answers[0]).toMatchObject({ status: 200, body: 'Base.\n\n---\n\nWriter.\n\n---\n\nTeam blue.' });
      for (const a of answers) expect(a).toEqual(answers[0]);
      expect(ids.size).toBe(5);
      // A caller's request id is its own on a kept answer too.
      const given = await fetch(`${server.url}/api/prompts/writer?team=blue`, {
        headers: { accept: 'text/plain', 'x-request-id': 'trace-7' },
      });
      expect(given.headers.get('x-request-id')).toBe('trace-7');
      expect(server.calls()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('keeps each representation apart: Accept, If-None-Match, If-Match, HEAD, format', async () => {
    const { server } = await started();
    try {
      const url = `${server.url}/api/prompts/critic`;
      const json = await seen(await fetch(url));
      const etag = json.headers.etag!;
      const kinds: Array<[string, RequestInit, number]> = [
        ['json', {}, 200],
        ['text', { headers: { accept: 'text/plain' } }, 200],
        ['not modified', { headers: { 'if-none-match': etag } }, 304],
        ['if-match', { headers: { 'if-match': etag } }, 200],
        ['if-match failed', { headers: { 'if-match': '"another"' } }, 412],
        ['head', { method: 'HEAD' }, 200],
        ['openai', {}, 200],
      ];
      for (const [kind, init, status] of kinds) {
        const target = kind === 'openai' ? `${url}?format=openai` : url;
        const first = await seen(await fetch(target, init));
        expect(first.status, kind).toBe(status);
        for (let i = 0; i < 3; i++) expect(await seen(await fetch(target, init)), kind).toEqual(first);
      }
      const text = await seen(await fetch(url, { headers: { accept: 'text/plain' } }));
      expect(text.body).toBe('Base.\n\n---\n\nCritic.');
      expect(json.headers['content-type']).toBe('application/json');
      expect(JSON.parse(json.body).text).toBe(text.body);
      const head = await seen(await fetch(url, { method: 'HEAD' }));
      expect(head.body).toBe('');
      expect(head.headers['content-length']).toBe(json.headers['content-length']);
      // Each kind was asked four times: its handler ran for the first two (a 412, an
      // error, is never kept: its handler ran each time).
      expect(server.calls()).toBe(1 + (kinds.length - 1) * 2 - 1 + 4);
    } finally {
      await server.close();
    }
  });

  it('answers a new pack version at once: an answer is kept for one state of the store', async () => {
    const { mem, server } = await started();
    try {
      const text = (path: string) =>
        fetch(server.url + path, { headers: { accept: 'text/plain' } }).then((r) => r.text());
      for (let i = 0; i < 3; i++) expect(await text('/api/prompts/writer')).toBe('Base.\n\n---\n\nWriter.');
      mem.set('roles/writer.md', 'Writer, edited.');
      await mem.store.reload('manual');
      expect(await text('/api/prompts/writer')).toBe('Base.\n\n---\n\nWriter, edited.');
      for (let i = 0; i < 3; i++)
        expect(await text('/api/prompts/writer?version=previous')).toBe('Base.\n\n---\n\nWriter.');
      mem.set('roles/writer.md', 'Writer, again.');
      await mem.store.reload('manual');
      // `previous` now names the edited version, not the one kept under the same URL before.
      expect(await text('/api/prompts/writer?version=previous')).toBe('Base.\n\n---\n\nWriter, edited.');
      expect(await text('/api/prompts/writer')).toBe('Base.\n\n---\n\nWriter, again.');
    } finally {
      await server.close();
    }
  });

  it('keeps a POST by its body: the same body is given again, another is composed', async () => {
    const { server } = await started();
    try {
      const post = (body: object, accept = 'application/json') =>
        fetch(`${server.url}/api/compose`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify(body),
        }).then(seen);
      const first = await post({ role: 'writer', team: 'blue' });
      for (let i = 0; i < 3; i++) expect(await post({ role: 'writer', team: 'blue' })).toEqual(first);
      expect(server.calls()).toBe(2);
      const other = await post({ role: 'critic' });
      expect(JSON.parse(other.body).text).toBe('Base.\n\n---\n\nCritic.');
      const text = await post({ role: 'writer', team: 'blue' }, 'text/plain');
      expect(text.body).toBe('Base.\n\n---\n\nWriter.\n\n---\n\nTeam blue.');
      expect(server.calls()).toBe(4);
      // A body the route refuses is answered by the route each time.
      for (let i = 0; i < 3; i++) expect((await post({ role: 'writer', colour: 'red' })).status).toBe(400);
      expect(server.calls()).toBe(7);
      // A body JSON.parse would read but that repeats a key is refused before any handler, each time.
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.url}/api/compose`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"role": "writer", "role": "critic"}',
        });
        expect([res.status, (await res.json()).error.code]).toEqual([400, 'BAD_REQUEST']);
      }
      expect(server.calls()).toBe(7);
    } finally {
      await server.close();
    }
  });

  it('gives an ambient text asked twice again; a new text each time is composed each time', async () => {
    const { server } = await started();
    try {
      const ask = (ambient: string) =>
        fetch(`${server.url}/api/prompts/writer?ambient=${encodeURIComponent(ambient)}`, {
          headers: { accept: 'text/plain' },
        }).then((r) => r.text());
      for (let i = 0; i < 4; i++)
        expect(await ask('Friday.')).toBe('Base.\n\n---\n\nWriter.\n\n---\n\nFriday.');
      expect(server.calls()).toBe(2);
      for (let i = 0; i < 4; i++)
        expect(await ask(`Day ${i}.`)).toBe(`Base.\n\n---\n\nWriter.\n\n---\n\nDay ${i}.`);
      expect(server.calls()).toBe(6);
    } finally {
      await server.close();
    }
  });

  it('never keeps an error: a strict request with warnings is refused by its handler each time', async () => {
    const { server } = await started(PACK, { strict: true });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.url}/api/prompts/writer?team=green`);
        expect(res.status).toBe(404);
        expect((await res.json()).error.code).toBe('UNKNOWN_TEAM');
      }
      expect(server.calls()).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('counts every answer in the metrics, its warnings too, whether kept or not', async () => {
    const { server } = await started();
    try {
      const metric = async (pattern: RegExp) => {
        server.flush();
        const text = await (await fetch(`${server.url}/metrics`)).text();
        return Number(pattern.exec(text)?.[1] ?? 0);
      };
      const route =
        /strata_http_requests_total\{route="\/api\/prompts\/:role",method="GET",status="200"\} (\d+)/;
      const composed = /strata_compose_total\{route="\/api\/prompts\/\{role\}",outcome="ok"\} (\d+)/;
      const warned =
        /strata_compose_warnings_total\{route="\/api\/prompts\/\{role\}",code="UNKNOWN_TEAM"\} (\d+)/;
      for (let i = 0; i < 6; i++)
        expect((await fetch(`${server.url}/api/prompts/writer?team=green`)).status).toBe(200);
      expect(server.calls()).toBe(2);
      expect([await metric(route), await metric(composed), await metric(warned)]).toEqual([6, 6, 6]);
    } finally {
      await server.close();
    }
  });
});

describe('which answers may be given again', () => {
  /** Prose long enough to be counted in the worker thread (over 2,048 characters). */
  const LONG = Array.from({ length: 3000 }, (_, i) => `word${i % 97} and more`).join(' ');

  it('a composed prompt may; one answered without the token counts it should hold may not', async () => {
    const mem = memoryStore({ ...PACK, 'base.md': `${LONG} Memo.` });
    await mem.store.reload('initial');
    const { service } = createApp({ store: mem.store, heartbeatMs: 0, tokenBudgetMs: 0 });
    const ask = (accept: string) =>
      answerPrompt(service, {
        route: '/api/compose',
        request: { role: 'writer', ambient: `Now: ${LONG}` },
        accept,
        startedAt: performance.now(),
      });
    const uncounted = await ask('application/json');
    expect(uncounted.headers['x-strata-warnings']).toBe('TOKEN_BUDGET_EXCEEDED');
    expect(uncounted.again).toBeUndefined();
    // The text holds no counts: it is the whole answer, and may be given again.
    const text = await ask('text/plain');
    expect(text.status).toBe(200);
    expect(text.again).toBeTypeOf('function');
  });
});

describe('AnswerMemo', () => {
  const route = new RouteTable();
  route.add('get', '/x', 'getX');
  const x = route.routes[0]!;
  const answer = (again?: () => void): Answer => ({
    status: 200,
    headers: { 'content-type': 'text/plain' },
    body: new TextEncoder().encode('x'),
    again,
  });
  const headers: IncomingHttpHeaders = { accept: 'text/plain' };

  it('keeps an answer once its request was offered twice, for that state only', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload('initial');
    const state = mem.store.state!;
    const memo = new AnswerMemo();
    const key = memo.key('GET', '/x', headers, state)!;
    const a = answer(() => {});
    memo.offer(key, state, x, a);
    expect(memo.get(key, state)).toBeUndefined();
    memo.offer(key, state, x, a);
    expect(memo.get(key, state)).toEqual({ route: x, answer: a });
    // Another Accept, another If-None-Match, another method, another body: other keys.
    expect(
      new Set([
        key,
        memo.key('GET', '/x', { accept: 'application/json' }, state),
        memo.key('GET', '/x', { ...headers, 'if-none-match': '"e"' }, state),
        memo.key('HEAD', '/x', headers, state),
        memo.key('POST', '/x', headers, state, '{}'),
        memo.key('POST', '/x', headers, state, '{ }'),
      ]).size,
    ).toBe(6);
    mem.set('roles/writer.md', 'Writer, edited.');
    await mem.store.reload('manual');
    const next = mem.store.state!;
    expect(next).not.toBe(state);
    expect(memo.get(memo.key('GET', '/x', headers, next)!, next)).toBeUndefined();
  });

  it('leaves nothing in the cache for a request asked once, however many; remembers the last SEEN_KEYS first asks', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload('initial');
    const state = mem.store.state!;
    const cache = engineOf(state.snapshot).cache;
    const before = cache.usage();
    const memo = new AnswerMemo();
    const a = answer(() => {});
    const keyOf = (i: number) => memo.key('GET', `/one-off/${i}`, headers, state)!;
    for (let i = 0; i < 3 * SEEN_KEYS; i++) memo.offer(keyOf(i), state, x, a);
    expect(cache.usage()).toEqual(before);
    // The last SEEN_KEYS first asks are remembered: asked again, each is kept.
    memo.offer(keyOf(3 * SEEN_KEYS - 1), state, x, a);
    expect(memo.get(keyOf(3 * SEEN_KEYS - 1), state)).toEqual({ route: x, answer: a });
    // One asked before those is a first ask again, kept at the next.
    memo.offer(keyOf(0), state, x, a);
    expect(memo.get(keyOf(0), state)).toBeUndefined();
    memo.offer(keyOf(0), state, x, a);
    expect(memo.get(keyOf(0), state)).toEqual({ route: x, answer: a });
  });

  it('never keeps an answer without `again`, a request without a state, or an over-long one', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload('initial');
    const state = mem.store.state!;
    const memo = new AnswerMemo();
    const key = memo.key('GET', '/y', headers, state)!;
    for (let i = 0; i < 3; i++) memo.offer(key, state, x, answer());
    expect(memo.get(key, state)).toBeUndefined();
    expect(memo.key('GET', '/y', headers, undefined)).toBeUndefined();
    const long = 'x'.repeat(MAX_KEY_CHARS);
    expect(memo.key('POST', '/y', headers, state, long)).toBeUndefined();
    expect(memo.key('POST', '/y', headers, state, long.slice(0, MAX_KEY_CHARS - 100))).toBeDefined();
  });
});
