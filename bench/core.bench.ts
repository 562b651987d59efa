import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ComposeRequest, compose } from '../src/core/compose.js';
import { sha256 } from '../src/core/text.js';
import { loadPack, loadPackStrict } from '../src/source/load.js';
import { generatePack } from './gen-pack.js';
import { compare, machine } from './measure.js';
import { readAll } from './read-all.js';

/**
 * `npm run bench`: the composition core against baselines measured in the same run.
 * (1) compose with full provenance vs joining pre-read layer strings and hashing;
 * (2) loading generated packs vs only reading their files (time and peak memory).
 */
const out: string[] = [];
const log = (line: string) => {
  out.push(line);
  console.log(line);
};

log(`machine: ${machine()}; ${new Date().toISOString().slice(0, 10)}`);

// (1) Compose throughput over every fleet member of examples/roboco.
const snapshot = await loadPackStrict(join(import.meta.dirname, '..', 'examples', 'roboco'), { env: {} });
const requests: ComposeRequest[] = snapshot.fleet.map((a) => ({
  agent: a.id,
  settings: { fable_mode_enabled: 'on' },
}));
const separator = snapshot.manifest.separator;
const preRead = requests.map((r) => {
  const result = compose(snapshot, r);
  const bytes = Buffer.from(result.text);
  return result.layers.filter((l) => l.included).map((l) => bytes.subarray(l.start!, l.end!).toString());
});
const composeRun = compare(
  () => {
    for (const layers of preRead) sha256(layers.join(separator));
  },
  () => {
    for (const r of requests) compose(snapshot, r);
  },
);
const c = await composeRun;
const perSec = (ms: number) => Math.round((requests.length / ms) * 1000).toLocaleString('en-US');
log('');
log(`## Compose throughput (${requests.length} fleet members of examples/roboco, fable on)`);
log('');
log('| | ms per fleet pass | composes/s |');
log('| --- | --- | --- |');
log(`| baseline: join pre-read layers + sha256 | ${c.baseline.toFixed(3)} | ${perSec(c.baseline)} |`);
log(`| strata compose, full provenance | ${c.subject.toFixed(3)} | ${perSec(c.subject)} |`);
log(`| **ratio** (target <= 2.0) | **${c.ratio.toFixed(2)}** | |`);

// (2) Load time and peak memory for generated packs.
log('');
log('## Pack load (generated roboco-style packs: roles.yaml + 3 files per role)');
log('');
log(
  '| roles | files | read-only ms | load ms | **time ratio** (target <= 3.0) | read-only peak RSS | load peak RSS | **memory ratio** |',
);
log('| --- | --- | --- | --- | --- | --- | --- | --- |');
const child = (mode: string, dir: string) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'load-child.ts'), mode, dir],
      {
        encoding: 'utf8',
      },
    ),
  ) as { ms: number; maxRssKiB: number };
for (const roles of [100, 1000, 10000]) {
  const dir = mkdtempSync(join(tmpdir(), `strata-bench-${roles}-`));
  const files = generatePack(dir, roles);
  const rounds = roles >= 10000 ? 3 : 5;
  const t = await compare(
    () => readAll(dir),
    async () => {
      const { snapshot: s } = await loadPack(dir, { env: {}, maxFileBytes: 16 * 2 ** 20 });
      if (!s) throw new Error('load failed');
    },
    rounds,
    roles >= 10000 ? 1 : 200,
    roles >= 10000 ? 1 : 5,
  );
  const mem = (mode: string) => Math.min(...[0, 1, 2].map(() => child(mode, dir).maxRssKiB));
  const readRss = mem('read');
  const loadRss = mem('load');
  const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
  log(
    `| ${roles.toLocaleString('en-US')} | ${files.toLocaleString('en-US')} | ${t.baseline.toFixed(1)} | ${t.subject.toFixed(1)} | **${t.ratio.toFixed(2)}** | ${mib(readRss)} | ${mib(loadRss)} | **${(loadRss / readRss).toFixed(2)}** |`,
  );
  rmSync(dir, { recursive: true, force: true });
}
