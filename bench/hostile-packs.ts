import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBundle } from '../src/source/bundle.js';
import { readPackDir } from '../src/source/read-dir.js';
import { fleetYaml } from '../test/hostile/fleet.js';
import { paxBomb } from '../test/hostile/tar-entries.js';

/**
 * `npm run bench:hostile`, the attacks through the pack: /healthz probed while a writer
 * feeds the served pack something hostile, against the same service's quiet phases
 * (quiet and attacked phases alternate, so a change in the machine's load falls on both).
 *
 * - pax bomb: the served bundle swapped every 500 ms, back and forth, between a good
 *   bundle and a 150 KB one holding 70 MiB of tiny pax records before its one file;
 * - 10k-agent fleet edit: a served fleet.yaml of 10,000 agents saved every second with
 *   one line changed, then changed back (each save read, built and compared);
 * - FIFO race: the served bundle swapped every 20 ms between a FIFO and a good bundle.
 *
 * The writer is a process of its own (as a deploy tool or the kubelet is), at normal
 * priority; each of its writes is a file copied beside the target and renamed over it.
 */
export async function packAttacks(bench: PackBench): Promise<void> {
  const quiet: Probes = { latencies: [], failed: 0 };
  const rows: string[] = [];
  for (const [i, attack] of ATTACKS.entries()) {
    const dir = join(bench.base, `attack-${i}`);
    mkdirSync(join(dir, 'spare'), { recursive: true });
    const setup = await attack.setup(dir);
    const service = await bench.start(['--dir', setup.served]);
    try {
      const attacked: Probes = { latencies: [], failed: 0 };
      const before = await reloads(service.url);
      let writes = 0;
      for (let round = 0; round < bench.rounds; round++) {
        add(quiet, await bench.probeFor(service.url, bench.seconds * 1000));
        const writer = startWriter(setup.target, join(dir, 'spare'), attack.everyMs, setup.sources);
        try {
          add(attacked, await bench.probeFor(service.url, bench.seconds * 1000));
        } finally {
          writes += await writer.stop();
        }
      }
      const after = await reloads(service.url);
      const health = await fetch(`${service.url}/healthz`).then((r) => r.status);
      const what = `${writes} writes, ${after - before} reloads; /healthz ${health} after`;
      rows.push(bench.row(attack.name, what, attacked, quiet));
    } finally {
      await service.stop();
    }
  }
  console.log('## /healthz while the pack is attacked\n');
  console.log(
    `${bench.seconds} s per phase, ${bench.rounds} rounds of quiet and attacked phases per attack, each attack against its own service (\`--dir\` the bundle or the folder, every other flag at its default); probes every 20 ms on a new connection with a 1 s timeout. The quiet row gathers the quiet phases of all three services.\n`,
  );
  console.log(
    '| phase | writes and reloads | probes | failed (>1 s or error) | p50 ms | p99 ms | max ms | p99 / quiet p99 |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  console.log(bench.row('no attack', '—', quiet, quiet));
  for (const r of rows) console.log(r);
  console.log('');
}

/** What the bench gives the pack attacks: its service, its prober and its table row. */
export interface PackBench {
  /** A scratch folder the bench removes. */
  base: string;
  seconds: number;
  rounds: number;
  start(args: string[]): Promise<{ url: string; stop: () => Promise<void> }>;
  probeFor(url: string, durationMs: number): Promise<Probes>;
  row(name: string, requests: string, r: Probes, quiet: Probes): string;
}

export interface Probes {
  latencies: number[];
  failed: number;
}

// --- internal ---

interface Attack {
  name: string;
  everyMs: number;
  /**
   * Makes the served pack in `dir`: what to serve, the file the writer replaces and the
   * files it puts there in turn ('FIFO': a new FIFO).
   */
  setup(dir: string): Promise<{ served: string; target: string; sources: string[] }>;
}

const ROOT = join(import.meta.dirname, '..');

const ATTACKS: Attack[] = [
  {
    name: 'pax bomb: the served bundle swapped every 500 ms between a good one and a 150 KB one holding 70 MiB of pax records',
    everyMs: 500,
    async setup(dir) {
      const served = await goodBundle(dir);
      const bomb = join(dir, 'bomb.tgz');
      writeFileSync(bomb, paxBomb(70));
      return { served, target: served, sources: [bomb, join(dir, 'good.tgz')] };
    },
  },
  {
    name: '10k-agent fleet edit: a 10,000-agent fleet.yaml saved every second with one line changed, then back',
    everyMs: 1000,
    async setup(dir) {
      const served = join(dir, 'pack');
      cpSync(join(ROOT, 'examples/roboco'), served, { recursive: true });
      const text = fleetYaml(10_000);
      const line = '  - id: agent-5000\n    role: architect\n    team: growth\n';
      writeFileSync(join(served, 'fleet.yaml'), text);
      writeFileSync(join(dir, 'edited.yaml'), text.replace(line, line.replace('growth', 'payments')));
      writeFileSync(join(dir, 'original.yaml'), text);
      const target = join(served, 'fleet.yaml');
      return { served, target, sources: [join(dir, 'edited.yaml'), join(dir, 'original.yaml')] };
    },
  },
  {
    name: 'FIFO race: the served bundle swapped every 20 ms between a FIFO and a good bundle',
    everyMs: 20,
    async setup(dir) {
      const served = await goodBundle(dir);
      return { served, target: served, sources: ['FIFO', join(dir, 'good.tgz')] };
    },
  },
];

/** A bundle of examples/roboco at `dir/pack.tgz`, and a copy at `dir/good.tgz`. */
async function goodBundle(dir: string): Promise<string> {
  const bytes = createBundle((await readPackDir(join(ROOT, 'examples/roboco'))).files);
  writeFileSync(join(dir, 'good.tgz'), bytes);
  writeFileSync(join(dir, 'pack.tgz'), bytes);
  return join(dir, 'pack.tgz');
}

/**
 * The writer: every `ms`, the next of `sources` (a file, or 'FIFO' for a new FIFO) is put
 * in `spare` and renamed over `target`. It stops when told, answering with its writes.
 */
const WRITER = `
import { copyFileSync, renameSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
const [target, spare, ms, ...sources] = process.argv.slice(1);
let n = 0;
const timer = setInterval(() => {
  const source = sources[n % sources.length];
  const temp = join(spare, 'next-' + n);
  if (source === 'FIFO') execFileSync('mkfifo', [temp]);
  else copyFileSync(source, temp);
  renameSync(temp, target);
  n++;
}, Number(ms));
process.on('message', () => {
  clearInterval(timer);
  process.send(n, () => process.exit(0));
});
`;

function startWriter(
  target: string,
  spare: string,
  ms: number,
  sources: string[],
): { stop(): Promise<number> } {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--input-type=module', '-e', WRITER, target, spare, String(ms), ...sources],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  return {
    stop: () =>
      new Promise((done, fail) => {
        if (child.exitCode !== null) return fail(new Error(`the writer exited ${child.exitCode}`));
        child.once('message', (n) => done(n as number));
        child.once('exit', (code) => fail(new Error(`the writer exited ${code}`)));
        child.send('stop');
      }),
  };
}

async function reloads(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const m of metrics.matchAll(/^strata_reloads_total\{[^}]*\} (\d+)$/gm)) total += Number(m[1]);
  return total;
}

function add(into: Probes, from: Probes): void {
  into.latencies.push(...from.latencies);
  into.failed += from.failed;
}
