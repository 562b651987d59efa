/**
 * Cold import time of each public entry of the built package (dist/), against `node -e 0`
 * in the same run: every round starts a fresh node for the baseline and for each entry,
 * in turn, so load on the machine falls on all alike. Prints the median and the fastest
 * wall time per entry and the median above the baseline.
 *
 * Usage: `npm run bench:import` (builds first). ROUNDS=n sets the rounds (default 15).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const ENTRIES = ['index', 'runtime', 'client', 'server', 'cli', 'tooling'];

const cases: Array<{ name: string; args: string[] }> = [
  { name: 'node -e 0', args: ['-e', '0'] },
  ...ENTRIES.map((e) => ({
    name: e === 'index' ? '.' : `./${e}`,
    args: [
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'src', `${e}.js`)).href)})`,
    ],
  })),
];
const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, c.args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (r.status !== 0) throw new Error(`${c.name} failed: ${r.stderr}`);
    times.get(c.name)!.push(ms);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(times.get('node -e 0')!);
console.log(`${ROUNDS} rounds, node ${process.version}`);
console.log('entry        median ms   fastest ms   median above node -e 0');
for (const c of cases) {
  const xs = times.get(c.name)!;
  const m = median(xs);
  console.log(
    `${c.name.padEnd(12)} ${m.toFixed(0).padStart(9)} ${Math.min(...xs)
      .toFixed(0)
      .padStart(12)} ${c.name === 'node -e 0' ? '' : (m - base).toFixed(0).padStart(12)}`,
  );
}
