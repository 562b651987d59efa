import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPack } from '../src/source/load.js';
import { generateLayout } from './gen-layouts.js';
import { BENCH_LIMITS } from './gen-pack.js';

const preset = process.argv[2] as 'crewai';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
generateLayout(dir, preset, 1000);
for (let i = 0; i < 8; i++) {
  const t = performance.now();
  const r = await loadPack(dir, { env: {}, ...BENCH_LIMITS });
  console.log((performance.now() - t).toFixed(1), r.snapshot?.roles.size);
}
console.log(process.argv[3] === 'show' ? '' : '');
