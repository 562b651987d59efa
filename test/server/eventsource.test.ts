import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from '../../src/client/sse.js';
import { createApp, type StrataApp } from '../../src/server/app.js';
import { checkedApp } from './contract.js';
import { eventStream, memoryStore, waitFor } from './helpers.js';

/**
 * `/api/events` read by a third-party client, the `eventsource` package (the WHATWG
 * EventSource for Node): a failed reload is an event of its own, not the connection
 * `error`; a reconnect sends `Last-Event-ID` and gets the events it missed.
 */

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer }\n',
};

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

async function serve(mem: ReturnType<typeof memoryStore>) {
  await mem.store.reload('initial');
  const app: StrataApp = createApp({ store: mem.store, heartbeatMs: 0 });
  const listener = getRequestListener(app.fetch);
  const seen: Array<string | undefined> = [];
  let gate: Promise<void> = Promise.resolve();
  const server: Server = createServer((req, res) => {
    if (req.url === '/api/events') {
      seen.push(req.headers['last-event-id'] as string | undefined);
      void gate.then(() => listener(req, res));
    } else void listener(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanup.push(
    () => app.close(),
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return {
    url,
    app,
    server,
    /** The Last-Event-ID header of each `/api/events` request, in order. */
    seen,
    /** Holds new `/api/events` requests until the returned function is called. */
    hold(): () => void {
      let open!: () => void;
      gate = new Promise<void>((r) => {
        open = r;
      });
      return open;
    },
  };
}

function listen(es: EventSource, names: string[]) {
  const got: Array<{ event: string; data: unknown; id: string }> = [];
  let errors = 0;
  for (const name of names) {
    es.addEventListener(name, (e) => got.push({ event: name, data: JSON.parse(e.data), id: e.lastEventId }));
  }
  es.onerror = () => {
    errors += 1;
  };
  cleanup.push(() => es.close());
  return { got, errors: () => errors };
}

describe('/api/events with the eventsource client', () => {
  it('delivers a failed reload as reload-failed without tripping onerror, and ids every event', async () => {
    const mem = memoryStore(PACK);
    const { url } = await serve(mem);
    const v1 = mem.store.state!.snapshot.version;
    const es = new EventSource(`${url}/api/events`);
    const { got, errors } = listen(es, ['hello', 'reload', 'reload-failed', 'recovered']);
    await waitFor(() => got.find((e) => e.event === 'hello'), 30_000, 'hello');

    mem.set('fleet.yaml', 'agents:\n  - { id: w1, role: nobody }\n');
    expect((await mem.store.reload('manual')).outcome).toBe('failed');
    const failed = await waitFor(() => got.find((e) => e.event === 'reload-failed'), 30_000, 'reload-failed');
    expect(failed.data).toMatchObject({ version: v1, diagnostics: [{ code: 'UNKNOWN_ROLE' }] });

    mem.set('fleet.yaml', PACK['fleet.yaml']);
    await mem.store.reload('manual');
    await waitFor(() => got.find((e) => e.event === 'recovered'), 30_000, 'recovered');

    expect(errors()).toBe(0);
    expect(es.readyState).toBe(EventSource.OPEN);
    expect(got.map((e) => e.event)).toEqual(['hello', 'reload-failed', 'recovered']);
    const ids = got.map((e) => e.id);
    expect(ids.every((id) => /^[a-z0-9]+\.\d+$/.test(id))).toBe(true);
    expect(new Set(ids.slice(1)).size).toBe(2);
  });

  it('replays the events a reconnecting client missed (Last-Event-ID)', async () => {
    const mem = memoryStore(PACK);
    const { url, server, seen, hold } = await serve(mem);
    const v1 = mem.store.state!.snapshot.version;
    const es = new EventSource(`${url}/api/events`);
    const { got } = listen(es, ['hello', 'reload', 'reload-failed', 'recovered']);
    const hello = await waitFor(() => got.find((e) => e.event === 'hello'), 30_000, 'hello');
    expect(seen).toEqual([undefined]);

    // The connection drops; while the client is away the pack changes.
    const open = hold();
    server.closeAllConnections();
    await waitFor(() => (seen.length === 2 ? true : undefined), 30_000, 'the reconnect');
    mem.set('roles/writer.md', 'Writer, second edition.');
    const swapped = await mem.store.reload('manual');
    expect(swapped.outcome).toBe('swapped');
    open();

    const reload = await waitFor(() => got.find((e) => e.event === 'reload'), 30_000, 'the missed reload');
    expect(seen[1]).toBe(hello.id);
    expect(reload.data).toMatchObject({ version: swapped.version, previous: v1, trigger: 'manual' });
    expect(got.map((e) => e.event)).toEqual(['hello', 'hello', 'reload']);
    expect(got[1]!.data).toEqual({ version: swapped.version });
  });

  it('gives hello the resumed id before a replay, so a drop before the replay loses nothing', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload('initial');
    const app = checkedApp({ store: mem.store, heartbeatMs: 0 });
    cleanup.push(() => app.close());
    const boot = app.events.lastId.split('.')[0]!;
    for (const text of ['Writer 2.', 'Writer 3.']) {
      mem.set('roles/writer.md', text);
      expect((await mem.store.reload('manual')).outcome).toBe('swapped');
    }
    const res = await app.app.request('/api/events', { headers: { 'last-event-id': `${boot}.1` } });
    const reader = res.body!.getReader();
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const got: SseEvent[] = [];
    while (got.length < 2) {
      const read = await reader.read();
      if (read.done) throw new Error('event stream ended');
      got.push(...parser.push(decoder.decode(read.value, { stream: true })));
    }
    await reader.cancel().catch(() => undefined);
    // A client that reconnects after reading only `hello` sends hello's id: it must still
    // be sent event 2.
    expect(got.slice(0, 2).map((e) => [e.event, e.id])).toEqual([
      ['hello', `${boot}.1`],
      ['reload', `${boot}.2`],
    ]);
  });

  it('replays only what it can resume: not another process’s ids, not ids past the ring', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload('initial');
    const app = checkedApp({ store: mem.store, heartbeatMs: 0, replayEvents: 2 });
    cleanup.push(() => app.close());
    const boot = app.events.lastId.split('.')[0]!;
    let n = 1;
    const edit = async () => {
      mem.set('roles/writer.md', `Writer ${++n}.`);
      return (await mem.store.reload('manual')).version!;
    };
    await edit(); // event 1: dropped from the ring of 2 by the next two
    const v3 = await edit();
    const v4 = await edit();
    const cases: Array<[string, string[]]> = [
      [`${boot}.1`, [v3, v4]],
      [`${boot}.2`, [v4]],
      [`${boot}.3`, []],
      [`${boot}.0`, []],
      ['elsewhere.1', []],
      [`${boot}.99`, []],
      ['junk', []],
    ];
    for (const [id, replayed] of cases) {
      const res = await app.app.request('/api/events', { headers: { 'last-event-id': id } });
      const events = eventStream(res);
      const hello = await events.next();
      expect(hello[0]).toEqual({ event: 'hello', data: { version: v4 } });
      const got = replayed.length ? await events.next(replayed.length) : [];
      expect(
        got.map((e) => (e.data as { version: string }).version),
        id,
      ).toEqual(replayed);
      await events.close();
    }
    // What comes next after an unresumable id is the next new event, nothing older.
    const res = await app.app.request('/api/events', { headers: { 'last-event-id': 'junk' } });
    const events = eventStream(res);
    await events.next();
    const v5 = await edit();
    expect((await events.next())[0]).toMatchObject({ event: 'reload', data: { version: v5 } });
    await events.close();
  });
});
