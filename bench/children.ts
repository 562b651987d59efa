import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { join } from 'node:path';

// Servers the HTTP benchmarks start as child processes, and what they share.

/** What the benchmarks read of an autocannon run. */
export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  errors: number;
  non2xx: number;
}

/** autocannon (a CommonJS package without types), with the options the benchmarks use. */
export const autocannon = createRequire(import.meta.url)('autocannon') as (opts: {
  url: string;
  connections: number;
  /** Seconds to run, or (`amount`) how many requests to send. */
  duration?: number;
  amount?: number;
  method?: string;
  body?: string;
  headers: Record<string, string>;
  /** Writes a new id for each `[<id>]` in the request (`[%3Cid%3E]` in its URL). */
  idReplacement?: boolean;
}) => Promise<CannonResult>;

/** A server in a child process, answering on loopback. */
export interface Child {
  url: string;
  /** The process id (valgrind's, which runs node in its own process, under `counted`). */
  pid: number;
  /** CPU time the process has used (all its threads), in milliseconds. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Runs `node ARGS… --port PORT` (or `node -e SCRIPT` with `$BENCH_PORT`) on a free port,
 * its stdout to a log file in `logDir` (as in production: reading it here would slow the
 * load generator), and resolves once `/readyz` answers 200. With `wrap`, node runs under
 * that command (`valgrind …`).
 */
export async function startChild(
  root: string,
  logDir: string,
  args: string[],
  env: Record<string, string> = {},
  wrap: string[] = [],
): Promise<Child> {
  const port = await freePort();
  const fd = openSync(join(logDir, `server-${port}.log`), 'w');
  const portArgs = args[0] === '-e' ? [] : ['--port', String(port)];
  const command = [...wrap, process.execPath, ...args, ...portArgs];
  const child: ChildProcess = spawn(command[0]!, command.slice(1), {
    cwd: root,
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
    pid: child.pid!,
    cpuMs: () => cpuMs(child.pid!),
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A server whose user-space instructions are counted (valgrind's callgrind, counting only
 * while asked): `count(run)` gives the instructions executed while `run` ran, less none
 * (each count is dumped and the next starts from zero). Slow (node runs 20–50 times
 * slower), but blind to the host's noise: the same requests give the same count within
 * a few per cent, where CPU time on a shared machine moves by a quarter.
 */
export interface CountedChild extends Child {
  count(run: () => Promise<unknown>): Promise<number>;
}

/** {@link startChild} under callgrind, counting nothing until {@link CountedChild.count}. */
export async function startCounted(
  root: string,
  logDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CountedChild> {
  const out = join(logDir, `callgrind-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const child = await startChild(root, logDir, args, env, [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
    `--log-file=${out}.log`,
  ]);
  let dumps = 0;
  const control = (...flags: string[]) =>
    execFileSync('callgrind_control', [...flags, String(child.pid)], { stdio: 'ignore' });
  return {
    ...child,
    async count(run) {
      control('-i', 'on');
      try {
        await run();
      } finally {
        control('-i', 'off');
      }
      control('-d');
      dumps++;
      const totals = /^totals: (\d+)/m.exec(readFileSync(`${out}.${dumps}`, 'utf8'));
      if (!totals) throw new Error(`no instruction count in ${out}.${dumps}`);
      return Number(totals[1]);
    },
  };
}

/** The headers strata answered with, less those node:http adds itself. */
export function replayHeaders(headers: Headers): Record<string, string> {
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!skip.has(name)) out[name] = value;
  });
  return out;
}

/** A rate for a table: rounded, with thousands separators. */
export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

// --- internal ---

/** User + system CPU time of a process, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
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
