import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { availableParallelism, setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_MAX_PROMPT_BYTES as MAX_PROMPT_BYTES } from '../src/core/compose/prompt-limit.js';
import { DEFAULT_CACHE_BYTES } from '../src/engine/cache.js';
import { COPIES_IN_FLIGHT, EXTERNAL_GC_STEP, memoryBound } from '../src/server/answers/memory-bound.js';
import { DEFAULT_MAX_RENDERS } from '../src/server/service/render-slots.js';
import { packAttacks } from './hostile-packs.js';

/**
 * `npm run bench:hostile`: the built service on loopback under hostile clients.
 *
 * 1. /healthz latency (a new connection per probe, as a kubelet does, 1 s timeout) with
 *    no other client, then while one client sends worst-case compose requests back to
 *    back (64 KB whitespace-free ambient, Latin and CJK alternately; CrewAI inputs that
 *    amplify, each refused at the prompt limit) — same run.
 * 2. /healthz latency while one client holds more connections than the cap (520; the
 *    default cap is 512), each with a request whose body is still arriving, reopening
 *    every one the service closes — against quiet phases of the same run.
 * 3. /healthz latency while the served pack is attacked (a pax-record bomb bundle, a
 *    10,000-agent fleet edited every second, a FIFO raced over the bundle), against the
 *    same services' quiet phases (`hostile-packs.ts`).
 * 4. RSS and peak RSS (VmHWM) of the service answering 600 distinct requests for a 2 MB
 *    prompt (`?team=t0…t599`, 8 clients at once), then of a CrewAI service refusing 600
 *    amplifying requests from 8 clients at once, against the bound its limits give
 *    (`memoryBound`); exits 1 when a peak is over it.
 *
 * BENCH_PROBES_ONLY, BENCH_BUSY_ONLY, BENCH_PACKS_ONLY and BENCH_MEMORY_ONLY run one part.
 */

const ROOT = resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const CLIENTS = 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/**
 * How the attacking client is scheduled (BENCH_ATTACKER_SCHED). `idle` (the default where
 * util-linux's `chrt` is installed): SCHED_IDLE, CPU only when nothing else wants it —
 * the nearest this one machine comes to a client on another machine, whose CPU is its own.
 * `nice`: at nice BENCH_ATTACKER_NICE (default 19), a normal task that still takes its
 * turns on the service's two cores: the kernel then delays the service's and the
 * prober's wake-ups for it, and a process that burns CPU without ever sending a request
 * moves /healthz's p99 by as much as the attack does (docs/BENCHMARKS.md).
 */
const ATTACKER_SCHED: 'idle' | 'nice' =
  process.env.BENCH_ATTACKER_SCHED === 'nice' || !hasChrt() ? 'nice' : 'idle';
const ATTACKER_NICE = Number(process.env.BENCH_ATTACKER_NICE ?? 19);
const ATTACKER_PLACE =
  ATTACKER_SCHED === 'idle' ? 'under SCHED_IDLE (`chrt --idle 0`)' : `at nice ${ATTACKER_NICE}`;
/**
 * Where each side runs (BENCH_PIN, needs `taskset` and two cores or more): by default (0)
 * every process on every core. `split` runs the service on core 0 alone and the clients
 * (the prober, the attacker) on the others, as a service and a remote client have their
 * own cores; `clients` keeps the clients off core 0 and lets the service use every core.
 * On this virtual machine `split` raises the quiet phases' p99 (an idle core is slow to
 * wake), so it flatters the ratio: docs/BENCHMARKS.md, "Hostile clients".
 */
