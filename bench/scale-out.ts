import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { compose } from '../src/core/compose/compose.js';
import { buildSnapshot } from '../src/engine/default-engine.js';
import { readPackDir } from '../src/source/read-dir.js';

// Scale-out: several `strata serve` replicas on one ConfigMap-style pack behind HAProxy
// (Debian's) on loopback. The pack is swapped the way the kubelet does it (a new
// timestamped folder, then an atomic rename of the `..data` symlink) while clients read
// through the balancer. Reports how long until every replica serves the new version,
// and counts failed and mixed responses and the SSE events that reached a client through
// the balancer. `npm run bench:scale-out` runs it at full size; the slow test runs a few
// swaps and asserts the zero counts.

const ROOT = resolve(import.meta.dirname, '..');
const AGENTS = ['ada', 'grace', 'margaret'];

export interface ScaleOutOptions {
  replicas?: number;
  swaps?: number;
  /** Concurrent reader loops through the balancer. */
  readers?: number;
  /** Give up on one swap after this long (it then counts as not converged). */
  convergeTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface ScaleOutReport {
  replicas: number;
  swaps: number;
  /** Milliseconds from the `..data` rename until every replica reported the new version. */
  convergeMs: number[];
  /** Swaps after which some replica never reported the new version in time. */
  notConverged: number;
  requests: number;
  /** Non-200 answers and connection errors through the balancer. */
  failed: number;
  /** 200 answers whose bytes are not exactly one version's prompt, or whose X-Strata-Version names another. */
  mixed: number;
  /** `reload` events a client subscribed through the balancer received, by version. */
  eventsSeen: number;
  /** The versions the swaps produced, in order (the last one is what every replica serves at the end). */
  versions: string[];
  /** The versions every replica reported at the end. */
  finalVersions: string[];
}

export async function runScaleOut(options: ScaleOutOptions = {}): Promise<ScaleOutReport> {
  const replicas = options.replicas ?? 3;
  const swaps = options.swaps ?? 20;
  const readers = options.readers ?? 4;
  const convergeTimeoutMs = options.convergeTimeoutMs ?? 30_000;
  const log = options.log ?? (() => {});
  const base = await mkdtemp(join(os.tmpdir(), 'strata-scale-'));
  const pack = join(base, 'pack');
  const children: ChildProcess[] = [];
  const report: ScaleOutReport = {
    replicas,
    swaps,
    convergeMs: [],
    notConverged: 0,
    requests: 0,
    failed: 0,
    mixed: 0,
    eventsSeen: 0,
    versions: [],
    finalVersions: [],
  };
  let stop = false;
  try {
    // 1. A ConfigMap-style pack at generation 0; the expected prompts of every generation.
    const expected = new Map<string, Map<string, string>>(); // version → agent → text
    let generation = 0;
    await writeGeneration(pack, generation);
    expected.set(...(await promptsOf(pack)));

    // 2. Replicas, then HAProxy in front of them.
    const ports = await freePorts(replicas + 1);
    for (const port of ports.slice(1)) children.push(startReplica(pack, port));
    for (const port of ports.slice(1)) await waitReady(`http://127.0.0.1:${port}`);
    const lb = `http://127.0.0.1:${ports[0]}`;
    const cfg = join(base, 'haproxy.cfg');
    await writeFile(cfg, haproxyConfig(ports[0]!, ports.slice(1)));
    children.push(spawnLogged('haproxy', ['-f', cfg, '-db'], log));
    await waitReady(lb);
    log(`replicas on ${ports.slice(1).join(', ')}; balancer on ${ports[0]}`);

    // 3. A subscriber through the balancer, and readers.
    const events = new AbortController();
    const seen = new Set<string>();
    const subscriber = subscribe(`${lb}/api/events`, events.signal, (version) => {
      seen.add(version);
    });
    const reading = Array.from({ length: readers }, (_, i) =>
      (async () => {
        for (let n = i; !stop; n++) {
          const agent = AGENTS[n % AGENTS.length]!;
          report.requests++;
          try {
            const res = await fetch(`${lb}/api/agents/${agent}/prompt`, {
              headers: { accept: 'text/plain' },
            });
            const text = await res.text();
            if (res.status !== 200) {
              report.failed++;
              continue;
            }
            const version = res.headers.get('x-strata-version') ?? '';
            if (expected.get(version)?.get(agent) !== text) report.mixed++;
          } catch {
            report.failed++;
          }
        }
      })(),
    );

    // 4. Swaps: each waits until every replica reports the new version.
    for (let s = 0; s < swaps; s++) {
      generation++;
      const staged = join(base, `staged-${generation}`);
      await writeGeneration(staged, generation, true);
      const [version, prompts] = await promptsOf(staged);
      expected.set(version, prompts);
      report.versions.push(version);
      const started = performance.now();
      await swapData(pack, staged, generation);
      const agreed = await untilAll(ports.slice(1), version, convergeTimeoutMs);
      if (agreed) report.convergeMs.push(performance.now() - started);
      else report.notConverged++;
      log(
        `swap ${s + 1}/${swaps}: ${version} ${agreed ? `everywhere after ${Math.round(performance.now() - started)} ms` : 'NOT everywhere'}`,
      );
    }
    const last = report.versions.at(-1);
    if (last) await until(() => seen.has(last), 10_000);
    stop = true;
    await Promise.all(reading);
    events.abort();
    await subscriber;
    report.eventsSeen = report.versions.filter((v) => seen.has(v)).length;
    report.finalVersions = await Promise.all(ports.slice(1).map((p) => versionOf(`http://127.0.0.1:${p}`)));
    return report;
  } finally {
    stop = true;
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
    );
    await rm(base, { recursive: true, force: true });
  }
}

