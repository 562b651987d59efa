import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { serviceOptions } from '../../src/cli/commands/serve.js';
import { UsageError } from '../../src/cli/io.js';
import { run } from '../../src/cli/run.js';
import { startService } from '../../src/server/node/start.js';
import { createLogger } from '../../src/server/service/logging.js';
import { MINI, ROOT, serveInProcess, waitFor } from './helpers.js';

// The request limits that `strata serve` takes as flags: parsed, refused when invalid,
// and applied over real HTTP at a small value.

const io = { env: {}, cwd: ROOT, stdout: () => {}, stderr: () => {} };
const FLAGS = {
  '--max-body-bytes': 'maxBodyBytes',
  '--max-query-ambient': 'maxQueryAmbient',
  '--max-team-members': 'maxTeamMembers',
  '--max-event-backlog': 'maxEventBacklog',
  '--shutdown-timeout': 'shutdownTimeoutMs',
} as const;

describe('connection limits given to the library', () => {
  it.each([
    ['maxConnections', 0],
    ['maxConnections', Number.NaN],
    ['maxPipelined', 1.5],
    ['headersTimeoutMs', -1],
    ['probeConnections', -1],
    ['maxLingerBytes', '16' as unknown as number],
  ])('%s: %s is a RangeError before anything starts', async (key, value) => {
    await expect(
      startService({ dir: MINI, env: {}, port: 0, watch: false, connections: { [key]: value } }),
    ).rejects.toThrow(
      new RangeError(
        `connections.${key} must be a whole number of at least ${key === 'probeConnections' ? 0 : 1}, not ${String(value)}`,
      ),
    );
  });

  it('probeConnections may be 0 (no reserve)', async () => {
    const started = await startService({
      dir: MINI,
      env: {},
      port: 0,
      watch: false,
      logger: createLogger({ level: 'silent' }),
      connections: { probeConnections: 0 },
    });
    expect(started.ok).toBe(true);
    if (started.ok) await started.service.close();
  });
});