const PIN_MODE = process.env.BENCH_PIN ?? '0';
const PIN = PIN_MODE !== '0' && availableParallelism() >= 2 && canPin();
const SERVICE_CORES = PIN_MODE === 'split' ? '0' : `0-${availableParallelism() - 1}`;
const CLIENT_CORES = availableParallelism() === 2 ? '1' : `1-${availableParallelism() - 1}`;
const MiB = 2 ** 20;
const ATTACKS: AttackKind[] = ['repeated', 'distinct', 'amplified'];
const ATTACK_TEXT: Record<AttackKind, string> = {
  repeated:
    'attack, the same two bodies again (counts cached after the first: the most requests per second, all on the event loop)',
  distinct: 'attack, every body new (nothing cached: each is composed, hashed and counted)',
  amplified:
    'attack on examples/crewai, amplifying inputs (`sector` = 3,600 × `{quarter}`, `quarter` = 32,000 × `x`: 115 MB if filled in turn without a bound; 422 `PROMPT_TOO_LARGE` at 4 MiB)',
};
/** The attacking client: `node -e ATTACKER url kind`; answers `stop` with its counts. */
const ATTACKER = `
const [url, kind] = process.argv.slice(1);
let attacking = true;
let requests = 0;
const statuses = {};
process.on('message', (m) => {
  if (m === 'count') process.send(requests);
  else attacking = false;
});
const body = (i) => {
  if (kind === 'amplified')
    return JSON.stringify({ role: 'market_analyst', vars: { sector: '{quarter}'.repeat(3600), quarter: 'x'.repeat(32000) } });
  const tag = kind === 'distinct' ? i.toString(36) : '';
  const ambient = i % 2 === 0
    ? tag + 'x'.repeat(64 * 1024 - 64 - tag.length)
    : tag + '\u4e2d'.repeat(Math.floor((64 * 1024 - 64 - tag.length) / 3));
  return JSON.stringify({ role: 'developer', ambient });
};
while (attacking) {
  const res = await fetch(url + '/api/compose', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body(requests),
  });
  await res.arrayBuffer();
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  requests++;
  if (requests === 2) process.send('started');
}
process.send({ requests, statuses }, () => process.exit(0));
`;
/**
 * The busy-connections client: `node -e BUSY url n` holds n connections, each with a
 * `POST /api/compose` whose body (60 KB declared) never comes, and opens a new one for
 * every one closed; says `started` once all n are connected, answers `stop` with counts.
 */
const BUSY = `
import { connect } from 'node:net';
const [url, n] = process.argv.slice(1);
const { hostname, port } = new URL(url);
const head = 'POST /api/compose HTTP/1.1\\r\\nHost: localhost\\r\\nContent-Type: application/json\\r\\nContent-Length: 60000\\r\\n\\r\\n{"role":';
let running = true;
let connected = 0;
let opened = 0;
let closed = 0;
const open = () => {
  opened++;
  const socket = connect(Number(port), hostname, () => {
    if (++connected === Number(n)) process.send('started');
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed++;
    if (running) setTimeout(open, 5);
  });
  socket.write(head);
};
for (let i = 0; i < Number(n); i++) open();
process.on('message', () => {
  running = false;
  process.send({ opened, closed }, () => process.exit(0));
});
`;
/** Connections the busy-connections client holds: more than the default cap (512). */
const BUSY_CONNECTIONS = 520;
/** The control's process: burns CPU until it is killed, sending nothing. */
const BURNER = `
let x = 0;
process.send('started', () => {
  for (;;) for (let i = 0; i < 1e6; i++) x += i;
});
`;
const base = mkdtempSync(join(tmpdir(), 'strata-hostile-'));

// This process (the prober) and the attacker it starts run on the clients' cores.
if (PIN) execFileSync('taskset', ['-a', '-p', '-c', CLIENT_CORES, String(process.pid)], { stdio: 'ignore' });

const parts = ['PROBES', 'BUSY', 'PACKS', 'MEMORY'].filter((p) => process.env[`BENCH_${p}_ONLY`]);
const runs = (part: string) => parts.length === 0 || parts.includes(part);
try {
  if (runs('PROBES')) await probes();
  if (runs('BUSY')) await busyConnections();
  if (runs('PACKS')) await packAttacks({ base, seconds: SECONDS, rounds: ROUNDS, start, probeFor, row });
  if (runs('MEMORY')) await memory();
} finally {
  rmSync(base, { recursive: true, force: true });
}

// --- internal ---