/** p-quantile of a list of numbers (nearest rank). */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

// --- internal ---

/** Writes examples/roboco with a generation marker in two files, so a torn read shows. */
async function writeGeneration(dir: string, generation: number, plain = false): Promise<void> {
  const data = plain ? dir : join(dir, `..gen_${generation}`);
  await cp(join(ROOT, 'examples', 'roboco'), data, { recursive: true });
  const mark = `\n\nPack generation ${generation}.\n`;
  await writeFile(join(data, 'base.md'), `${await readText(join(data, 'base.md'))}${mark}`);
  for (const agent of AGENTS) {
    const file = join(data, 'identities', `${agent}.md`);
    await writeFile(file, `${await readText(file)}${mark}`);
  }
  if (plain) return;
  await symlink(`..gen_${generation}`, join(dir, '..data'));
  for (const name of await readdir(data)) await symlink(join('..data', name), join(dir, name));
}

/** The kubelet's update: the new files in a new folder, then `..data` renamed onto it. */
async function swapData(pack: string, staged: string, generation: number): Promise<void> {
  const folder = `..gen_${generation}`;
  await rename(staged, join(pack, folder));
  await symlink(folder, join(pack, '..data_tmp'));
  await rename(join(pack, '..data_tmp'), join(pack, '..data'));
  const old = `..gen_${generation - 1}`;
  // The kubelet removes the old folder right after the swap.
  await rm(join(pack, old), { recursive: true, force: true });
}

async function promptsOf(dir: string): Promise<[string, Map<string, string>]> {
  const read = await readPackDir(dir);
  const { snapshot, diagnostics } = buildSnapshot({ files: read.files, env: {} });
  if (!snapshot) throw new Error(`generated pack does not load: ${JSON.stringify(diagnostics)}`);
  return [snapshot.version, new Map(AGENTS.map((a) => [a, compose(snapshot, { agent: a }).text]))];
}

function startReplica(pack: string, port: number): ChildProcess {
  return spawnLogged(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bin', 'strata.ts'),
      'serve',
      '--dir',
      pack,
      '--port',
      String(port),
      '--log-level',
      'warn',
      '--debounce',
      '50',
    ],
    () => {},
  );
}

function spawnLogged(cmd: string, args: string[], log: (line: string) => void): ChildProcess {
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, STRATA_ADMIN_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', () => {});
  child.stderr?.on('data', (b) => log(`${cmd}: ${String(b).trim()}`));
  return child;
}

function haproxyConfig(front: number, backs: number[]): string {
  return [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout tunnel 1h',
    '  option http-server-close',
    'frontend strata',
    `  bind 127.0.0.1:${front}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost',
    '  http-check expect status 200',
    ...backs.map((p, i) => `  server r${i + 1} 127.0.0.1:${p} check inter 500ms fall 2 rise 1`),
    '',
  ].join('\n');
}

async function untilAll(ports: number[], version: string, timeoutMs: number): Promise<boolean> {
  return until(async () => {
    const versions = await Promise.all(ports.map((p) => versionOf(`http://127.0.0.1:${p}`).catch(() => '')));
    return versions.every((v) => v === version);
  }, timeoutMs);
}

async function versionOf(url: string): Promise<string> {
  const res = await fetch(`${url}/api/status`);
  return ((await res.json()) as { version: string }).version;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

async function waitReady(url: string): Promise<void> {
  const ok = await until(async () => {
    try {
      return (await fetch(`${url}/readyz`)).status === 200;
    } catch {
      return false;
    }
  }, 60_000);
  if (!ok) throw new Error(`${url} never became ready`);
}

/** Reads an SSE stream and hands every `reload` event's version to `onReload`. */
async function subscribe(
  url: string,
  signal: AbortSignal,
  onReload: (version: string) => void,
): Promise<void> {
  try {
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event === 'reload' && data) onReload((JSON.parse(data) as { version: string }).version);
        end = buffer.indexOf('\n\n');
      }
    }
  } catch (e) {
    if (!signal.aborted) throw e;
  }
}

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((done) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => done(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

async function readText(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8');
}

// `npm run bench:scale-out [-- --swaps N]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const swapsArg = process.argv.indexOf('--swaps');
  const swaps = swapsArg === -1 ? 30 : Number(process.argv[swapsArg + 1]);
  const report = await runScaleOut({ swaps, log: (l) => console.error(l) });
  const [l1, l5, l15] = os.loadavg();
  console.log(
    JSON.stringify(
      {
        machine: `${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
        load: `${l1!.toFixed(2)} ${l5!.toFixed(2)} ${l15!.toFixed(2)}`,
        replicas: report.replicas,
        swaps: report.swaps,
        convergeP50Ms: Math.round(quantile(report.convergeMs, 0.5)),
        convergeP99Ms: Math.round(quantile(report.convergeMs, 0.99)),
        convergeMaxMs: Math.round(Math.max(...report.convergeMs)),
        notConverged: report.notConverged,
        requests: report.requests,
        failed: report.failed,
        mixed: report.mixed,
        eventsSeen: `${report.eventsSeen}/${report.swaps}`,
      },
      null,
      2,
    ),
  );
}
