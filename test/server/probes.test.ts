import { connect, type Socket } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { MINI, waitFor } from './helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(connections: { maxConnections?: number; probeConnections?: number } = {}) {
  const started = await startService({
    dir: MINI,
    env: {},
    port: 0,
    watch: false,
    logger: pino({ level: 'silent' }),
    connections,
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  const service: RunningService = started.service;
  cleanups.push(() => service.close());
  return service;
}

/** A metric's value, read in the process (a scrape over HTTP would take a connection). */
async function metric(service: RunningService, line: string): Promise<number> {
  const text = await service.app.metrics.registry.metrics();
  const m = new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/** Opens a connection and sends `head`, leaving it open; the socket collects what comes back. */
function hold(url: string, head: string): Socket & { received: string } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname) as Socket & { received: string };
  socket.received = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => {
    socket.received += d;
  });
  socket.on('error', () => {});
  socket.write(head);
  cleanups.push(() => socket.destroy());
  return socket;
}

/** One request on a new connection (`Connection: close`): its status and body. */
function ask(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const socket = hold(url, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    socket.on('close', () => {
      const [head = '', ...rest] = socket.received.split('\r\n\r\n');
      done({ status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') });
    });
    socket.on('error', fail);
  });
}

describe('probes are answered while the connection cap is full', () => {
  it('of slow bodies (512 connections, the default cap): the oldest slow body makes room, and says so', async () => {
    const service = await serve();
    const slow = Array.from({ length: 512 }, () =>
      hold(
        service.url,
        'POST /api/compose HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"role":',
      ),
    );
    // Every one of them has a request in progress, its body still arriving.
    await waitFor(async () =>
      (await metric(service, 'strata_http_requests_in_flight')) >= 512 ? true : undefined,
    );
    for (let i = 0; i < 27; i++) {
      const probe = await ask(service.url, i % 2 === 0 ? '/healthz' : '/readyz');
      expect(probe.status, `probe ${i}`).toBe(200);
    }
    // Room was made by shedding the oldest slow bodies (one frees a slot each probe reuses,
    // once the previous probe's connection is closed), told why; the newest still wait.
    const shed = await metric(service, 'strata_connections_shed_total{reason="slow_body"}');
    expect(shed).toBeGreaterThanOrEqual(1);
    expect(shed).toBeLessThanOrEqual(27);
    await waitFor(() => (slow[0]!.destroyed ? true : undefined));
    expect(slow[0]!.received).toContain('HTTP/1.1 503 Service Unavailable');
    expect(slow[0]!.received).toContain('"code":"TOO_MANY_CONNECTIONS"');
    expect(slow[511]!.destroyed).toBe(false);
  });

  it('of busy ones (event streams): a probe gets a reserve connection, any other request there is 503', async () => {
    const service = await serve({ maxConnections: 16, probeConnections: 2 });
    for (let i = 0; i < 16; i++) hold(service.url, 'GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await waitFor(async () =>
      (await metric(service, 'strata_http_requests_in_flight')) >= 16 ? true : undefined,
    );
    expect((await ask(service.url, '/healthz')).status).toBe(200);
    expect((await ask(service.url, '/readyz')).status).toBe(200);
    const other = await ask(service.url, '/api/roles');
    expect(other.status).toBe(503);
    expect(JSON.parse(other.body).error.code).toBe('TOO_MANY_CONNECTIONS');
    expect(await metric(service, 'strata_connections_shed_total{reason="not_probe"}')).toBe(1);
    // The reserve full (two held open), a new connection is refused.
    for (let i = 0; i < 2; i++) hold(service.url, '');
    await waitFor(async () =>
      (await metric(service, 'strata_connections_probe_reserve')) === 2 ? true : undefined,
    );
    expect((await ask(service.url, '/healthz')).status).toBe(503);
    expect(await metric(service, 'strata_connections_shed_total{reason="refused"}')).toBe(1);
  });
});

describe('requests in flight', () => {
  it('a POST whose client goes away mid-body, or sends too much, is let go; kept-alive answers count down too', async () => {
    const service = await serve();
    const inFlight = () => metric(service, 'strata_http_requests_in_flight');
    const cut = Array.from({ length: 3 }, () =>
      hold(
        service.url,
        'POST /api/compose HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"role":',
      ),
    );
    await waitFor(async () => ((await inFlight()) === 3 ? true : undefined));
    for (const socket of cut) socket.destroy();
    await waitFor(async () => ((await inFlight()) === 0 ? true : undefined));
    // Over the limit as it streams (no Content-Length): 413, the connection closed.
    const big = hold(
      service.url,
      `POST /api/compose HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${(200_000).toString(16)}\r\n${'x'.repeat(200_000)}\r\n`,
    );
    await waitFor(() => (big.destroyed || big.readableEnded ? true : undefined));
    expect(big.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(big.received).toContain('"code":"BODY_TOO_LARGE"');
    // Three answers on one kept-alive connection.
    const body = JSON.stringify({ role: 'writer' });
    const post = `POST /api/compose HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const kept = hold(service.url, post + post + post);
    await waitFor(() => (kept.received.split('HTTP/1.1 200 ').length === 4 ? true : undefined));
    await waitFor(async () => ((await inFlight()) === 0 ? true : undefined));
    expect((await ask(service.url, '/api/prompts/writer')).status).toBe(200);
  });
});
