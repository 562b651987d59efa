import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { parseDocument } from 'yaml';
import type * as StartModule from '../src/server/node/start.js';
import type * as OpenModule from '../src/source/open.js';
import { largeFleetPack } from '../test/hostile/fleet.js';
import { fromTree, TREE_NOTE } from './lib.js';
import { machine } from './measure.js';

// The service and loader measured are the built ones (or the sources with BENCH_SRC=1).
const { startService } = await fromTree<typeof StartModule>('server/node/start.js');
const { openPack } = await fromTree<typeof OpenModule>('source/open.js');

/**
 * `npm run bench:fleet [-- --agents 10000,100000]`: a pack (examples/roboco) whose
 * fleet.yaml lists that many agents.
 *
 * 1. Load: `openPack` of the pack (read, parse, fleet, every agent located), median of 5,
 *    against the floors of reading that fleet.yaml alone in the same run: the `yaml`
 *    package's `parseDocument().toJS()` of it, and `JSON.parse` of the same agents as JSON.
 * 2. Edit → served: a running service (watcher on); fleet.yaml saved with one agent's team
 *    changed, timed until that agent's prompt has the new team, 6 edits; against an edit
 *    of base.md in the same service (the same read, a patched build). Also the longest the
 *    event loop was held during the edits (the same process runs the fetching client).
 */

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1]!;
};
const SIZES = arg('--agents', '10000').split(',').map(Number);
const EDITS = 6;

console.log(
  `machine: ${machine()}; ${TREE_NOTE}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')}\n`,
);
console.log(
  '| agents | fleet.yaml | load (openPack) ms | `yaml` parse ms | `JSON.parse` ms | load / `yaml` | fleet edit → served p50 / max ms | base.md edit → served p50 / max ms | longest event-loop block ms |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const agents of SIZES) {
  const maxFileBytes = 16 * 1024 * 1024;
  const dir = largeFleetPack(agents);
  const text = readFileSync(join(dir, 'fleet.yaml'), 'utf8');
  const json = JSON.stringify(parseDocument(text).toJS());
  const load = await median(async () => {
    const read = await openPack({ kind: 'dir', dir }, { env: {}, maxFileBytes });
    if (read.snapshot?.fleet.length !== agents + 8) throw new Error(JSON.stringify(read.diagnostics));
  });
  const yamlMs = await median(async () => void parseDocument(text).toJS());
  const jsonMs = await median(async () => void JSON.parse(json));
  const edits = await editRows(dir, agents, text, maxFileBytes);
  console.log(
    `| ${agents.toLocaleString('en')} | ${(text.length / 1024).toFixed(0)} KB | ${load.toFixed(0)} | ${yamlMs.toFixed(0)} | ${jsonMs.toFixed(1)} | ${(load / yamlMs).toFixed(2)}× | ${edits.fleet} | ${edits.base} | ${edits.block.toFixed(0)} |`,
  );
  rmSync(dirname(dir), { recursive: true, force: true });
}

// --- internal ---

async function median(run: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[2]!;
}

async function editRows(
  dir: string,
  agents: number,
  text: string,
  maxFileBytes: number,
): Promise<{ fleet: string; base: string; block: number }> {
  const started = await startService({
    dir,
    env: {},
    port: 0,
    maxFileBytes,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  const { service } = started;
  try {
    const prompt = async (agent: string) =>
      (
        await fetch(`${service.url}/api/agents/${agent}/prompt`, { headers: { accept: 'text/plain' } })
      ).text();
    while (!(await fetch(`${service.url}/readyz`)).ok) await sleep(50);
    await sleep(3000);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    // The agent edited: one near the middle whose role is architect and team growth
    // (largeFleetPack gives agent i ROLES[i % 3] and TEAMS[i % 3]: agent-5000 of 10,000).
    const probe = `agent-${3 * Math.floor(agents / 6) + 2}`;
    const line = `  - id: ${probe}\n    role: architect\n    team: growth\n`;
    if (!text.includes(line)) throw new Error(`fleet.yaml has no ${JSON.stringify(line)}`);
    const fleet: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const team = i % 2 === 0 ? 'payments' : 'growth';
      fleet.push(
        await edit(join(dir, 'fleet.yaml'), text.replace(line, line.replace('growth', team)), async () =>
          (await prompt(probe)).includes(`# Team: ${team[0]!.toUpperCase()}${team.slice(1)}`),
        ),
      );
    }
    const base: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const marker = `Base edit ${i}.`;
      base.push(
        await edit(join(dir, 'base.md'), `${marker}\n`, async () => (await prompt(probe)).includes(marker)),
      );
    }
    delay.disable();
    return { fleet: pair(fleet), base: pair(base), block: delay.max / 1e6 };
  } finally {
    await service.close();
  }
}

/** Saves `text` over `file` (a rename, as editors do), waits until `served`, and waits for the service to go quiet. */
async function edit(file: string, text: string, served: () => Promise<boolean>): Promise<number> {
  writeFileSync(`${file}.tmp~`, text);
  const t = performance.now();
  renameSync(`${file}.tmp~`, file);
  while (!(await served())) {
    if (performance.now() - t > 60_000) throw new Error(`${file}: the edit was not served within 60 s`);
    await sleep(5);
  }
  const ms = performance.now() - t;
  await sleep(500);
  return ms;
}

function pair(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  return `${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} / ${sorted.at(-1)!.toFixed(0)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
