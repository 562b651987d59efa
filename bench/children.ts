import { type ChildProcess, spawn } from 'node:child_process';
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
  duration: number;
  method?: string;
  body?: string;
  headers: Record<string, string>;
  /** Writes a new id for each `[<id>]` in the request (`[%3Cid%3E]` in its URL). */
  idReplacement?: boolean;
}) => Promise<CannonResult>;

/** A server in a child process, answering on loopback. */
export interface Child {
  url: string;
  /** CPU time the process has used (all its threads), in milliseconds. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Runs `node ARGS… --port PORT` (or `node -e SCRIPT` with `$BENCH_PORT`) on a free port,
 * its stdout to a log file in `logDir` (as in production: reading it here would slow the
 * load generator), and resolves once `/readyz` answers 200.
 */
export async function startChild(
  root: string,
  logDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Child> {
  const port = await freePort();
  const fd = openSync(join(logDir, `server-${port}.log`), 'w');
  const portArgs = args[0] === '-e' ? [] : ['--port', String(port)];
  const child: ChildProcess = spawn(process.execPath, [...args, ...portArgs], {
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
    cpuMs: () => cpuMs(child.pid!),
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
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
