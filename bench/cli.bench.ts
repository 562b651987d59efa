/**
 * `npm run bench:cli`: the built `strata` command (dist/bin/strata.js) started fresh,
 * against `node -e 0` in the same run: `--version`, `--help`, a one-shot `compose` of
 * the roboco example's agent, and the same with `--json` (token counts: the tokenizer
 * loads). Every round runs each case once, in turn, so load on the machine falls on all
 * alike; prints the median and fastest wall time of each and the median's ratio to
 * `node -e 0`'s, with the load average before and after.
 *
 * Usage: `npm run bench:cli` (builds first). ROUNDS=n sets the rounds (default 21).
 * BEFORE=<another build's dist/bin/strata.js> runs that build's cases too, in the same
 * rounds ("before:" rows): a change measured against its base under the same load.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { machine } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.ROUNDS ?? 21);
const BIN = join(ROOT, 'dist', 'bin', 'strata.js');
const PACK = join(ROOT, 'examples', 'roboco');

const BEFORE = process.env.BEFORE;

const cases: Array<{ name: string; args: string[]; target?: number }> = [
  { name: 'node -e 0', args: ['-e', '0'] },
  ...strataCases(BIN, ''),
  ...(BEFORE ? strataCases(BEFORE, 'before: ') : []),
];

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
console.log(`machine: ${machine()}; ${ROUNDS} rounds; load average before: ${load()}`);
const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, c.args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (r.status !== 0) throw new Error(`${c.name} failed (${r.status}): ${r.stderr}`);
    times.get(c.name)!.push(ms);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(times.get('node -e 0')!);
console.log('\n| command | median ms | fastest ms | median ÷ `node -e 0` | target |');
console.log('| --- | --- | --- | --- | --- |');
for (const c of cases) {
  const xs = times.get(c.name)!;
  const m = median(xs);
  const ratio = c.name === 'node -e 0' ? '1' : (m / base).toFixed(2);
  console.log(
    `| \`${c.name}\` | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${ratio} | ${c.target ? `≤ ${c.target}` : ''} |`,
  );
}
console.log(`\nload average after: ${load()}`);

/** The strata commands measured, of the build whose bin is `bin`. */
function strataCases(bin: string, label: string): Array<{ name: string; args: string[]; target?: number }> {
  const target = (n: number) => (label ? undefined : n);
  return [
    { name: `${label}strata --version`, args: [bin, '--version'], target: target(2) },
    { name: `${label}strata --help`, args: [bin, '--help'] },
    {
      name: `${label}strata compose`,
      args: [bin, 'compose', '--dir', PACK, '--agent', 'ada'],
      target: target(3),
    },
    {
      name: `${label}strata compose --json`,
      args: [bin, 'compose', '--dir', PACK, '--agent', 'ada', '--json'],
    },
  ];
}
