import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SseParser } from '../src/client/sse.js';
import {
  autocannon,
  fmt,
  replayHeaders,
  type Child as Server,
  startChild,
  startCounted,
} from './children.js';
import { machine } from './measure.js';

/**
 * `npm run bench:http`: the prompt service over loopback (autocannon), against a bare
 * node:http server answering the same bytes in the same run (precomputed; a one-off
 * answer's with the request's own id put in and its ETag made again), for each kind
 * of prompt request (GET text and JSON, the `version`, `format`, `strict` and `ambient`
 * variants, `POST /api/compose`): the rate, the p99 and the server process's CPU time
 * per request; then the reload latency from a file write to the SSE `reload` event, over
 * 50 edits. Both servers run in their own processes; autocannon runs here.
 * `BENCH_SECONDS` sets the seconds per run (default 5; 0 skips the timed runs), `BENCH_ROWS=0,7`
 * the rows; `BENCH_INSTRUCTIONS=N` adds each row's instructions per request (callgrind).
 */

/**
 * The baseline: node:http answering precomputed bytes — the same status, body and
 * response headers strata sent for each request of the run (by method, URL and whether
 * Accept asks for text), reading a POST's body whole first. Replaying the headers too
 * matters on a 2-core machine, where the load generator's parsing shares the CPU. A
 * POST's answer is looked up by its body too; a request's one-off id is read as the
 * placeholder it replaced.
 */