describe('strata serve request limits', () => {
  it('passes each flag to the service, and leaves the defaults alone without it', () => {
    const options = serviceOptions(
      {
        dir: MINI,
        watch: false,
        maxBodyBytes: '100',
        maxQueryAmbient: '10',
        maxTeamMembers: '2',
        maxEventBacklog: '3',
        shutdownTimeout: '50',
      },
      io,
    );
    expect(options).toMatchObject({
      maxBodyBytes: 100,
      maxQueryAmbient: 10,
      maxTeamMembers: 2,
      maxEventBacklog: 3,
      shutdownTimeoutMs: 50,
    });
    const plain = serviceOptions({ dir: MINI, watch: false }, io);
    for (const key of Object.values(FLAGS)) expect(plain).not.toHaveProperty(key);
  });

  it.each(
    Object.keys(FLAGS).flatMap((flag) => [
      [flag, '0'],
      [flag, '-1'],
      [flag, 'abc'],
      [flag, '1.5'],
    ]),
  )('exits 2 with USAGE on %s %s', async (flag, value) => {
    let stderr = '';
    const code = await run(['serve', '--dir', MINI, '--port', '0', flag, value], {
      ...io,
      stderr: (s) => (stderr += s),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^error USAGE: ${flag} `));
  });

  it.each([
    ['--cors', 'https://*'],
    ['--cors', 'https://a.*.example.com'],
    ['--cors', '*.example.com'],
  ])('exits 2 with USAGE on %s %s, naming the patterns it reads', async (flag, value) => {
    let stderr = '';
    const code = await run(['serve', '--dir', MINI, '--port', '0', flag, value], {
      ...io,
      stderr: (s) => (stderr += s),
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      `error USAGE: --cors: CORS origin ${JSON.stringify(value)} is not an origin or a pattern strata reads: give scheme://host[:port] (no path), scheme://*.host[:port] for any one subdomain label of host, or *\n`,
    );
  });

  // An empty variable counts as unset. STRATA_HOST= bound every interface (Node reads the
  // empty address as none) and so turned the Host check off; STRATA_LOG_LEVEL= and
  // STRATA_LOG_FORMAT= were usage errors.
  it('an empty STRATA_HOST, STRATA_PORT, STRATA_LOG_LEVEL or STRATA_LOG_FORMAT counts as unset', async () => {
    const env = { STRATA_HOST: '', STRATA_PORT: '', STRATA_LOG_LEVEL: '', STRATA_LOG_FORMAT: '' };
    const options = serviceOptions({ dir: MINI, watch: false }, { ...io, env });
    expect([options.host, options.port]).toEqual(['127.0.0.1', 7411]);
    const service = await serveInProcess(['--dir', MINI, '--port', '0', '--no-watch'], env);
    try {
      expect(new URL(service.url).hostname).toBe('127.0.0.1');
      expect(service.logs().some((l) => JSON.parse(l).msg === 'listening')).toBe(true);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('refuses an --allowed-host (or STRATA_ALLOWED_HOSTS name) no Host could match as a usage error', () => {
    const message =
      '--allowed-host: allowed host "http://prompts.internal" is not a host name: give a name (prompts.internal), .example.com for its subdomains, or *; no scheme, port or path';
    expect(() =>
      serviceOptions({ dir: MINI, watch: false, allowedHost: ['http://prompts.internal'] }, io),
    ).toThrow(new UsageError(message));
    expect(() =>
      serviceOptions(
        { dir: MINI, watch: false },
        { ...io, env: { STRATA_ALLOWED_HOSTS: 'strata http://prompts.internal' } },
      ),
    ).toThrow(new UsageError(message));
  });

  it('refuses an empty --host as a usage error (exit 2), rather than binding every interface', () => {
    expect(() => serviceOptions({ dir: MINI, watch: false, host: '' }, io)).toThrow(
      new UsageError('--host must be an address or a host name, not ""'),
    );
  });

  // An empty value was read as the flag not given: --cache-bytes '' set the budget to 0
  // (every cache off), the others their default.
  it.each([
    ['cacheBytes', '--cache-bytes', 1099511627776],
    ['debounce', '--debounce', 2147483647],
    ['pollInterval', '--poll-interval', 2147483647],
    ['maxBodyBytes', '--max-body-bytes', 2147483647],
    ['port', '--port', 65535],
  ])('refuses an empty %s (%s "") as a usage error', (key, flag, max) => {
    expect(() => serviceOptions({ dir: MINI, watch: false, [key]: '' }, io)).toThrow(
      new UsageError(`${flag} must be an integer from 0 to ${max}, not ""`),
    );
  });

  it('answers over HTTP with the limits given, naming each and its flag', async () => {
    const service = await serveInProcess([
      '--dir',
      MINI,
      '--port',
      '0',
      '--no-watch',
      '--max-team-members',
      '2',
      '--max-query-ambient',
      '10',
      '--max-body-bytes',
      '200',
    ]);
    try {
      const team = (n: number) =>
        fetch(`${service.url}/api/teams/compose`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ members: Array.from({ length: n }, () => ({ agent: 'w1' })) }),
        });
      expect((await team(2)).status).toBe(200);
      const over = await team(3);
      expect(over.status).toBe(400);
      const teamError = ((await over.json()) as { error: { code: string; message: string } }).error;
      expect(teamError.code).toBe('BAD_REQUEST');
      expect(teamError.message).toMatch(/over the limit of 2 \(serve --max-team-members\)/);

      const prompt = (ambient: string) =>
        fetch(`${service.url}/api/prompts/writer?ambient=${ambient}`, { headers: { accept: 'text/plain' } });
      expect((await prompt('x'.repeat(10))).status).toBe(200);
      const agentOk = await fetch(`${service.url}/api/agents/w1/prompt?ambient=${'x'.repeat(10)}`);
      expect(agentOk.status).toBe(200);
      for (const res of [
        await prompt('x'.repeat(11)),
        await fetch(`${service.url}/api/agents/w1/prompt?ambient=${'x'.repeat(11)}`),
      ]) {
        expect(res.status).toBe(400);
        const error = ((await res.json()) as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('BAD_REQUEST');
        expect(error.message).toMatch(/11 characters, over the limit of 10 \(serve --max-query-ambient\)/);
      }

      const compose = (ambient: string) =>
        fetch(`${service.url}/api/compose`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ role: 'writer', ambient }),
        });
      expect((await compose('x'.repeat(100))).status).toBe(200);
      const large = await compose('x'.repeat(200));
      expect(large.status).toBe(413);
      expect(((await large.json()) as { error: { code: string } }).error.code).toBe('BODY_TOO_LARGE');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  // A URL is part of the request's head, which Node caps at 16 KiB by default: the
  // documented 32 Ki characters of `?ambient=` could never arrive, and the refusal said
  // "headers". The cap is a flag now, and the refusal says what counts and where to go.
  it('--max-header-bytes: a URL past the head limit is 431 naming the flag; a larger limit serves it', async () => {
    const ambient = 'x'.repeat(20_000);
    for (const [args, status] of [
      [[], 431],
      [['--max-header-bytes', String(64 * 1024)], 200],
    ] as const) {
      const service = await serveInProcess(['--dir', MINI, '--port', '0', '--no-watch', ...args]);
      try {
        const res = await fetch(`${service.url}/api/prompts/writer?ambient=${ambient}`, {
          headers: { accept: 'text/plain' },
        });
        expect(res.status).toBe(status);
        if (status === 431) {
          const error = ((await res.json()) as { error: { code: string; message: string } }).error;
          expect(error.code).toBe('HEADERS_TOO_LARGE');
          expect(error.message).toContain('over 16384 bytes (serve --max-header-bytes); a long URL counts');
        } else expect(await res.text()).toContain(ambient);
      } finally {
        expect(await service.stop()).toBe(0);
      }
    }
    const options = serviceOptions({ dir: MINI, watch: false, maxHeaderBytes: '65536' }, io);
    expect(options.connections).toEqual({ maxHeaderBytes: 65536 });
  });

  // A connection answered before its body was read (413) keeps reading and dropping that
  // body so the client reads the answer; how long and how much are flags like every limit.
  it('--linger-timeout and --max-linger-bytes: past the bytes, the connection is cut before the body ends', async () => {
    const options = serviceOptions(
      { dir: MINI, watch: false, lingerTimeout: '500', maxLingerBytes: '1024' },
      io,
    );
    expect(options.connections).toEqual({ lingerTimeoutMs: 500, maxLingerBytes: 1024 });
    expect(() => serviceOptions({ dir: MINI, watch: false, maxLingerBytes: '0' }, io)).toThrow(
      '--max-linger-bytes must be at least 1',
    );
    const service = await serveInProcess([
      ...['--dir', MINI, '--port', '0', '--no-watch'],
      ...['--max-body-bytes', '1000', '--max-linger-bytes', '1024'],
    ]);
    try {
      const { hostname, port } = new URL(service.url);
      const body = Buffer.alloc(8 * 1024 * 1024, 'a');
      const error = await new Promise<string | undefined>((resolve) => {
        const socket = connect(Number(port), hostname);
        let code: string | undefined;
        socket.on('data', () => {});
        socket.on('error', (e: NodeJS.ErrnoException) => {
          code = e.code;
        });
        socket.on('close', () => resolve(code));
        socket.write(
          `POST /api/compose HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        socket.write(body);
      });
      // Cut: the 8 MiB were not all read (with the default 16 MiB they are, and the client sees no error).
      expect(['ECONNRESET', 'EPIPE']).toContain(error);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('--max-pipelined: requests in progress on one connection; a positive integer', () => {
    expect(serviceOptions({ dir: MINI, watch: false, maxPipelined: '8' }, io).connections).toEqual({
      maxPipelined: 8,
    });
    expect(() => serviceOptions({ dir: MINI, watch: false, maxPipelined: '0' }, io)).toThrow(
      '--max-pipelined must be at least 1',
    );
  });

  it('--shutdown-timeout: shutdown waits that long for a request in flight, then cuts it', async () => {
    for (const [timeout, finish] of [
      ['1', false],
      ['600000', true],
    ] as const) {
      const service = await serveInProcess([
        '--dir',
        MINI,
        '--port',
        '0',
        '--no-watch',
        '--shutdown-timeout',
        timeout,
      ]);
      const { hostname, port } = new URL(service.url);
      // A body sent in part: the request stays in flight until it is finished or cut.
      const socket = connect(Number(port), hostname);
      let received = '';
      socket.on('data', (d: Buffer) => (received += d.toString()));
      socket.on('error', () => {});
      const closed = new Promise<void>((r) => socket.once('close', () => r()));
      const body = '{"role":"writer"}';
      socket.write(
        `POST /api/compose HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      // A round trip on another connection: the service has read the first one's headers.
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      const stopped = service.stop();
      if (finish) {
        // Still draining: the request in flight is answered once its body is whole.
        socket.write(body.slice(5));
        await closed;
        expect(received).toMatch(/^HTTP\/1\.1 200 /);
        expect(received).toMatch(/\r\nconnection: close\r\n/i);
      } else {
        await closed;
        expect(received).toBe('');
      }
      expect(await stopped).toBe(0);
    }
  });
});

describe('an event-stream client that stops reading, under --max-event-backlog', () => {
  it('is cut off with an EVENTS_CLIENT_TOO_SLOW warning, counted in the metrics', async () => {
    const lines: string[] = [];
    const started = await startService({
      dir: MINI,
      env: {},
      port: 0,
      watch: false,
      maxEventBacklog: 2,
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    if (!started.ok) throw new Error('service did not start');
    const service = started.service;
    const hub = service.app.service.events;
    try {
      const { hostname, port } = new URL(service.url);
      const stalled = connect(Number(port), hostname);
      stalled.write(`GET /api/events HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n\r\n`);
      stalled.pause();
      stalled.on('error', () => {});
      await waitFor(() => (hub.size === 1 ? true : undefined), 30_000, 'the stream');
      const pad = 'x'.repeat(64 * 1024);
      for (let i = 1; hub.size === 1 && i <= 2000; i++) {
        hub.publish('recovered', { version: `v${i}`, pad });
        if (i % 4 === 0) await new Promise((r) => setImmediate(r));
      }
      await waitFor(() => (hub.size === 0 ? true : undefined), 30_000, 'the stalled stream to be dropped');
      const warning = await waitFor(() => {
        const line = lines.find((l) => l.includes('EVENTS_CLIENT_TOO_SLOW'));
        return line === undefined ? undefined : JSON.parse(line);
      });
      expect(warning).toMatchObject({ level: 40, code: 'EVENTS_CLIENT_TOO_SLOW' });
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).toMatch(/^strata_sse_clients_dropped_total 1$/m);
      stalled.destroy();
    } finally {
      await service.close();
    }
  });
});
