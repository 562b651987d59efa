import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SseParser } from '../src/client/sse.js';
import { machine } from './measure.js';

/**
 * `npm run bench:http`: the prompt service over loopback (autocannon), against a bare
 * node:http server answering the same precomputed bytes in the same run; then the
 * reload latency from a file write to the SSE `reload` event, over 50 edits.
 * Both servers run in their own processes; autocannon runs here.
 */
interface CannonResult {
  requests: { average: number };
  latency: { p99: number };
  errors: number;
  non2xx: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<CannonResult>;

/**
 * The baseline: node:http answering precomputed bytes — the same body and the same
 * response headers strata sends — choosing text or JSON by Accept. Replaying the headers
 * too matters on a 2-core machine, where the load generator's parsing shares the CPU.
 */
const BARE_SERVER = `
const http = require('node:http');
const text = Buffer.from(process.env.BENCH_TEXT);
const json = Buffer.from(process.env.BENCH_JSON);
const textHeaders = JSON.parse(process.env.BENCH_TEXT_HEADERS);
const jsonHeaders = JSON.parse(process.env.BENCH_JSON_HEADERS);
const server = http.createServer((req, res) => {
  if (req.url === '/readyz') return res.end('ok');
  const wantsText = (req.headers.accept || '').includes('text/plain');
  const body = wantsText ? text : json;
  res.writeHead(200, { ...(wantsText ? textHeaders : jsonHeaders), 'content-length': body.length });
  res.end(body);
});
server.listen(Number(process.env.BENCH_PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

const ROOT = join(import.meta.dirname, '..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;
const EDITS = 50;

console.log(
  `machine: ${machine()}; ${new Date().toISOString().slice(0, 10)}; ${DURATION}s per run, ${CONNECTIONS} connections`,
);

const base = await mkdtemp(join(tmpdir(), 'strata-bench-'));
const pack = join(base, 'roboco');
await cp(join(ROOT, 'examples', 'roboco'), pack, { recursive: true });
// The built service, as `npm start` runs it (the script builds first).
const serveArgs = (level: string) => [
  join(ROOT, 'dist/bin/strata.js'),
  'serve',
  '--dir',
  pack,
  '--log-level',
  level,
];
const strata = await start(serveArgs('info'));
try {
  // 1. The bytes both servers answer.
  const path = '/api/prompts/developer?team=platform';
  const textRes = await fetch(strata.url + path, { headers: { accept: 'text/plain' } });
  const jsonRes = await fetch(strata.url + path, { headers: { accept: 'application/json' } });
  const text = await textRes.text();
  const json = await jsonRes.text();
  const bare = await start(['-e', BARE_SERVER], {
    BENCH_TEXT: text,
    BENCH_JSON: json,
    BENCH_TEXT_HEADERS: JSON.stringify(replayHeaders(textRes.headers)),
    BENCH_JSON_HEADERS: JSON.stringify(replayHeaders(jsonRes.headers)),
  });
  const quiet = await start(serveArgs('warn'));
  try {
    // 2. Throughput and p99, alternating servers so machine noise hits both alike.
    const rows: string[][] = [];
    for (const [label, accept] of [
      ['text', 'text/plain'],
      ['JSON', 'application/json'],
    ] as const) {
      for (const [server, logs] of [
        [strata, 'access log on (info, default)'],
        [quiet, 'access log off (warn)'],
      ] as const) {
        await fetch(server.url + path, { headers: { accept } }); // fill the render cache
        // A short warm-up of each, so neither is measured while its code is still being compiled.
        await load(bare.url + path, accept, 1);
        await load(server.url + path, accept, 1);
        const b = await load(bare.url + path, accept);
        const s = await load(server.url + path, accept);
        rows.push([
          `${label}, ${logs}`,
          fmt(s.rps),
          `${s.p99} ms`,
          fmt(b.rps),
          `${b.p99} ms`,
          (s.rps / b.rps).toFixed(2),
          b.p99 > 0 ? (s.p99 / b.p99).toFixed(2) : '—',
        ]);
        if (s.errors || b.errors) console.log(`errors: strata ${s.errors}, bare ${b.errors}`);
      }
    }
    console.log(`\nGET ${path} (${Buffer.byteLength(text)} B text, ${Buffer.byteLength(json)} B JSON)\n`);
    console.log(
      '| answer | strata req/s | strata p99 | bare node:http req/s | bare p99 | req/s ratio | p99 ratio |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  } finally {
    await bare.stop();
    await quiet.stop();
  }

  // 3. Reload latency: write → SSE reload event.
  const latencies = await reloadLatency(strata.url, join(pack, 'roles', 'developer.md'));
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(0);
  console.log(
    `\nreload latency, file write → SSE reload event (${EDITS} edits, default 100 ms debounce): p50 ${q(0.5)} ms, p99 ${q(0.99)} ms`,
  );
} finally {
  await strata.stop();
  await rm(base, { recursive: true, force: true });
}

// --- internal ---

/** The headers strata answered with, less those node:http adds itself. */
function replayHeaders(headers: Headers): Record<string, string> {
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!skip.has(name)) out[name] = value;
  });
  return out;
}

async function load(
  url: string,
  accept: string,
  duration = DURATION,
): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers: { accept } });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function reloadLatency(url: string, file: string): Promise<number[]> {
  const res = await fetch(`${url}/api/events`);
  const reader = res.body!.getReader();
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const nextEvent = async (name: string): Promise<void> => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error('event stream ended');
      if (parser.push(decoder.decode(value, { stream: true })).some((e) => e.event === name)) return;
    }
  };
  await nextEvent('hello');
  const out: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const started = performance.now();
    await writeFile(file, `# Developer\n\nEdit ${i}: you write code.\n`);
    await nextEvent('reload');
    out.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 150));
  }
  await reader.cancel();
  return out;
}

async function start(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; stop: () => Promise<void> }> {
  // A free port, then wait for it to answer. Logs go to a file, as in production:
  // reading them here would slow the load generator.
  const port = await freePort();
  const logFile = join(base, `server-${port}.log`);
  const fd = openSync(logFile, 'w');
  const portArgs = args[0] === '-e' ? [] : ['--port', String(port)];
  const child: ChildProcess = spawn(process.execPath, [...args, ...portArgs], {
    cwd: ROOT,
    env: { ...process.env, ...env, BENCH_PORT: String(port) },
    stdio: ['ignore', fd, 'inherit'],
  });
  closeSync(fd);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error(`server exited: ${args.join(' ')}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