async function probes(): Promise<void> {
  const service = await start(['--dir', join(ROOT, 'examples/roboco')]);
  // The amplifying inputs need a layout that fills record values in turn (CrewAI's).
  const crew = await start(['--dir', join(ROOT, 'examples/crewai')]);
  const only = process.env.BENCH_ATTACK;
  try {
    // Quiet and attacked phases alternate, so a change in the machine's load falls on both.
    const quiet: Probes = { latencies: [], failed: 0 };
    const attacks: Array<{
      kind: AttackKind;
      probes: Probes;
      requests: number;
      statuses: Map<number, number>;
      cpu: Cpu;
    }> = [];
    // The control: a process scheduled as the attacker is, burning CPU, sending nothing.
    const control: Probes = { latencies: [], failed: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      add(quiet, await probeFor(service.url, SECONDS * 1000));
      add(control, await burning(service.url));
      for (const kind of ATTACKS) {
        if (only && only !== kind) continue;
        add(quiet, await probeFor(service.url, SECONDS * 1000));
        const phase = await attacked(kind === 'amplified' ? crew : service, kind);
        const same = attacks.find((a) => a.kind === kind);
        if (!same) attacks.push({ kind, ...phase });
        else {
          add(same.probes, phase.probes);
          same.cpu = {
            main:
              (same.cpu.main * same.requests + phase.cpu.main * phase.requests) /
              (same.requests + phase.requests),
            others:
              (same.cpu.others * same.requests + phase.cpu.others * phase.requests) /
              (same.requests + phase.requests),
          };
          same.requests += phase.requests;
          for (const [st, n] of phase.statuses) same.statuses.set(st, (same.statuses.get(st) ?? 0) + n);
        }
      }
    }
    console.log('## /healthz under worst-case compose requests\n');
    console.log(
      `${SECONDS} s per phase, ${ROUNDS} rounds of quiet and attacked phases alternating; probes every 20 ms on a new connection with a 1 s timeout. Attack bodies: \`{"role":"developer","ambient":…}\` with 64 KB of \`x\` and ~64 KB of \`中\` alternately, sent back to back by one client in its own process ${ATTACKER_PLACE}. The control phase runs a process scheduled the same way that burns CPU and sends nothing: what the attacker's own CPU use does to the probes, through the kernel, not through the service. ${PIN ? `The service runs on cores ${SERVICE_CORES}, the prober and the attacker on cores ${CLIENT_CORES} (BENCH_PIN=${PIN_MODE})` : 'Every process runs on every core'}.\n`,
    );
    console.log(
      '| phase | attack requests | probes | failed (>1 s or error) | p50 ms | p99 ms | max ms | p99 / quiet p99 |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    console.log(row('no other client', '—', quiet, quiet));
    console.log(row(`control: a CPU-bound process ${ATTACKER_PLACE}, no requests`, '—', control, quiet));
    for (const a of attacks) {
      const rate = `${a.requests} (${(a.requests / SECONDS / ROUNDS).toFixed(1)}/s; ${[...a.statuses].map(([st, n]) => `${n}× ${st}`).join(', ')})`;
      console.log(row(ATTACK_TEXT[a.kind], rate, a.probes, quiet));
    }
    const worst = Math.max(...attacks.map((a) => pct(a.probes.latencies, 0.99) / pct(quiet.latencies, 0.99)));
    const failed = attacks.reduce((n, a) => n + a.probes.failed, 0);
    console.log('\nServer CPU time per attack request (from /proc, over the measured part of each phase):\n');
    console.log('| attack | event-loop thread ms | other threads (counting worker, GC helpers) ms |');
    console.log('| --- | --- | --- |');
    for (const a of attacks)
      console.log(`| ${a.kind} | ${a.cpu.main.toFixed(2)} | ${a.cpu.others.toFixed(2)} |`);
    console.log(
      `\nWorst p99 ratio ${worst.toFixed(2)}× (target ≤ 2×): ${worst <= 2 ? 'met' : 'NOT met'}; probes failed or over 1 s under attack: ${failed} (target 0).\n`,
    );
  } finally {
    await service.stop();
    await crew.stop();
  }
}

/**
 * /healthz while one client holds more connections than the cap, each with a slow body in
 * progress, against quiet phases of the same run; then what the service shed, from its
 * metrics.
 */
async function busyConnections(): Promise<void> {
  const service = await start(['--dir', join(ROOT, 'examples/roboco')]);
  try {
    const quiet: Probes = { latencies: [], failed: 0 };
    const busy: Probes = { latencies: [], failed: 0 };
    let opened = 0;
    for (let round = 0; round < ROUNDS; round++) {
      add(quiet, await probeFor(service.url, SECONDS * 1000));
      const child = spawnClient(BUSY, [service.url, String(BUSY_CONNECTIONS)]);
      await new Promise((done) => child.once('message', done));
      add(busy, await probeFor(service.url, SECONDS * 1000));
      const counts = new Promise<{ opened: number }>((done) =>
        child.once('message', (m) => done(m as never)),
      );
      child.send('stop');
      opened += (await counts).opened;
    }
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    const shed = [...metrics.matchAll(/^strata_connections_shed_total\{reason="([a-z_]+)"\} (\d+)$/gm)]
      .map(([, reason, n]) => `${n} ${reason}`)
      .join(', ');
    console.log('## /healthz while every connection is busy with a slow body\n');
    console.log(
      `${SECONDS} s per phase, ${ROUNDS} rounds of quiet and busy phases alternating; probes every 20 ms on a new connection with a 1 s timeout. The busy client (in its own process ${ATTACKER_PLACE}) holds ${BUSY_CONNECTIONS} connections, over the default cap of 512, each with a \`POST /api/compose\` whose 60 KB body never comes (under the 64 KiB body limit), and opens a new one for every one closed.\n`,
    );
    console.log(
      '| phase | connections opened | probes | failed (>1 s or error) | p50 ms | p99 ms | max ms | p99 / quiet p99 |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    console.log(row('no other client', '—', quiet, quiet));
    console.log(
      row(`${BUSY_CONNECTIONS} connections, each with a slow body in progress`, String(opened), busy, quiet),
    );
    console.log(`\nShed by the service (strata_connections_shed_total): ${shed || 'none'}.\n`);
  } finally {
    await service.stop();
  }
}

type AttackKind = 'repeated' | 'distinct' | 'amplified';
interface Probes {
  latencies: number[];
  failed: number;
}

/**
 * Probes while one client, in its own process (so its work does not delay the probes'
 * own event loop), posts worst-case compose bodies back to back.
 */
async function attacked(
  service: { url: string; pid: number },
  kind: AttackKind,
): Promise<{ probes: Probes; requests: number; statuses: Map<number, number>; cpu: Cpu }> {
  const { url } = service;
  // A remote attacker spends its own CPU (building 64 KB bodies, reading the answers) on
  // its own machine; here it shares two cores with the service (BENCH_ATTACKER_SCHED).
  const child = spawnClient(ATTACKER, [url, kind]);
  const message = <T>() => new Promise<T>((done) => child.once('message', (m) => done(m as T)));
  // The first requests of a phase load what every later one reuses: measure after them.
  await message<'started'>();
  const cpuBefore = cpuTimes(service.pid);
  const count = () => {
    const answer = message<number>();
    child.send('count');
    return answer;
  };
  const requestsBefore = await count();
  const probes = await probeFor(url, SECONDS * 1000);
  const requestsAfter = await count();
  const cpuAfter = cpuTimes(service.pid);
  const measured = requestsAfter - requestsBefore;
  const cpu: Cpu = {
    main: (cpuAfter.main - cpuBefore.main) / measured,
    others: (cpuAfter.others - cpuBefore.others) / measured,
  };
  const stats = message<{ requests: number; statuses: Record<string, number> }>();
  child.send('stop');
  const { requests, statuses } = await stats;
  return {
    probes,
    requests,
    cpu,
    statuses: new Map(Object.entries(statuses).map(([k, v]) => [Number(k), v])),
  };
}

/** Probes while a process scheduled as the attacker is burns CPU without sending anything. */
async function burning(url: string): Promise<Probes> {
  const child = spawnClient(BURNER, []);
  await new Promise((done) => child.once('message', done));
  try {
    return await probeFor(url, SECONDS * 1000);
  } finally {
    child.kill('SIGKILL');
  }
}

/** A client script (`node -e`) in its own process, scheduled as BENCH_ATTACKER_SCHED says. */
function spawnClient(script: string, args: string[]): ChildProcess {
  const node = [process.execPath, '--input-type=module', '-e', script, ...args];
  const [command, ...rest] = ATTACKER_SCHED === 'idle' ? ['chrt', '--idle', '0', ...node] : node;
  const child = spawn(command!, rest, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (ATTACKER_SCHED === 'nice') setPriority(child.pid!, ATTACKER_NICE);
  return child;
}

/** Whether util-linux's `chrt` can run a command under SCHED_IDLE here. */
function hasChrt(): boolean {
  try {
    execFileSync('chrt', ['--idle', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function add(into: Probes, from: Probes): void {
  into.latencies.push(...from.latencies);
  into.failed += from.failed;
}

function row(name: string, requests: string, r: Probes, quiet: Probes): string {
  const ratio = pct(r.latencies, 0.99) / pct(quiet.latencies, 0.99);
  return `| ${name} | ${requests} | ${r.latencies.length + r.failed} | ${r.failed} | ${ms(pct(r.latencies, 0.5))} | ${ms(pct(r.latencies, 0.99))} | ${ms(Math.max(...r.latencies))} | ${r === quiet ? '—' : `${ratio.toFixed(2)}×`} |`;
}

async function memory(): Promise<void> {
  const pack = join(base, 'pack');
  cpSync(join(ROOT, 'test/fixtures/server-mini'), pack, { recursive: true });
  const line = 'A line of a very large prompt, repeated to make two megabytes.\n';
  writeFileSync(join(pack, 'base.md'), line.repeat(Math.ceil((2 * 1024 * 1024) / line.length)));
  const service = await start(['--dir', pack, '--max-file-bytes', String(4 * 1024 * 1024)]);
  try {
    const before = status(service.pid);
    // The largest prompt this pack composes, as the bound counts it (UTF-8 bytes).
    const text = await fetch(`${service.url}/api/prompts/writer?team=warm`, {
      headers: { accept: 'text/plain' },
    });
    const promptBytes = (await text.arrayBuffer()).byteLength;
    const bound =
      memoryBound({
        startupBytes: before.rss * MiB,
        cacheBytes: DEFAULT_CACHE_BYTES,
        maxRenders: DEFAULT_MAX_RENDERS,
        promptBytes,
      }) / MiB;
    // Clients ask for distinct answers (`?team=t0…`), more at once than the render slots.
    const steps: Array<{ n: number; rss: number; hwm: number }> = [];
    let next = 0;
    let done = 0;
    const client = async () => {
      while (next < REQUESTS) {
        const i = next++;
        const res = await fetch(`${service.url}/api/prompts/writer?team=t${i}`);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        done++;
        if (done === 1 || done % 150 === 0) steps.push({ n: done, ...status(service.pid) });
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const peak = Math.max(...steps.map((s) => s.hwm));
    console.log('## RSS under distinct 2 MB-prompt requests\n');
    console.log(
      `${REQUESTS} requests for distinct answers (\`GET /api/prompts/writer?team=t0…\`), ${CLIENTS} clients at once; prompt ${(promptBytes / MiB).toFixed(2)} MiB; cache budget ${DEFAULT_CACHE_BYTES / MiB} MiB (default --cache-bytes); ${DEFAULT_MAX_RENDERS} render slots (default --max-renders).\n`,
    );
    console.log(
      `Bound (src/server/answers/memory-bound.ts): start-up RSS ${before.rss.toFixed(0)} MiB + 2 × (cache ${DEFAULT_CACHE_BYTES / MiB} MiB + ${DEFAULT_MAX_RENDERS} slots × ${COPIES_IN_FLIGHT} × prompt) + ${EXTERNAL_GC_STEP / MiB} MiB = **${bound.toFixed(0)} MiB**.\n`,
    );
    console.log('| requests answered | RSS | peak RSS (VmHWM) |');
    console.log('| --- | --- | --- |');
    for (const s of steps) console.log(`| ${s.n} | ${s.rss.toFixed(0)} MiB | ${s.hwm.toFixed(0)} MiB |`);
    const within = peak <= bound;
    console.log(
      `\nPeak RSS ${peak.toFixed(0)} MiB against the bound ${bound.toFixed(0)} MiB: ${within ? 'within' : 'EXCEEDED'}.`,
    );
    if (!within) process.exitCode = 1;
  } finally {
    await service.stop();
  }
  await amplifiedMemory();
}

/**
 * Peak RSS of a CrewAI service while eight clients at once send requests whose inputs
 * amplify (each refused at the prompt limit as its text grows), against the bound its
 * limits give with the largest prompt it may make (`--max-prompt-bytes`, 4 MiB).
 */
async function amplifiedMemory(): Promise<void> {
  const service = await start(['--dir', join(ROOT, 'examples/crewai')]);
  try {
    const before = status(service.pid);
    const bound =
      memoryBound({
        startupBytes: before.rss * MiB,
        cacheBytes: DEFAULT_CACHE_BYTES,
        maxRenders: DEFAULT_MAX_RENDERS,
        promptBytes: MAX_PROMPT_BYTES,
      }) / MiB;
    const body = JSON.stringify({
      role: 'market_analyst',
      vars: { sector: '{quarter}'.repeat(3600), quarter: 'x'.repeat(32000) },
    });
    const statuses = new Map<number, number>();
    let sent = 0;
    const client = async () => {
      while (sent < REQUESTS) {
        sent++;
        const res = await fetch(`${service.url}/api/compose`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const after = status(service.pid);
    const alive = (await fetch(`${service.url}/healthz`)).status === 200;
    console.log('\n## RSS under amplifying inputs, eight clients at once\n');
    console.log(
      `${REQUESTS} \`POST /api/compose\` on examples/crewai whose inputs would fill to 115 MB each (\`sector\` = 3,600 × \`{quarter}\`, \`quarter\` = 32,000 × \`x\`), ${CLIENTS} clients at once: ${[...statuses].map(([st, n]) => `${n}× ${st}`).join(', ')}; /healthz ${alive ? '200' : 'FAILED'} after. Bound with the largest prompt the limit allows (${MAX_PROMPT_BYTES / MiB} MiB): start-up RSS ${before.rss.toFixed(0)} MiB → **${bound.toFixed(0)} MiB**. RSS after ${after.rss.toFixed(0)} MiB, peak (VmHWM) **${after.hwm.toFixed(0)} MiB**: ${after.hwm <= bound ? 'within' : 'EXCEEDED'}.`,
    );
    if (after.hwm > bound || !alive) process.exitCode = 1;
  } finally {
    await service.stop();
  }
}

async function probeFor(url: string, durationMs: number): Promise<Probes> {
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    const t = await probe(`${url}/healthz`);
    if (t === undefined) failed++;
    else latencies.push(t);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { latencies, failed };
}

/** One probe on a new connection: its latency in ms, or undefined past 1 s or on an error. */
function probe(url: string): Promise<number | undefined> {
  return new Promise((done) => {
    const started = performance.now();
    const req = get(url, { agent: false, timeout: 1000 }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => {
        const t = performance.now() - started;
        done(res.statusCode === 200 && body === '{"ok":true}' && t <= 1000 ? t : undefined);
      });
    });
    req.on('timeout', () => {
      req.destroy();
      done(undefined);
    });
    req.on('error', () => done(undefined));
  });
}

/** CPU time used per attack request, in ms: the event loop's thread, and all other threads (the counting worker, V8's helpers). */
interface Cpu {
  main: number;
  others: number;
}

/** CPU time (user + system, ms) of a process's main thread and of its other threads, from /proc. */
function cpuTimes(pid: number): Cpu {
  const tick = 1000 / 100; // USER_HZ
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * tick;
      if (Number(tid) === pid) main += ms;
      else others += ms;
    } catch {
      // the thread ended
    }
  }
  return { main, others };
}

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function ms(n: number): string {
  return n.toFixed(1);
}

async function start(args: string[]): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const node = [process.execPath, ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  // `taskset` runs node in its own place (the same process, its threads on the service's cores).
  const [command, ...prefix] = PIN ? ['taskset', '-c', SERVICE_CORES, ...node] : node;
  const child: ChildProcess = spawn(
    command!,
    [
      ...prefix,
      join(ROOT, 'dist/bin/strata.js'),
      'serve',
      ...args,
      '--port',
      String(port),
      '--log-level',
      'warn',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
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
  // Let the token-counting worker load its tables before measuring.
  await new Promise((r) => setTimeout(r, 3000));
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((done) => {
        if (exited) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** Whether `taskset` can set this process's cores. */
function canPin(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}
