import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPack } from '../src/source/load.js';
import { generateLayout } from './gen-layouts.js';
import { BENCH_LIMITS } from './gen-pack.js';

const dir = mkdtempSync(join(tmpdir(), 'prof-'));
generateLayout(dir, process.argv[2] as 'crewai', 1000);
await loadPack(dir, { env: {}, ...BENCH_LIMITS });
(globalThis as any).__globs = new Map();
await loadPack(dir, { env: {}, ...BENCH_LIMITS });
console.log([...(globalThis as any).__globs].sort((a: any, b: any) => b[1] - a[1]).slice(0, 15));
