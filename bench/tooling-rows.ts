import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as RunModule from '../src/cli/run.js';
import { BENCH_LIMITS, generatePack } from './gen-pack.js';
import { fileReuse, fromTree, loadPack } from './lib.js';

// The CLI measured in this process is the built one (or the sources with BENCH_SRC=1).
const { run } = await fromTree<typeof RunModule>('cli/run.js');

/** How {@link toolingRows} measures. */
export interface ToolingRowsOptions {
  /** Fleet sizes (each pack has as many roles as agents). */
  sizes: number[];
  /** Rounds per size (the median is reported). */
  rounds?: number;
  /** Where the table's lines go. */
  log?: (line: string) => void;
}

/**
 * `strata validate` and `strata diff` on generated roboco-style packs with a fleet (as
 * many roles as agents, each agent with its identity file), run in this process through
 * the CLI's own `run(argv, io)` with nothing kept from an earlier read of the packs,
 * against a cold load of the same pack in the same round (the floor: validate reads and
 * builds the pack once, diff twice), in CPU time. The diff compares the pack with a copy whose base.md
 * has one more line, so every member's prompt changes and each gets its own unified diff.
 * Time per member shows whether the work is linear. With the built CLI
 * (`dist/bin/strata.js`), the same commands in a fresh process too, beside `node -e 0`:
 * what a user waits for, the first token count's table load included.
 */
export async function toolingRows(options: ToolingRowsOptions): Promise<void> {
  const { sizes, rounds = 5, log = console.log } = options;
  const dist = join(import.meta.dirname, '..', 'dist', 'bin', 'strata.js');
  const fresh = existsSync(dist);
  log(
    `| members | files | cold load, CPU ms | validate, CPU ms | **validate / load** | validate, CPU µs per member | diff, CPU ms (every member changed) | **diff / (2 × load)** | diff, CPU µs per member |${fresh ? ' fresh process, wall: `node -e 0` ms | validate ms | diff ms |' : ''}`,
  );
  log(
    `| ${Array(fresh ? 12 : 9)
      .fill('---')
      .join(' | ')} |`,
  );
  for (const members of sizes) {
    const base = mkdtempSync(join(tmpdir(), `strata-tooling-${members}-`));
    const before = join(base, 'before');
    const after = join(base, 'after');
    const files = generatePack(before, members, members);
    cpSync(before, after, { recursive: true });
    appendFileSync(join(after, 'base.md'), 'One more base rule: say what you did not check.\n');
    const limits = [
      '--max-files',
      String(BENCH_LIMITS.maxFiles),
      '--max-pack-bytes',
      String(BENCH_LIMITS.maxPackBytes),
    ];
    const validate = ['validate', '--dir', after, ...limits];
    const diff = ['diff', '--dir', after, '--base-dir', before, '--stat', ...limits];
    const samples = { load: [] as number[], validate: [] as number[], diff: [] as number[] };
    for (let r = 0; r <= rounds; r++) {
      const load = await timed(async () => {
        if (!(await loadPack(after, { env: {}, ...BENCH_LIMITS })).snapshot) throw new Error('load failed');
      });
      const v = await timed(() => command(validate, 0));
      const d = await timed(() => command(diff, 0));
      // Round 0 warms the page cache, the code, and the token counter's tables.
      if (r === 0) continue;
      samples.load.push(load);
      samples.validate.push(v);
      samples.diff.push(d);
    }
    const [load, v, d] = [median(samples.load), median(samples.validate), median(samples.diff)];
    const cells = [
      members.toLocaleString('en-US'),
      files.toLocaleString('en-US'),
      load.toFixed(0),
      v.toFixed(0),
      `**${(v / load).toFixed(2)}**`,
      ((v * 1000) / members).toFixed(0),
      d.toFixed(0),
      `**${(d / (2 * load)).toFixed(2)}**`,
      ((d * 1000) / members).toFixed(0),
    ];
    if (fresh) {
      const proc = (args: string[]) => median([0, 1, 2].map(() => wall(process.execPath, args)));
      cells.push(
        proc(['-e', '0']).toFixed(0),
        proc([dist, ...validate]).toFixed(0),
        proc([dist, ...diff]).toFixed(0),
      );
    }
    log(`| ${cells.join(' | ')} |`);
    rmSync(base, { recursive: true, force: true });
  }
}

// --- internal ---

/** Runs a CLI command in this process (output dropped); throws unless it exits with `expected`. */
async function command(argv: string[], expected: number): Promise<void> {
  fileReuse.clear();
  const code = await run(argv, {
    stdout: () => {},
    stderr: () => {},
    env: {},
    cwd: process.cwd(),
    isTTY: false,
  });
  if (code !== expected) throw new Error(`${argv.join(' ')}: exit ${code}`);
}

/**
 * The CPU time (user + system, every thread of this process) `fn` takes, in ms: on a
 * machine others share, wall time counts the time the process waited for a core.
 */
async function timed(fn: () => Promise<void>): Promise<number> {
  fileReuse.clear();
  const t0 = process.cpuUsage();
  await fn();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
}

/** Wall time of a fresh process, in ms (output dropped; a failing run still counts). */
function wall(cmd: string, args: string[]): number {
  const t0 = performance.now();
  try {
    execFileSync(cmd, args, { stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
  } catch {
    // A non-zero exit (diff with --exit-code, a warning under --strict) is still a run.
  }
  return performance.now() - t0;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
