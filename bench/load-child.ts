import { loadPack } from '../src/source/load.js';
import { readPackDir } from '../src/source/read-dir.js';
import { BENCH_LIMITS } from './gen-pack.js';
import { readAllSync } from './read-all.js';

/**
 * Child process of the load benchmark, so each measurement has its own peak RSS:
 * `load-child.ts load|read|walk|none DIR` prints `{ ms, maxRssKiB }`.
 */
const [mode, dir] = process.argv.slice(2);
const start = performance.now();
if (mode === 'load') {
  const { snapshot } = await loadPack(dir!, { env: {}, ...BENCH_LIMITS });
  if (!snapshot) throw new Error('pack failed to load');
} else if (mode === 'read') {
  readAllSync(dir!);
} else if (mode === 'walk') {
  await readPackDir(dir!);
}
const ms = performance.now() - start;
process.stdout.write(JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS }));