const BARE_SERVER = `
const http = require('node:http');
const { hash } = require('node:crypto');
// The id the answers were asked with (send() below), where a one-off answer holds it.
const ASKED = '~' + 'x'.repeat(33) + '~';
const answers = new Map(JSON.parse(require('node:fs').readFileSync(process.env.BENCH_ANSWERS, 'utf8')).map((a) => [a.key, oneOff({ ...a, body: Buffer.from(a.body, 'base64') })]));
// A request's one-off id (autocannon's [<id>], between tildes) is read as the placeholder.
const ID = /~[^~]*~/g;
/** A one-off answer (its text holds the id it was asked with) keeps its text, and whether its ETag is the text's sha256. */
function oneOff(a) {
  const text = a.body.toString();
  if (!text.includes(ASKED)) return a;
  return { ...a, text, hashed: a.headers.etag === '"' + hash('sha256', text) + '"' };
}
const server = http.createServer((req, res) => {
  if (req.url === '/readyz') return res.end('ok');
  const send = (body) => {
    const key = req.method + ' ' + req.url.replace(ID, '~[%3Cid%3E]~') + ' ' + (req.headers.accept || '').includes('text/plain') + ' ' + body.replace(ID, '~[<id>]~');
    const answer = answers.get(key);
    if (answer.text === undefined) {
      res.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
      return res.end(answer.body);
    }
    // The same bytes as the service's one-off answer: this request's id in the text, and
    // the ETag of that text.
    const id = (req.url.match(ID) || body.match(ID))[0];
    const text = answer.text.replace(ASKED, req.method === 'GET' ? decodeURIComponent(id) : id);
    const bytes = Buffer.from(text);
    const headers = { ...answer.headers, 'content-length': bytes.length };
    if (answer.hashed) headers.etag = '"' + hash('sha256', text) + '"';
    res.writeHead(answer.status, headers);
    res.end(bytes);
  };
  if (req.method === 'POST') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => send(body));
  } else send('');
});
server.listen(Number(process.env.BENCH_PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/** One request of the run: the same on both servers. */
interface Variant {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  accept: string;
  body?: string;
}

const ROOT = join(import.meta.dirname, '..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
/** Runs of each server per row, alternating; the row gives their medians. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 20;
const EDITS = 50;
/** `BENCH_INSTRUCTIONS=N`: also count each row's instructions per request over N requests (callgrind). */
const INSTRUCTIONS = Number(process.env.BENCH_INSTRUCTIONS ?? 0);
/** Counts of N requests per server and row; the least is kept. */
const COUNTS = 5;
/** Ambient text of the ambient rows: composed into a fresh prompt on every request. */
const AMBIENT = 'The release is on Friday; the CI queue is long today.';

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
const strata = await startChild(ROOT, base, serveArgs('info'));
try {
  // 1. The bytes both servers answer, for every request of the run.
  const path = '/api/prompts/developer?team=platform';
  const post = (body: object) => ({
    method: 'POST' as const,
    path: '/api/compose',
    body: JSON.stringify(body),
  });
  const variants: Variant[] = [
    { label: 'text', method: 'GET', path, accept: 'text/plain' },
    { label: 'JSON', method: 'GET', path, accept: 'application/json' },
    {
      label: 'JSON, `version=current`',
      method: 'GET',
      path: `${path}&version=current`,
      accept: 'application/json',
    },
    { label: '`format=openai`', method: 'GET', path: `${path}&format=openai`, accept: 'application/json' },
    {
      label: '`format=anthropic`',
      method: 'GET',
      path: `${path}&format=anthropic`,
      accept: 'application/json',
    },
    { label: 'JSON, `strict=true`', method: 'GET', path: `${path}&strict=true`, accept: 'application/json' },
    {
      label: 'text, `ambient=…`, the same text each time',
      method: 'GET',
      path: `${path}&ambient=${encodeURIComponent(AMBIENT)}`,
      accept: 'text/plain',
    },
    {
      label: 'text, `ambient=…`, a new text each time (composed each time)',
      method: 'GET',
      // autocannon writes a new id for the placeholder in every request.
      path: `${path}&ambient=${encodeURIComponent(AMBIENT)}~[%3Cid%3E]~`,
      accept: 'text/plain',
    },
    {
      label: 'POST /api/compose, JSON',
      ...post({ role: 'developer', team: 'platform' }),
      accept: 'application/json',
    },
    {
      label: 'POST /api/compose, text',
      ...post({ role: 'developer', team: 'platform' }),
      accept: 'text/plain',
    },
    {
      label: 'POST /api/compose, `format=anthropic`',
      ...post({ role: 'developer', team: 'platform', format: 'anthropic' }),
      accept: 'application/json',
    },
    {
      label: 'POST /api/compose, settings + `strict`',
      ...post({ role: 'developer', team: 'platform', settings: { fable_mode_enabled: 'on' }, strict: true }),
      accept: 'application/json',
    },
    {
      label: 'POST /api/compose, `ambient`, the same text each time',
      ...post({ role: 'developer', team: 'platform', ambient: AMBIENT }),
      accept: 'text/plain',
    },
    {
      label: 'POST /api/compose, `ambient`, a new text each time (composed each time)',
      ...post({ role: 'developer', team: 'platform', ambient: `${AMBIENT} ~[<id>]~` }),
      accept: 'text/plain',
    },
  ];
  const answers: Array<{ key: string; status: number; headers: Record<string, string>; body: string }> = [];
  for (const v of variants) {
    const res = await send(strata.url, v);
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${v.label}: ${res.status} ${body}`);
    answers.push({
      key: `${v.method} ${v.path} ${v.accept.includes('text/plain')} ${v.body ?? ''}`,
      status: res.status,
      headers: replayHeaders(res.headers),
      body: body.toString('base64'),
    });
  }
  const answersFile = join(base, 'answers.json');
  await writeFile(answersFile, JSON.stringify(answers));
  const bare = await startChild(ROOT, base, ['-e', BARE_SERVER], { BENCH_ANSWERS: answersFile });
  // Both answer the same bytes: a one-off request's too, with an id other than the one the
  // answers were asked with.
  for (const v of variants) {
    const [a, b] = await Promise.all([send(strata.url, v, 'y'), send(bare.url, v, 'y')]);
    const [ab, bb] = await Promise.all([a.text(), b.text()]);
    if (ab !== bb || a.headers.get('etag') !== b.headers.get('etag'))
      throw new Error(`${v.label}: the bare server's answer differs from the service's`);
  }
  const quiet = await startChild(ROOT, base, serveArgs('warn'));
  try {
    // The quiet service answers every request of the run first too, as the main one did
    // while the answers were collected: measured on the first rows only, it was otherwise
    // a younger process than the one it is compared with.
    for (const v of variants) await send(quiet.url, v);
    await load(quiet, variants[0]!, 3);
    // 2. Throughput and p99, alternating servers so machine noise hits both alike.
    const rows: string[][] = [];
    const loadBefore = loadavg()
      .map((n) => n.toFixed(2))
      .join(' / ');
    const only = process.env.BENCH_ROWS ? process.env.BENCH_ROWS.split(',').map(Number) : undefined;
    for (const [i, v] of variants.entries()) {
      if (only && !only.includes(i)) continue;
      if (DURATION === 0) break; // instructions only
      const servers =
        i < 2
          ? ([
              [strata, 'access log on (info, default)'],
              [quiet, 'access log off (warn)'],
            ] as const)
          : ([[strata, '']] as const);
      for (const [server, logs] of servers) {
        await send(server.url, v); // fill the render cache
        // A short warm-up of each, so neither is measured while its code is still being compiled.
        await load(bare, v, 1);
        await load(server, v, 1);
        const runs: Array<{ s: Load; b: Load }> = [];
        for (let round = 0; round < ROUNDS; round++)
          runs.push({ b: await load(bare, v), s: await load(server, v) });
        const s = median(runs.map((r) => r.s));
        const b = median(runs.map((r) => r.b));
        const ratios = runs.map((r) => r.b.cpuUs / r.s.cpuUs).sort((x, y) => x - y);
        rows.push([
          `${v.method === 'GET' ? 'GET ' : ''}${v.label}${logs ? `, ${logs}` : ''}`,
          fmt(s.rps),
          `${s.p99} ms`,
          fmt(b.rps),
          `${b.p99} ms`,
          (s.rps / b.rps).toFixed(2),
          b.p99 > 0 ? (s.p99 / b.p99).toFixed(2) : '—',
          `${s.cpuUs.toFixed(0)} / ${b.cpuUs.toFixed(0)} µs`,
          `**${(b.cpuUs / s.cpuUs).toFixed(2)}** (${ratios[0]!.toFixed(2)}–${ratios.at(-1)!.toFixed(2)})`,
        ]);
        const errors = runs.reduce((n, r) => n + r.s.errors + r.b.errors, 0);
        if (errors) console.log(`errors: ${errors}`);
      }
    }
    if (rows.length > 0) printRows();
    function printRows() {
      console.log(
        `\n${path} on examples/roboco; ${ROUNDS} runs of each server per row, alternating (medians; the CPU ratio's range over the runs in brackets); load average before: ${loadBefore}\n`,
      );
      console.log(
        '| request | strata req/s | strata p99 | bare node:http req/s | bare p99 | req/s ratio | p99 ratio | CPU per request, strata / bare | CPU ratio (bare ÷ strata) |',
      );
      console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
      for (const r of rows) console.log(`| ${r.join(' | ')} |`);
      console.log(
        `load average after: ${loadavg()
          .map((n) => n.toFixed(2))
          .join(' / ')}`,
      );
    }
    if (INSTRUCTIONS > 0) await instructionRows(variants, only, answersFile);
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

/**
 * `BENCH_INSTRUCTIONS=N`: each row's user-space instructions per request, strata (access
 * log on) against the bare server, counted by callgrind: for each row, both servers
 * started afresh under it, sent 3N requests unmeasured, then counted over N requests
 * five times, the least count kept. The first two counts after counting starts read high
 * on both servers (node runs slower while counted, and its collector and compiler
 * settle again), and a count that meets a full collection reads high: the least of five
 * is each server's settled cost. What each server does per request, which the host's
 * noise does not move (CPU time leaves out none of that work, but adds the kernel's part
 * and the host's weather). Needs valgrind; slow (about two minutes a row).
 */
async function instructionRows(variants: Variant[], only: number[] | undefined, answersFile: string) {
  const dir = await mkdtemp(join(tmpdir(), 'strata-bench-ir-'));
  try {
    console.log(
      `\nuser-space instructions per request (callgrind; each server fresh for each row, ${3 * INSTRUCTIONS} requests unmeasured, then the least of ${COUNTS} counts over ${INSTRUCTIONS}; ${CONNECTIONS} connections; load average ${loadavg()[0]!.toFixed(2)})\n`,
    );
    console.log('| request | strata | bare node:http | **ratio (bare ÷ strata)** |');
    console.log('| --- | --- | --- | --- |');
    for (const [i, v] of variants.entries()) {
      if (only && !only.includes(i)) continue;
      const per: number[] = [];
      for (const args of [
        [join(ROOT, 'dist/bin/strata.js'), 'serve', '--dir', pack, '--log-level', 'info', '--no-watch'],
        ['-e', BARE_SERVER],
      ]) {
        const server = await startCounted(ROOT, dir, args, { BENCH_ANSWERS: answersFile });
        try {
          await cannon(server, v, 3 * INSTRUCTIONS);
          const counts = [];
          for (let n = 0; n < COUNTS; n++)
            counts.push(await server.count(() => cannon(server, v, INSTRUCTIONS)));
          per.push(Math.min(...counts) / INSTRUCTIONS);
        } finally {
          await server.stop();
        }
      }
      const [s, b] = per as [number, number];
      console.log(
        `| ${v.method === 'GET' ? 'GET ' : ''}${v.label} | ${fmt(s)} | ${fmt(b)} | **${(b / s).toFixed(2)}** |`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `amount` requests of a variant (a new id in each where it has a placeholder). */
function cannon(server: Server, v: Variant, amount: number) {
  const headers: Record<string, string> = { accept: v.accept };
  if (v.body !== undefined) headers['content-type'] = 'application/json';
  return autocannon({
    url: server.url + v.path,
    connections: CONNECTIONS,
    amount,
    headers,
    method: v.method,
    body: v.body,
    idReplacement: `${v.path}${v.body}`.includes('<id>') || v.path.includes('%3Cid%3E'),
  });
}

/**
 * autocannon against one server for `duration` seconds: its rate, p99 and errors, and the
 * server process's CPU time per answered request (µs), which a busy shared machine moves
 * far less than the rate: the ratio of those is the servers' own cost per request.
 */
interface Load {
  rps: number;
  p99: number;
  errors: number;
  cpuUs: number;
}

/** The run with the median CPU per request. */
function median(runs: Load[]): Load {
  const sorted = [...runs].sort((a, b) => a.cpuUs - b.cpuUs);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

async function load(server: Server, v: Variant, duration = DURATION): Promise<Load> {
  const headers: Record<string, string> = { accept: v.accept };
  if (v.body !== undefined) headers['content-type'] = 'application/json';
  const before = server.cpuMs();
  const result = await autocannon({
    url: server.url + v.path,
    connections: CONNECTIONS,
    duration,
    headers,
    method: v.method,
    body: v.body,
    // A new id in each request for the placeholder, where there is one.
    idReplacement: `${v.path}${v.body}`.includes('<id>') || v.path.includes('%3Cid%3E'),
  });
  const cpuUs = ((server.cpuMs() - before) * 1000) / Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuUs,
  };
}

/** One request of a variant, its placeholder (if any) given an id of autocannon's length. */
function send(url: string, v: Variant, letter = 'x'): Promise<Response> {
  const headers: Record<string, string> = { accept: v.accept };
  if (v.body !== undefined) headers['content-type'] = 'application/json';
  const id = letter.repeat(33);
  return fetch(url + v.path.replace('[%3Cid%3E]', id), {
    method: v.method,
    headers,
    body: v.body?.replace('[<id>]', id),
  });
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
