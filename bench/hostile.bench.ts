import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_CACHE_BYTES } from '../src/core/snapshot-cache.js';

/**
 * `npm run bench:hostile`: the built service on loopback under hostile clients.
 *
 * 1. /healthz latency (a new connection per probe, as a kubelet does, 1 s timeout) with
 *    no other client, then while one client sends worst-case compose requests back to
 *    back (64 KB whitespace-free ambient, Latin and CJK alternately) — same run.
 * 2. RSS and peak RSS (VmHWM) of the service answering 600 distinct requests for a 2 MB
 *    prompt (`?team=t0…t599`), against the bound the cache budget gives.
 */

const ROOT = resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const base = mkdtempSync(join(tmpdir(), 'strata-hostile-'));

try {
  if (!process.env.BENCH_MEMORY_ONLY) await probes();
  await memory();
} finally {
  rmSync(base, { recursive: true, force: true });
}

// --- internal ---

async function probes(): Promise<void> {
  const service = await start(['--dir', join(ROOT, 'examples/roboco')]);
  try {
    const quiet = await probeFor(service.url, SECONDS * 1000);
    let attacking = true;
    let attacks = 0;
    const statuses = new Map<number, number>();
    const bodies = [
      JSON.stringify({ role: 'developer', ambient: 'x'.repeat(64 * 1024 - 64) }),
      JSON.stringify({ role: 'developer', ambient: '中'.repeat(Math.floor((64 * 1024 - 64) / 3)) }),
    ];
    const attacker = (async () => {
      while (attacking) {
        const res = await fetch(`${service.url}/api/compose`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bodies[attacks % 2],
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        attacks++;
      }
    })();
    const loaded = await probeFor(service.url, SECONDS * 1000);
    attacking = false;
    await attacker;
    console.log('## /healthz under worst-case compose requests\n');
    console.log(`${SECONDS} s each, probes every 20 ms on a new connection with a 1 s timeout.\n`);
    console.log('| phase | probes | failed (>1 s or error) | p50 ms | p99 ms | max ms |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [name, r] of [
      ['no other client', quiet],
      ['one client: 64 KB `x…`/`中…` ambient back to back', loaded],
    ] as const) {
      console.log(
        `| ${name} | ${r.latencies.length + r.failed} | ${r.failed} | ${ms(pct(r.latencies, 0.5))} | ${ms(pct(r.latencies, 0.99))} | ${ms(Math.max(...r.latencies))} |`,
      );
    }
    const rate = (attacks / SECONDS).toFixed(1);
    console.log(
      `\nAttack requests: ${attacks} (${rate}/s), statuses ${JSON.stringify(Object.fromEntries(statuses))}. p99 ratio: ${(pct(loaded.latencies, 0.99) / pct(quiet.latencies, 0.99)).toFixed(2)}×\n`,
    );
  } finally {
    await service.stop();
  }
}

async function memory(): Promise<void> {
  const pack = join(base, 'pack');
  cpSync(join(ROOT, 'test/fixtures/server-mini'), pack, { recursive: true });
  const line = 'A line of a very large prompt, repeated to make two megabytes.\n';
  writeFileSync(join(pack, 'base.md'), line.repeat(Math.ceil((2 * 1024 * 1024) / line.length)));
  const service = await start(['--dir', pack, '--max-file-bytes', String(4 * 1024 * 1024)]);
  try {
    const before = status(service.pid);
    const steps: Array<{ n: number; rss: number; hwm: number }> = [];
    for (let i = 0; i < 600; i++) {
      const res = await fetch(`${service.url}/api/prompts/writer?team=t${i}`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      if (i === 0 || (i + 1) % 150 === 0) steps.push({ n: i + 1, ...status(service.pid) });
    }
    const bound = before.rss + (3 * DEFAULT_CACHE_BYTES) / 2 ** 20 + 128;
    console.log('## RSS under distinct 2 MB-prompt requests\n');
    console.log(
      `RSS after start-up: ${before.rss.toFixed(0)} MiB. Stated bound: start-up RSS + 3 × cache budget (live entries plus collector slack) + 128 MiB for requests in flight = ${bound.toFixed(0)} MiB.\n`,
    );
    console.log('| requests | RSS | peak RSS (VmHWM) |');
    console.log('| --- | --- | --- |');
    for (const s of steps) console.log(`| ${s.n} | ${s.rss.toFixed(0)} MiB | ${s.hwm.toFixed(0)} MiB |`);
    console.log(`\nCache budget ${DEFAULT_CACHE_BYTES / 2 ** 20} MiB (default of --cache-bytes).`);
  } finally {
    await service.stop();
  }
}

async function probeFor(url: string, durationMs: number): Promise<{ latencies: number[]; failed: number }> {
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
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'dist/bin/strata.js'), 'serve', ...args, '--port', String(port), '--log-level', 'warn'],
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

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}
