import os from 'node:os';

/** Small timing helpers shared by the benchmarks (not tests: they report, never assert). */

export interface Timing {
  /** Median milliseconds per run. */
  median: number;
  runs: number;
}

/** A clock in milliseconds. */
export type Clock = () => number;

/** Wall time. */
export const wallClock: Clock = () => performance.now();

/**
 * CPU time of this process (user + system): on a shared machine a long run is taken off
 * the CPU more often than a short one, which wall time counts and CPU time does not.
 */
export const cpuClock: Clock = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Runs `fn` for about `ms` milliseconds (after a warm-up) and returns the median run time. */
export async function timeIt(
  fn: () => unknown | Promise<unknown>,
  ms = 1000,
  minRuns = 5,
  warmups = 3,
  clock: Clock = wallClock,
): Promise<Timing> {
  for (let i = 0; i < warmups; i++) await fn();
  const samples: number[] = [];
  const deadline = performance.now() + ms;
  while (samples.length < minRuns || performance.now() < deadline) {
    const start = clock();
    await fn();
    samples.push(clock() - start);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)]!, runs: samples.length };
}

/** Alternates baseline and subject rounds so machine noise hits both alike. */
export async function compare(
  baseline: () => unknown | Promise<unknown>,
  subject: () => unknown | Promise<unknown>,
  rounds = 5,
  ms = 300,
  minRuns = 5,
  clock: Clock = wallClock,
): Promise<{ baseline: number; subject: number; ratio: number }> {
  const b: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < rounds; i++) {
    b.push((await timeIt(baseline, ms, minRuns, i === 0 ? 1 : 0, clock)).median);
    s.push((await timeIt(subject, ms, minRuns, i === 0 ? 1 : 0, clock)).median);
  }
  const med = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const baselineMs = med(b);
  const subjectMs = med(s);
  return { baseline: baselineMs, subject: subjectMs, ratio: subjectMs / baselineMs };
}

export function machine(): string {
  return `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}
