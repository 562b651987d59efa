import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { SETTLED_MS } from '../src/source/reuse.js';
import { BENCH_LIMITS, generatePack } from './gen-pack.js';
import { TREE, TREE_NOTE } from './lib.js';
import { machine } from './measure.js';

// `npm run bench:idle [-- --rows 1000:10,10000:10,20000:10,50000:10,20000:20000]
// [--window 60] [--settle 30] [--edits 5] [--poll 10000] [--root DIR]`: a pack at rest.
// Each row (`roles:agents`) starts `strata serve` (a real process, default poll and
// debounce) on a generated roboco-style pack whose files have settled, waits until it is
// ready and `--settle` seconds more (the start-up's background work), then measures the
// CPU the process used over `--window` seconds in which nothing changed (from
// /proc/<pid>/stat: every thread, the token-counting worker included), as a share of one
// core. Then `--edits` one-line edits of a role file, each timed from the write until the
// service answers the new bytes (a client fetching that role every 5 ms), each made once
// the previous one is served, with the CPU the service used meanwhile (its fetches
// included: what the edit costs, whatever else the machine runs); an edit not served
// within 30 s is counted as such.
// `--root` runs another checkout's CLI (its bin/strata.ts) on the same packs: the same
// rows before a change, in the same run.

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1]!;
};
const ROWS = arg('--rows', '1000:10,10000:10,20000:10,50000:10,20000:20000')
  .split(',')
  .map((r) => r.split(':').map(Number) as [number, number]);
const WINDOW_S = Number(arg('--window', '60'));
const SETTLE_S = Number(arg('--settle', '30'));
const EDITS = Number(arg('--edits', '5'));
const POLL_MS = arg('--poll', '10000');
const ROOT = arg('--root', join(import.meta.dirname, '..'));
const EDIT_TIMEOUT_MS = 30_000;
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
console.log(`machine: ${machine()}; ${TREE_NOTE}; load average ${load()}; ${new Date().toISOString()}`);
console.log(`strata: ${ROOT}; poll ${POLL_MS} ms; idle window ${WINDOW_S} s after ${SETTLE_S} s`);
console.log('');
console.log(
  "| roles | agents | files | start-up to ready s | **idle CPU, % of a core** | edit → served p50 ms | max ms | the service's CPU per edit, p50 ms | edits not served in 30 s | load average (1 min) start → end |",
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [roles, agents] of ROWS) await row(roles, agents);

async function row(roles: number, agents: number): Promise<void> {
  const loadBefore = os.loadavg()[0]!.toFixed(2);
  const dir = mkdtempSync(join(os.tmpdir(), `strata-idle-${roles}-`));
  const files = generatePack(dir, roles, agents);
  // Files changed less than SETTLED_MS before a read are read again later: let them settle
  // first, as a deployed pack's have.
  await sleep(SETTLED_MS + 200);
  const port = await freePort();
  const t0 = performance.now();
  const child = serve(dir, port);
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok === true, 900_000);
    const startup = (performance.now() - t0) / 1000;
    await sleep(SETTLE_S * 1000);
    const cpu0 = cpuTicks(child.pid!);
    const w0 = performance.now();
    await sleep(WINDOW_S * 1000);
    const share = (cpuTicks(child.pid!) - cpu0) / TICKS / ((performance.now() - w0) / 1000);
    const samples: number[] = [];
    const cpu: number[] = [];
    let missed = 0;
    for (let e = 0; e < EDITS; e++) {
      const n = (e * 7919) % roles;
      const marker = `Edit ${e} at rest.`;
      const ticks = cpuTicks(child.pid!);
      const start = performance.now();
      writeFileSync(
        join(dir, 'roles', `role-${n}.md`),
        `---\nname: Role ${n}\n---\n# Role ${n}\n\n${marker}\n`,
      );
      const served = await until(async () => {
        const r = await fetch(`${url}/api/prompts/role-${n}`, { headers: { accept: 'text/plain' } }).catch(
          () => undefined,
        );
        return (await r?.text())?.includes(marker) === true;
      }, EDIT_TIMEOUT_MS);
      if (served) {
        samples.push(performance.now() - start);
        cpu.push(((cpuTicks(child.pid!) - ticks) / TICKS) * 1000);
      } else missed++;
    }
    const p50 = samples.length > 0 ? median(samples).toFixed(0) : '—';
    const max = samples.length > 0 ? Math.max(...samples).toFixed(0) : '—';
    const cpuP50 = cpu.length > 0 ? median(cpu).toFixed(0) : '—';
    console.log(
      `| ${roles.toLocaleString('en-US')} | ${agents.toLocaleString('en-US')} | ${files.toLocaleString('en-US')} | ${startup.toFixed(1)} | **${(share * 100).toFixed(2)}** | ${p50} | ${max} | ${cpuP50} | ${missed} of ${EDITS} | ${loadBefore} → ${os.loadavg()[0]!.toFixed(2)} |`,
    );
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- internal ---

function serve(dir: string, port: number): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      // The built service, as `npm start` runs it (the sources through tsx with BENCH_SRC=1).
      ...(TREE === 'dist'
        ? [join(ROOT, 'dist', 'bin', 'strata.js')]
        : ['--import', 'tsx', join(ROOT, 'bin', 'strata.ts')]),
      'serve',
      '--dir',
      dir,
      '--port',
      String(port),
      '--log-level',
      'warn',
      '--poll-interval',
      POLL_MS,
      '--max-files',
      String(BENCH_LIMITS.maxFiles),
      '--max-pack-bytes',
      String(BENCH_LIMITS.maxPackBytes),
      '--max-file-bytes',
      String(BENCH_LIMITS.maxFileBytes),
      '--read-timeout',
      String(BENCH_LIMITS.readTimeoutMs),
    ],
    { cwd: ROOT, env: { ...process.env, STRATA_ADMIN_TOKEN: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (b) => process.stderr.write(`serve: ${b}`));
  return child;
}

/** User + system CPU time of a process and all its threads, in clock ticks. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) in parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(5);
  }
  return false;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
