import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/cli/atomic-write.js';
import { DEFAULT_CACHE_BYTES } from '../../src/engine/cache.js';
import { defaultEngine } from '../../src/engine/default-engine.js';
import { createEngine } from '../../src/engine/engine.js';
import { stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { createApp } from '../../src/server/app.js';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { copyFixture, MINI, waitFor } from './helpers.js';

// One test per finding of the red-team pass on the service side (issue "hostile
// clients"), each written from its reproduction.

let service: RunningService;
let base: string;

beforeAll(async () => {
  const started = await startService({
    dir: MINI,
    env: {},
    port: 0,
    watch: false,
    connections: { maxConnections: 16 },
  });
  if (!started.ok) throw new Error('service did not start');
  service = started.service;
  base = service.url;
});

afterAll(async () => {
  await service?.close();
  await short?.close();
});

/** A service with short header and request timeouts. */
let short: RunningService;
beforeAll(async () => {
  const started = await startService({
    dir: MINI,
    env: {},
    port: 0,
    watch: false,
    connections: { headersTimeoutMs: 400, requestTimeoutMs: 800 },
  });
  if (!started.ok) throw new Error('service did not start');
  short = started.service;
});

describe('hostile clients', () => {
  it('a 64 KB whitespace-free ambient does not freeze the service: /healthz answers while it is counted', async () => {
    for (const unit of ['x', '中']) {
      const ambient = unit.repeat(unit === 'x' ? 60_000 : 20_000);
      let done = false;
      const compose = fetch(`${base}/api/compose`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'writer', ambient }),
      }).then(async (res) => {
        done = true;
        const body = (await res.json()) as {
          tokens?: { total: number };
          diagnostics: Array<{ code: string }>;
        };
        return { status: res.status, body };
      });
      let answeredMeanwhile = 0;
      while (!done) {
        const probe = await fetch(`${base}/healthz`);
        expect(await probe.json()).toEqual({ ok: true });
        if (!done) answeredMeanwhile++;
        await new Promise((r) => setTimeout(r, 5));
      }
      const { status, body } = await compose;
      expect(status).toBe(200);
      // Counted, or — on a machine whose cores other work keeps busy, where the counting
      // thread (SCHED_IDLE) waits — answered within its token budget without the counts.
      if (body.tokens) expect(body.tokens.total).toBeGreaterThan(0);
      else expect(body.diagnostics.map((d) => d.code)).toContain('TOKEN_BUDGET_EXCEEDED');
      // Not a count within a time: one answer while the count runs shows the loop is free.
      expect(answeredMeanwhile).toBeGreaterThanOrEqual(1);
    }
  });

  it('a 256 KB line without a pre-token break is counted (exactly) in linear time, not quadratic', () => {
    const tk = getTokenizer('o200k_base');
    expect(tk.count('x'.repeat(256 * 1024))).toBe(32_768);
    expect(tk.count('='.repeat(256 * 1024))).toBe(tk.count('='.repeat(128 * 1024)) * 2);
  });

  it("the render cache is bounded by bytes, whatever the prompts and the number of variants, in the service's own engine", async () => {
    const { dir, cleanup } = await copyFixture();
    try {
      await writeFile(join(dir, 'base.md'), `${'Base line of a large prompt.\n'.repeat(8000)}`); // ~230 KB
      const engine = createEngine({ cacheBytes: 2 * 1024 * 1024 });
      const store = new SnapshotStore(stablePackLoader({ dir, env: {}, engine }), { engine });
      await store.reload('initial');
      const { app } = createApp({ store, heartbeatMs: 0 });
      const before = defaultEngine.cacheUsage();
      for (let i = 0; i < 40; i++) {
        const res = await app.request(`/api/prompts/writer?team=t${i}`);
        expect(res.status).toBe(200);
        expect(engine.cacheUsage().bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
      }
      expect(engine.cacheUsage().entries).toBeGreaterThan(0);
      // Nothing of it went to the library's shared engine, whose budget is its own.
      expect(defaultEngine.cacheUsage().maxBytes).toBe(DEFAULT_CACHE_BYTES);
      expect(defaultEngine.cacheUsage().entries).toBe(before.entries);
      const metrics = await (await app.request('/metrics')).text();
      const held = Number(/^strata_cache_bytes (\d+)$/m.exec(metrics)?.[1]);
      expect(held).toBeGreaterThan(0);
      expect(held).toBeLessThanOrEqual(2 * 1024 * 1024);
      expect(metrics).toMatch(/^strata_cache_budget_bytes 2097152$/m);
    } finally {
      await cleanup();
    }
  });

  it('startService({ cacheBytes }) gives the service its budget and leaves the library default alone', async () => {
    const started = await startService({
      dir: MINI,
      env: {},
      port: 0,
      watch: false,
      cacheBytes: 3 * 1024 * 1024,
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    try {
      expect(started.service.store.engine.cacheUsage().maxBytes).toBe(3 * 1024 * 1024);
      expect(defaultEngine.cacheUsage().maxBytes).toBe(DEFAULT_CACHE_BYTES);
      const metrics = await (await fetch(`${started.service.url}/metrics`)).text();
      expect(metrics).toMatch(/^strata_cache_budget_bytes 3145728$/m);
    } finally {
      await started.service.close();
    }
  });

  it('set.__proto__ in the query and "__proto__" in body settings are refused with 400, not ignored', async () => {
    const query = await fetch(`${base}/api/prompts/writer?set.__proto__=x`);
    expect(query.status).toBe(400);
    expect(((await query.json()) as { error: { code: string } }).error.code).toBe('UNKNOWN_SETTING');
    const body = await fetch(`${base}/api/compose`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"role":"writer","settings":{"__proto__":{"polluted":true}}}',
    });
    expect(body.status).toBe(400);
    expect(((await body.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
  });

  it('POST /api/teams/compose refuses an agent that is not in the fleet, as the single-agent route does', async () => {
    const res = await fetch(`${base}/api/teams/compose`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ members: [{ agent: 'w1' }, { agent: 'nobody' }] }),
    });
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('UNKNOWN_AGENT');
    expect(error.message).toContain('member 1');
  });

  it('a slow body does not hold its socket: the request timeout closes it', async () => {
    const socket = await open(short.url);
    socket.write(
      'POST /api/compose HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ro',
    );
    const reply = await closed(socket);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it('slow headers do not hold their socket: the headers timeout closes it', async () => {
    const socket = await open(short.url);
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const reply = await closed(socket);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it('many slow-header connections cannot lock out /healthz: over the cap, the oldest idle ones are closed', async () => {
    const sockets: Socket[] = [];
    const closedCount = { n: 0 };
    for (let i = 0; i < 40; i++) {
      const s = await open(base);
      s.on('close', () => closedCount.n++);
      s.write('GET /healthz HTTP/1.1\r\n');
      sockets.push(s);
    }
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    await waitFor(
      () => (closedCount.n >= 24 ? true : undefined),
      30_000,
      'connections over the cap to close',
    );
    for (const s of sockets) s.destroy();
  });

  it('answers carry nosniff, frame and content-security headers', async () => {
    for (const path of ['/', '/healthz', '/api/prompts/writer', '/api/prompts/writer']) {
      const res = await fetch(`${base}${path}`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('a Host that is not a loopback name or an IP literal is refused (DNS rebinding), and so is a foreign Origin on POST', async () => {
    const rebind = await raw(
      base,
      'GET /api/prompts/writer HTTP/1.1\r\nHost: evil.example:7411\r\nConnection: close\r\n\r\n',
    );
    expect(rebind).toMatch(/^HTTP\/1\.1 403/);
    expect(rebind).toContain('HOST_NOT_ALLOWED');
    const ok = await raw(base, 'GET /healthz HTTP/1.1\r\nHost: localhost:7411\r\nConnection: close\r\n\r\n');
    expect(ok).toMatch(/^HTTP\/1\.1 200/);
    const post = await fetch(`${base}/api/compose`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{"role":"writer"}',
    });
    expect(post.status).toBe(403);
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('ORIGIN_NOT_ALLOWED');
  });
});

describe('hostile clients: shutdown', () => {
  it('a request in flight at shutdown is answered in full with Connection: close', async () => {
    const started = await startService({ dir: MINI, env: {}, port: 0, watch: false });
    if (!started.ok) throw new Error('service did not start');
    const body = '{"role":"writer"}';
    const socket = await open(started.service.url);
    let reply = '';
    socket.on('data', (d) => {
      reply += d;
    });
    // `Expect: 100-continue`: the server answers 100 once the request is handed to the
    // service, so the test knows it is in flight (no guess at how long that takes).
    socket.write(
      `POST /api/compose HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 5)}`,
    );
    await waitFor(() => (reply.includes('\r\n\r\n') ? true : undefined), 30_000, '100 Continue');
    expect(reply).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    reply = '';
    const closing = started.service.close();
    socket.write(body.slice(5));
    await new Promise((r) => socket.once('close', r));
    await closing;
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply.toLowerCase()).toContain('connection: close');
    expect(reply).toContain('"role":"writer"');
  });
});

describe('hostile runs: a killed export', () => {
  it('leaves a temporary file that the next write to the same target removes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-export-'));
    try {
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
        encoding: 'utf8',
      });
      const stale = `.CLAUDE.md.${gone.stdout}.deadbeef.tmp`;
      await writeFile(join(dir, stale), 'half');
      await writeFileAtomic(join(dir, 'CLAUDE.md'), 'whole');
      expect(await readdir(dir)).toEqual(['CLAUDE.md']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Node emits no 'close' for the answers of pipelined requests queued behind one the client
// is not reading: when such a client left, the connection guard kept each of them (its
// request, answer and socket) in flight for good. Twenty connections pipelining 5,000
// requests each and leaving grew the heap by 70 MB a time, and the in-flight gauge never
// came down.
describe('pipelined requests of a client that leaves', () => {
  it('are let go with their connection: nothing stays in flight', async () => {
    const pack = await copyFixture();
    // Answers far larger than what the socket buffers take, so most wait in Node's queue.
    await writeFile(join(pack.dir, 'roles', 'writer.md'), 'w'.repeat(100_000));
    // Silent: the requests of the gone client are still composed when the service closes.
    const big = await startService({
      dir: pack.dir,
      env: {},
      port: 0,
      watch: false,
      logger: pino({ level: 'silent' }),
      // Within the limit on requests in progress on one connection, so they are answered.
      connections: { maxPipelined: 1000 },
    });
    try {
      if (!big.ok) throw new Error('service did not start');
      const inFlight = async () =>
        Number(
          /^strata_http_requests_in_flight (\d+)$/m.exec(
            await (await fetch(`${big.service.url}/metrics`)).text(),
          )![1],
        );
      const socket = await open(big.service.url);
      socket.pause();
      socket.on('error', () => undefined);
      socket.write(
        'GET /api/prompts/writer HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n'.repeat(400),
      );
      // The metrics request is one in flight itself.
      await waitFor(
        async () => ((await inFlight()) > 50 ? true : undefined),
        10_000,
        'pipelined requests in flight',
      );
      socket.destroy();
      await waitFor(
        async () => ((await inFlight()) === 1 ? true : undefined),
        10_000,
        'nothing left in flight',
      );
      expect(await inFlight()).toBe(1);
    } finally {
      if (big.ok) await big.service.close();
      await pack.cleanup();
    }
  });
});

// Node parses every request of a read before it stops reading a client that reads no
// answers: one 64 KB write of pipelined requests put a thousand in progress on one
// connection (and 512 connections half a million). Past --max-pipelined the connection
// is closed and what it sent dropped.
describe('a connection pipelining more requests than --max-pipelined', () => {
  it('is closed, counted and logged; one within the limit gets every answer', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const started = await startService({
      dir: MINI,
      env: {},
      port: 0,
      watch: false,
      logger,
      connections: { maxPipelined: 8 },
    });
    if (!started.ok) throw new Error('service did not start');
    const { url } = started.service;
    try {
      const healthz = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';
      // Eight at once, read: eight answers.
      const eight = await raw(
        url,
        healthz.repeat(7) + healthz.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'),
      );
      expect(eight.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(8);
      // A hundred at once: the connection is closed at the ninth, before all are answered.
      const socket = await open(url);
      const reply = closed(socket);
      socket.write(healthz.repeat(100));
      const answers = (await reply).match(/HTTP\/1\.1 200 OK/g) ?? [];
      expect(answers.length).toBeLessThanOrEqual(8);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^strata_connections_shed_total\{reason="pipelined"\} 1$/m);
      expect(lines.map((l) => JSON.parse(l).code)).toContain('PIPELINE_TOO_DEEP');
    } finally {
      await started.service.close();
    }
  });
});

// --- helpers ---

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server writes until it closes the socket. */
function closed(socket: Socket): Promise<string> {
  let data = '';
  socket.on('data', (d) => {
    data += d;
  });
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve(data)));
}

async function raw(url: string, request: string): Promise<string> {
  const socket = await open(url);
  const reply = closed(socket);
  socket.write(request);
  return reply;
}
