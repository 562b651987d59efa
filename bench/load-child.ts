import { readFileSync } from 'node:fs';
import { getHeapCodeStatistics, getHeapSpaceStatistics } from 'node:v8';
import { BENCH_LIMITS } from './gen-pack.js';
import { loadPack, readPackDir } from './lib.js';
import { readAllSync } from './read-all.js';

/**
 * Child process of the load benchmark, so each measurement has its own peak RSS:
 * `node --expose-gc --import tsx load-child.ts load|read|walk|none DIR` prints
 * `{ ms, maxRssKiB, heldRssKiB, youngKiB, addedRssKiB, addedYoungKiB, heapExternalKiB,
 * addedHeapKiB, addedCodeKiB }`: the time, the peak RSS, the RSS once the heap is
 * collected with what was loaded still held, the engine's young generation then, what both
 * grew by over the same process collected before the load, the heap in use plus the memory
 * outside it, what that grew by, and the compiled code's part of the growth (machine code
 * and bytecode with their metadata: bounded by the program, whatever the pack).
 */
const [mode, dir] = process.argv.slice(2);
const status = () => readFileSync('/proc/self/status', 'utf8');
const kib = (text: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)![1]);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
/**
 * RSS, the young generation, the heap in use plus the memory outside it, and the compiled
 * code in the heap, once the heap is collected (twice: a second pass frees what the first
 * one's finalisers released).
 */
async function collected(): Promise<{ rssKiB: number; youngKiB: number; heapKiB: number; codeKiB: number }> {
  gc!();
  await new Promise((r) => setTimeout(r, 50));
  gc!();
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!;
  const code = getHeapCodeStatistics();
  const { heapUsed, external } = process.memoryUsage();
  return {
    rssKiB: kib(status(), 'VmRSS'),
    youngKiB: young.physical_space_size / 1024,
    heapKiB: (heapUsed + external) / 1024,
    // Machine code and bytecode with their metadata (deoptimization data, source positions).
    codeKiB: (code.code_and_metadata_size + code.bytecode_and_metadata_size) / 1024,
  };
}
// This process before the load: what it adds is measured against the same process, so a
// fresh process's own RSS (which varies by several MiB from one to the next) cancels out.
const before = await collected();
const start = performance.now();
let held: unknown;
if (mode === 'load') {
  const { snapshot } = await loadPack(dir!, { env: {}, ...BENCH_LIMITS });
  if (!snapshot) throw new Error('pack failed to load');
  held = snapshot;
} else if (mode === 'read') {
  readAllSync(dir!);
} else if (mode === 'walk') {
  held = await readPackDir(dir!);
}
const ms = performance.now() - start;
// The peak RSS of this process image (VmHWM): `resourceUsage().maxRSS` would also count
// the parent's memory copied at fork, before this program was exec'd.
const maxRssKiB = kib(status(), 'VmHWM');
// What the loaded pack holds: RSS once its garbage is collected.
const after = await collected();
const heldRssKiB = after.rssKiB;
process.stdout.write(
  JSON.stringify({
    ms,
    maxRssKiB,
    heldRssKiB,
    youngKiB: after.youngKiB,
    addedRssKiB: after.rssKiB - before.rssKiB,
    addedYoungKiB: after.youngKiB - before.youngKiB,
    // The same held memory as the engine counts it (no allocator slack, no pages of other
    // processes' making): the JS heap in use and the memory outside it (file bytes); and
    // what it grew by over the same process before the load (a fresh process's own heap
    // varies by ~0.15 MiB from one to the next), with the compiled code's share of that.
    heapExternalKiB: after.heapKiB,
    addedHeapKiB: after.heapKiB - before.heapKiB,
    addedCodeKiB: after.codeKiB - before.codeKiB,
    held: held !== undefined,
  }),
);
