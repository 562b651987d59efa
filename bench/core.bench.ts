import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
} from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import {
  buildSnapshot,
  type ComposeRequest,
  compose,
  DEFAULT_CACHE_BYTES,
  defaultEngine,
  fileReuse,
  fromTree,
  loadPack,
  loadPackStrict,
  readPackDir,
  sha256,
  TREE_NOTE,
} from './lib.js';

const setCacheBudget = (bytes: number) => {
  defaultEngine.cache.maxBytes = bytes;
};

import { acceleratorRows } from './accelerators.js';
import { generateLayout } from './gen-layouts.js';
import { agentsFor, BENCH_LIMITS, generatePack } from './gen-pack.js';
import { compare, cpuClock, machine } from './measure.js';
import { RAW_READS, readAllSync } from './read-all.js';
import { reloadRows } from './reload-rows.js';
import { toolingRows } from './tooling-rows.js';

/**
 * `npm run bench`: the composition core against baselines measured in the same run.
 * (1) compose with full provenance vs joining pre-read layer strings and hashing; each
 *     accelerator of the engine against the engine without it; a request's first compose
 *     on a freshly built snapshot of generated packs (`first`, at the `--roles` sizes);
 * (2) loading generated packs vs only reading their files (time and peak memory);
 * (2b) a cold load's read and build, each against readFileSync (`loadparts`);
 * (3) the crewai, claude-agents and agents-md layouts: compose and load, same baselines;
 * (4) a one-file edit until served, by a running service on the same generated packs
 *     (`bench/reload-rows.ts`; `npm run bench:reload` runs it alone, with more options);
 * (5) `strata validate` and `strata diff` of fleets of 500 to 2,000 members against a cold
 *     load of the same pack (`bench/tooling-rows.ts`; `npm run bench:tooling` adds fresh
 *     processes of the built CLI).
 * `--agents N` gives the load and reload packs a fleet of N agents, each with its
 * identity file (`--agents roles`: as many as the pack has roles; default none: every
 * role is a member).
 * Sections (1)–(3) measure the built `dist/` (`bench/lib.ts`; BENCH_SRC=1 measures the
 * sources through tsx); (4) and (5) run the sources and the built CLI as before.
 */
const out: string[] = [];
const log = (line: string) => {
  out.push(line);
  console.log(line);
};

log(`machine: ${machine()}; ${new Date().toISOString().slice(0, 10)}; ${TREE_NOTE}`);

// `--only compose,accelerators,first,load,loadparts,layouts,reload,tooling,cache` runs some sections (default: all).
// `--roles` picks the generated packs' sizes for load and reload (default 1000,10000; add 50000
// for the largest).
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg === -1 ? undefined : new Set(process.argv[onlyArg + 1]!.split(','));
const section = (
  name:
    | 'compose'
    | 'accelerators'
    | 'first'
    | 'load'
    | 'loadparts'
    | 'layouts'
    | 'reload'
    | 'tooling'
    | 'cache',
) => !only || only.has(name);
const agentsArg = process.argv.indexOf('--agents');
const AGENTS = agentsArg === -1 ? undefined : process.argv[agentsArg + 1];
let gcNow: ((options?: { type: 'minor' | 'major' }) => void) | undefined;
/** The load rows' pair measured after a full collection. */
const [FULL_FLOOR, FULL_LOAD] = ['readFileSync after a full collection', 'load after a full collection'];

// (1) Compose throughput over every fleet member of examples/roboco.
if (section('compose')) await composeRows();

// (1c) Each accelerator of the engine against the engine without it; the first compose.
if (section('accelerators')) await acceleratorRows(log, loadAverage);

// (1d) A request's first compose on a freshly built snapshot of a generated pack, at sizes.
if (section('first')) await firstRows();

/**
 * A request's first compose on a snapshot just built from the pack's bytes (what the first
 * request after a reload, and a CLI call, pays), for packs of 1,000 and 10,000 roles with as
 * many agents (`--roles` picks the sizes), against join + sha256 of the same layers; and
 * the next compose on that snapshot, of another member.
 */
async function firstRows(): Promise<void> {
  const rolesArg = process.argv.indexOf('--roles');
  const sizes = rolesArg === -1 ? [1000, 10000] : process.argv[rolesArg + 1]!.split(',').map(Number);
  log('');
  log(
    `## A request's first compose on a freshly built snapshot (generated roboco-style packs, as many agents as roles; load ${loadAverage()})`,
  );
  log('');
  log(
    '| roles | request | join + sha256 µs | first compose µs | **first / join** (target <= 3) | the same, code warm µs | **warm / join** | the next compose (another member) µs | **next / join** | look up, decode, join + sha256 on the fresh snapshot µs | **first / that** |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  setCacheBudget(0);
  for (const roles of sizes) {
    const dir = mkdtempSync(join(tmpdir(), `strata-bench-first-${roles}-`));
    generatePack(dir, roles, roles);
    const read = await readPackDir(dir, BENCH_LIMITS);
    const make = () =>
      buildSnapshot({ files: new Map([...read.files].map(([p, b]) => [p, b.slice()])), env: {} }).snapshot!;
    const snapshot = make();
    const member = snapshot.fleet[Math.floor(roles / 2)]!;
    const other = snapshot.fleet[Math.floor(roles / 3)]!;
    for (const [label, request, next] of [
      ['a fleet member (`agent`)', { agent: member.id }, { agent: other.id }],
      [
        'a role and a team',
        { role: member.role!, team: member.team! },
        { role: other.role!, team: other.team! },
      ],
    ] as const) {
      const result = compose(snapshot, request);
      const bytes = Buffer.from(result.text);
      const pieces = result.layers
        .filter((l) => l.included)
        .map((l) => bytes.subarray(l.start!, l.end!).toString());
      const join = () => sha256(pieces.join(snapshot.manifest.separator));
      // The least a first compose must do on a fresh snapshot: look up each layer's file,
      // decode and trim its prompt from the bytes as the build left them, join, sha256.
      const included = result.layers.filter((l) => l.included);
      const least = (s: typeof snapshot) =>
        sha256(
          included
            .map((l, i) => (l.kind === 'file' && l.source ? s.files.get(l.source)!.prompt : pieces[i]!))
            .join(s.manifest.separator),
        );
      if (least(make()) !== result.sha256) throw new Error('the least work composes another text');
      const n = roles >= 10000 ? 2 : 4;
      collectGarbage('full');
      const first = await compareFresh(make, (s) => compose(s, request), join, n, 10);
      collectGarbage('full');
      const leastFresh = await compareFresh(make, least, join, n, 10);
      collectGarbage('full');
      // The same, each right after a compose of another member on another snapshot (its
      // own: nothing of the fresh one is touched): the processor's caches and the compiled
      // code as a service has them, where the build just ran over every file of the pack.
      const warmed = await compareFresh(
        make,
        (s) => compose(s, request),
        join,
        n,
        10,
        () => compose(snapshot, next),
      );
      collectGarbage('full');
      const then = await compareFresh(
        () => {
          const s = make();
          compose(s, request);
          return s;
        },
        (s) => compose(s, next),
        join,
        n,
        10,
      );
      const us = (ms: number) => ((ms * 1000) / n).toFixed(1);
      log(
        `| ${roles.toLocaleString('en-US')} | ${label} | ${us(first.baseline)} | ${us(first.subject)} | **${first.ratio.toFixed(2)}** | ${us(warmed.subject)} | **${warmed.ratio.toFixed(2)}** | ${us(then.subject)} | **${then.ratio.toFixed(2)}** | ${us(leastFresh.subject)} | **${(first.subject / leastFresh.subject).toFixed(2)}** |`,
      );
    }
    // After a one-file edit: the snapshot the reload builds from the one before (a patched
    // build), then a role and a team's first compose on it. Median of 15 edits.
    const edited = new Map(read.files);
    let previous = make();
    compose(previous, { role: member.role!, team: member.team! });
    const times: number[] = [];
    const joins: number[] = [];
    for (let e = 0; e < 15; e++) {
      const path = `roles/role-${(e * 7) % roles}.md`;
      edited.set(path, Buffer.concat([edited.get(path)!, Buffer.from(`\nEdit ${e}.\n`)]));
      const next = buildSnapshot({ files: new Map(edited), env: {}, previous }).snapshot!;
      const agent = snapshot.fleet[(e * 13) % roles]!;
      const request = { role: agent.role!, team: agent.team! };
      const result = compose(snapshot, request);
      const bytes = Buffer.from(result.text);
      const pieces = result.layers
        .filter((l) => l.included)
        .map((l) => bytes.subarray(l.start!, l.end!).toString());
      let t0 = performance.now();
      compose(next, request);
      times.push(performance.now() - t0);
      t0 = performance.now();
      sha256(pieces.join(snapshot.manifest.separator));
      joins.push(performance.now() - t0);
      previous = next;
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const [editMs, joinMs] = [median(times), median(joins)];
    log(
      `| ${roles.toLocaleString('en-US')} | a role and a team, after a one-file edit (a patched build) | ${(joinMs * 1000).toFixed(1)} | ${(editMs * 1000).toFixed(1)} | **${(editMs / joinMs).toFixed(2)}** | — | — | — | — | — | — |`,
    );
    rmSync(dir, { recursive: true, force: true });
  }
  setCacheBudget(DEFAULT_CACHE_BYTES);
}

async function composeRows(): Promise<void> {
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
  log(`| strata compose, full provenance (memo hit) | ${c.subject.toFixed(3)} | ${perSec(c.subject)} |`);
  log(`| **ratio** (target <= 2.0) | **${c.ratio.toFixed(2)}** | |`);

  // (1b) One compose: a repeated request (memo hit) and a first compose (memo off, as for a
  // fresh snapshot) against join + sha256 of the same layers, at 1.6 KB and 60 KB.
  log('');
  log(`## One compose vs join + sha256 (load ${loadAverage()})`);
  log('');
  log(
    '| prompt | join + sha256 µs | memo hit µs | first compose µs | fresh snapshot µs | **hit / join** | **first / join** (target <= 1.5) | **first / join, CPU time** | **fresh / join** |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const size of [1600, 60_000]) {
    const enc = new TextEncoder();
    const para = 'The quick brown fox jumps over the lazy dog; ünïcødé and more words. ';
    const body = (n: number) => para.repeat(Math.ceil(n / para.length)).slice(0, n);
    const files = new Map<string, Uint8Array>([
      ['base.md', enc.encode(body(Math.round(size * 0.6)))],
      ['roles/writer.md', enc.encode(body(Math.round(size * 0.3)))],
      ['teams/blue.md', enc.encode(body(Math.round(size * 0.1)))],
    ]);
    const snap = buildSnapshot({ files, env: {} }).snapshot!;
    const request: ComposeRequest = { role: 'writer', team: 'blue' };
    const result = compose(snap, request);
    const bytes = Buffer.from(result.text);
    const parts = result.layers
      .filter((l) => l.included)
      .map((l) => bytes.subarray(l.start!, l.end!).toString());
    const sep = snap.manifest.separator;
    const N = 1000;
    const hit = await compare(
      () => {
        for (let i = 0; i < N; i++) sha256(parts.join(sep));
      },
      () => {
        for (let i = 0; i < N; i++) compose(snap, request);
      },
    );
    setCacheBudget(0); // first compose: no memo, and no layer hash is computed by compose
    const joinN = () => {
      for (let i = 0; i < N; i++) sha256(parts.join(sep));
    };
    const composeN = () => {
      for (let i = 0; i < N; i++) compose(snap, request);
    };
    const first = await compare(joinN, composeN);
    // The same in CPU time: a busy machine takes the longer run off the CPU more often.
    const firstCpu = await compare(joinN, composeN, 5, 300, 5, cpuClock);
    // A fresh snapshot per compose: built from copies of the bytes, so nothing derived from
    // them (layer hashes, per-snapshot plans) exists yet; only the compose is timed.
    const fresh = await compareFresh(
      () => buildSnapshot({ files: new Map([...files].map(([p, b]) => [p, b.slice()])), env: {} }).snapshot!,
      (s) => compose(s, request),
      () => sha256(parts.join(sep)),
      N,
    );
    setCacheBudget(DEFAULT_CACHE_BYTES);
    const us = (ms: number) => ((ms * 1000) / N).toFixed(2);
    log(
      `| ${(result.bytes / 1000).toFixed(1)} KB | ${us(hit.baseline)} | ${us(hit.subject)} | ${us(first.subject)} | ${us(fresh.subject)} | **${hit.ratio.toFixed(2)}** | **${first.ratio.toFixed(2)}** | **${firstCpu.ratio.toFixed(2)}** | **${fresh.ratio.toFixed(2)}** |`,
    );
  }
}

// (2) Load time and peak memory for generated packs, against every raw way of reading the
// same files (the fastest is the floor). `--roles 1000,10000,50000` picks the sizes.
if (section('load')) await loadRows();

// (2b) Where a cold load's time goes: its read and its build, each against readFileSync.
if (section('loadparts')) await loadPartRows();

async function loadRows(): Promise<void> {
  const rolesArg = process.argv.indexOf('--roles');
  const sizes =
    rolesArg === -1 ? [1000, 10000] : process.argv[rolesArg + 1]!.split(',').map((n) => Number(n));
  log('');
  const fleet =
    AGENTS === undefined
      ? ''
      : `, a fleet of ${AGENTS === 'roles' ? 'as many agents as roles' : `${AGENTS} agents`} with identity files`;
  log(
    `## Pack load (generated roboco-style packs: roles.yaml + 3 files per role${fleet}; load ${loadAverage()})`,
  );
  log('');
  log(
    `| roles | files | pack bytes | ${Object.keys(RAW_READS).join(' ms | ')} ms | floor | cold load ms | **load / floor** (target <= 2.0) | after a full collection: readFileSync ms | cold load ms | **load / readFileSync** | node alone RSS | raw read RSS | load RSS | **(load RSS - node) / pack bytes** (target <= 3) | **growth: added RSS / added bytes over the previous row** | fresh process: read ms | fresh process: cold load ms | **fresh load / fresh read** | node alone held RSS | load held RSS | young generation: node alone → load | **(held RSS − node) / pack bytes** | **the same without the young generation's growth** (target <= 3) | **held growth** | heap + external the load adds in its own process (median of 3; compiled code's part) | **the same less the constant, per pack byte** (target <= 3) | the same without compiled code | RSS the load adds in its own process, less the young generation's growth (median of 3) | **the same less the constant, per pack byte** (target <= 3) |`,
  );
  log(
    `| ${Array(27 + Object.keys(RAW_READS).length)
      .fill('---')
      .join(' | ')} |`,
  );
  const child = (mode: string, dir: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, 'load-child.ts'), mode, dir],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        },
      ),
    ) as {
      ms: number;
      maxRssKiB: number;
      heldRssKiB: number;
      youngKiB: number;
      addedRssKiB: number;
      addedYoungKiB: number;
      heapExternalKiB: number;
      addedHeapKiB: number;
      addedCodeKiB: number;
    };
  /** RSS a load added in its own process, less its young generation's growth: the median of three. */
  const medianAdded = (runs: ReturnType<typeof child>[]) =>
    [...runs.map((x) => (x.addedRssKiB - x.addedYoungKiB) * 1024)].sort((a, b) => a - b)[1]!;
  /** What a load added to the heap in use + the memory outside it, in its own process (and the compiled code's part): the median of three. */
  const medianHeap = (runs: ReturnType<typeof child>[]) => {
    const mid = [...runs].sort((a, b) => a.addedHeapKiB - b.addedHeapKiB)[1]!;
    return { bytes: mid.addedHeapKiB * 1024, code: mid.addedCodeKiB * 1024 };
  };
  // The constant: what loading a 10-role pack (35 KB) adds, as the engine counts it (heap in
  // use + memory outside it), in its own process: the code a load compiles, the first
  // block reads allocate from, the tables that grow in steps. Median of three processes.
  const constantDir = mkdtempSync(join(tmpdir(), 'strata-bench-constant-'));
  generatePack(constantDir, 10);
  const constantBytes = readAllSync(constantDir);
  const constantRuns = [0, 1, 2].map(() => child('load', constantDir));
  const constantHeap = medianHeap(constantRuns);
  const constant = constantHeap.bytes;
  const constantRss = medianAdded(constantRuns);
  rmSync(constantDir, { recursive: true, force: true });
  // The previous row's pack bytes and load RSS: the growth column's base.
  let previous: { bytes: number; rss: number; held: number } | undefined;
  for (const roles of sizes) {
    const dir = mkdtempSync(join(tmpdir(), `strata-bench-${roles}-`));
    const files = generatePack(dir, roles, agentsFor(AGENTS, roles));
    const packBytes = readAllSync(dir);
    const rounds = roles >= 10000 ? 3 : 5;
    // Interleaved rounds: every method once per round, so machine noise hits all alike.
    const samples = new Map<string, number[]>(
      [...Object.keys(RAW_READS), 'load', FULL_FLOOR, FULL_LOAD].map((k) => [k, []]),
    );
    // A cold load: nothing kept from an earlier read of the pack (a reload reuses the
    // bytes and parses of unchanged files; bench:reload measures that).
    const load = async () => {
      fileReuse.clear();
      const { snapshot: s } = await loadPack(dir, { env: {}, ...BENCH_LIMITS });
      if (!s) throw new Error('load failed');
    };
    // Every method is measured as it runs in a process that has run it before: after a full
    // collection (which clears every earlier method's garbage), one run that is not timed,
    // then an emptied young generation and the timed run. The untimed run matters: V8 drops
    // optimized code built on the shapes of objects no longer alive at a full collection
    // (the loader's per-read objects, node's Stats and Dirent), so the first run after one
    // runs partly unoptimized. The pair "after a full collection" times that first run.
    const methods = [
      ...Object.entries(RAW_READS).map(([name, read]) => [name, read, true] as const),
      ['load', load, true] as const,
      [FULL_FLOOR, readAllSync, false] as const,
      [FULL_LOAD, load, false] as const,
    ];
    for (let r = 0; r <= rounds; r++) {
      for (const [name, read, warm] of methods) {
        collectGarbage('full');
        if (warm) {
          await read(dir);
          collectGarbage('young');
        }
        const t0 = performance.now();
        await read(dir);
        if (r > 0) samples.get(name)!.push(performance.now() - t0); // round 0 warms the page cache
      }
    }
    const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const raw = Object.keys(RAW_READS).map((k) => med(samples.get(k)!));
    const [fullFloor, fullLoad] = [med(samples.get(FULL_FLOOR)!), med(samples.get(FULL_LOAD)!)];
    const floor = Math.min(...raw);
    const loadMs = med(samples.get('load')!);
    // Three fresh processes per mode: the least peak RSS, and the median time of each.
    const runs = (mode: string) => [0, 1, 2].map(() => child(mode, dir));
    const [noneRuns, readRuns, loadRuns] = [runs('none'), runs('read'), runs('load')];
    const rss = (xs: typeof noneRuns) => Math.min(...xs.map((x) => x.maxRssKiB)) * 1024;
    const [none, read, loaded] = [rss(noneRuns), rss(readRuns), rss(loadRuns)];
    const [freshRead, freshLoad] = [med(readRuns.map((x) => x.ms)), med(loadRuns.map((x) => x.ms))];
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(b < 10 * 2 ** 20 ? 1 : 0)} MiB`;
    // RSS the pack adds over the previous (smaller) pack, per byte it adds: what a process
    // costs whatever it loads (code, the engine's young generation) cancels out.
    const growth = previous ? ((loaded - previous.rss) / (packBytes - previous.bytes)).toFixed(2) : '—';
    // What a loaded pack holds once collected (the least of the three processes), and the
    // engine's young generation then: sized by V8 (up to 2 × 16 MiB) whatever is held.
    const leastHeld = (xs: typeof noneRuns) => xs.reduce((a, b) => (b.heldRssKiB < a.heldRssKiB ? b : a));
    const [noneHeld, loadHeld] = [leastHeld(noneRuns), leastHeld(loadRuns)];
    const held = loadHeld.heldRssKiB * 1024;
    const heldOver = held - noneHeld.heldRssKiB * 1024;
    const youngGrowth = (loadHeld.youngKiB - noneHeld.youngKiB) * 1024;
    const heldGrowth = previous ? ((held - previous.held) / (packBytes - previous.bytes)).toFixed(2) : '—';
    // Held as the engine counts it, what the load added in its own process, less the
    // constant, per byte beyond the constant's pack; and the same without compiled code
    // (bounded by the program, not the pack: it grows by steps as more of it is optimized).
    const heap = medianHeap(loadRuns);
    const heapOver = heap.bytes;
    const heapRatio = (heapOver - constant) / (packBytes - constantBytes);
    const dataRatio = (heapOver - heap.code - (constant - constantHeap.code)) / (packBytes - constantBytes);
    const addedRss = medianAdded(loadRuns);
    const rssRatio = (addedRss - constantRss) / (packBytes - constantBytes);
    previous = { bytes: packBytes, rss: loaded, held };
    log(
      `| ${roles.toLocaleString('en-US')} | ${files.toLocaleString('en-US')} | ${mib(packBytes)} | ${raw.map((m) => m.toFixed(0)).join(' | ')} | ${Object.keys(RAW_READS)[raw.indexOf(floor)]} | ${loadMs.toFixed(0)} | **${(loadMs / floor).toFixed(2)}** | ${fullFloor.toFixed(0)} | ${fullLoad.toFixed(0)} | **${(fullLoad / fullFloor).toFixed(2)}** | ${mib(none)} | ${mib(read)} | ${mib(loaded)} | **${((loaded - none) / packBytes).toFixed(2)}** | **${growth}** | ${freshRead.toFixed(0)} | ${freshLoad.toFixed(0)} | **${(freshLoad / freshRead).toFixed(2)}** | ${mib(noneHeld.heldRssKiB * 1024)} | ${mib(held)} | ${mib(noneHeld.youngKiB * 1024)} → ${mib(loadHeld.youngKiB * 1024)} | **${(heldOver / packBytes).toFixed(2)}** | **${((heldOver - youngGrowth) / packBytes).toFixed(2)}** | **${heldGrowth}** | ${mib(heapOver)} (code ${mib(heap.code)}) | **${heapRatio.toFixed(2)}** | ${dataRatio.toFixed(2)} | ${mib(addedRss)} | **${rssRatio.toFixed(2)}** |`,
    );
    rmSync(dir, { recursive: true, force: true });
  }
  log('');
  log(
    `The constant: a 10-role pack (${(constantBytes / 1024).toFixed(0)} KiB) loaded adds ${(constant / 2 ** 20).toFixed(2)} MiB to the heap in use + memory outside it in its own process (median of 3: the code a load compiles, ${(constantHeap.code / 2 ** 20).toFixed(2)} MiB of it machine code and bytecode, and the tables and blocks that grow in steps), and adds ${(constantRss / 2 ** 20).toFixed(2)} MiB of RSS in its own process (less the young generation's growth; median of 3).`,
  );
}

// (3) The other layouts: generated crewai, claude-agents and agents-md packs. Compose over
// every agent (or working directory) against joining its pre-read pieces and hashing;
// load against the fastest raw read of the same files.
if (section('layouts')) await layoutRows();

// (3b) A store into the engine's full cache (each drops the oldest entry), at sizes.
if (section('cache')) await cacheRows();

// (4) One-file edit until served (20 edits per size).
if (section('reload')) {
  const rolesArg = process.argv.indexOf('--roles');
  const sizes = rolesArg === -1 ? [1000, 10000] : process.argv[rolesArg + 1]!.split(',').map(Number);
  log('');
  log(`## One-file edit until served (load ${loadAverage()})`);
  log('');
  await reloadRows({ sizes, edits: 20, log, agents: AGENTS });
}

// (5) validate and diff of a fleet.
if (section('tooling')) {
  log('');
  log(`## validate and diff of a fleet (load ${loadAverage()})`);
  log('');
  await toolingRows({ sizes: [500, 1000, 2000], log });
}

/**
 * A store into the engine's byte-bounded cache when it is full (every store drops the
 * least recently used entry: what a run of one-off requests makes it do), against the
 * least a bounded map does per store (a map set, and a delete of a key known beforehand).
 */
async function cacheRows(): Promise<void> {
  const { ByteCache } = await fromTree<typeof import('../src/engine/byte-cache.js')>('engine/byte-cache.js');
  log('');
  log(`## A store into a full cache (load ${loadAverage()})`);
  log('');
  log('| entries held | Map set + delete µs | cache store µs | **store / (set + delete)** |');
  log('| --- | --- | --- | --- |');
  const STORES = 1000;
  for (const entries of [1000, 10_000, 100_000]) {
    const cache = new ByteCache<number>(entries * 100);
    const map = new Map<string, number>();
    const ring: string[] = [];
    for (let i = 0; i < entries; i++) {
      cache.set(`k${i}`, i, 100);
      map.set(`k${i}`, i);
      ring.push(`k${i}`);
    }
    let next = entries;
    let oldest = 0;
    const keys = Array.from({ length: 1 << 20 }, (_, i) => `n${i}`);
    const stores = () => {
      for (let i = 0; i < STORES; i++) cache.set(keys[next++ & 0xfffff]!, i, 100);
    };
    const sets = () => {
      for (let i = 0; i < STORES; i++) {
        const key = keys[next++ & 0xfffff]!;
        map.set(key, i);
        map.delete(ring[oldest]!);
        ring[oldest] = key;
        oldest = (oldest + 1) % entries;
      }
    };
    const r = await compare(sets, stores);
    log(
      `| ${entries.toLocaleString('en-US')} | ${((r.baseline * 1000) / STORES).toFixed(3)} | ${((r.subject * 1000) / STORES).toFixed(3)} | **${r.ratio.toFixed(2)}** |`,
    );
  }
}

async function layoutRows(): Promise<void> {
  log('');
  log(`## Other layouts (generated packs; load ${loadAverage()})`);
  log('');
  log(
    '| preset | pack | members | join + sha256 ms | memo hit ms | first compose ms | **hit / join** | **first / join** (target <= 3) | **first / join, CPU time** | **first, sha256 read / join** | **first on a freshly built snapshot / join** | raw read floor ms | load ms | **load / floor** (target <= 2.0) |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [preset, n, what] of [
    ['crewai', 1000, '1,000 agents in config/agents.yaml'],
    ['claude-agents', 1000, '1,000 agent files in 20 folders under .claude/agents'],
    ['agents-md', 1000, '1,000 AGENTS.md folders, 4 deep'],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), `strata-bench-${preset}-`));
    const reqs = generateLayout(dir, preset, n);
    const { snapshot: s } = await loadPack(dir, { env: {}, ...BENCH_LIMITS });
    if (s?.preset !== preset) throw new Error(`${preset}: pack not loaded as ${preset}`);
    const pieces = reqs.map((r) => {
      const result = compose(s, r);
      const bytes = Buffer.from(result.text);
      return result.layers.filter((l) => l.included).map((l) => bytes.subarray(l.start!, l.end!).toString());
    });
    const joinAll = () => {
      for (const p of pieces) sha256(p.join(s.manifest.separator));
    };
    const composeAll = () => {
      for (const r of reqs) compose(s, r);
    };
    // The prompt's hash is computed when first read: this subject reads it too.
    const composeHashAll = () => {
      for (const r of reqs) compose(s, r).sha256;
    };
    // Each comparison starts from a collected heap: the one before leaves garbage and,
    // often, a marking of the old generation under way (its write barrier then slows
    // whichever side allocates more; after the memo hits, first composes measured 1.4x
    // slower against joins 1.5x slower).
    collectGarbage('full');
    const hit = await compare(joinAll, composeAll);
    setCacheBudget(0);
    collectGarbage('full');
    const first = await compare(joinAll, composeAll);
    collectGarbage('full');
    const firstCpu = await compare(joinAll, composeAll, 5, 300, 5, cpuClock);
    collectGarbage('full');
    const firstHashed = await compare(joinAll, composeHashAll);
    // Every member's first compose on a snapshot built from copies of the pack's bytes:
    // nothing derived from them (a record's compiled fields, its flattened template) yet.
    const read = await readPackDir(dir, BENCH_LIMITS);
    collectGarbage('full');
    const fresh = await compareFresh(
      () =>
        buildSnapshot({ files: new Map([...read.files].map(([p, b]) => [p, b.slice()])), env: {} }).snapshot!,
      (f) => {
        for (const r of reqs) compose(f, r);
      },
      joinAll,
      3,
    );
    setCacheBudget(DEFAULT_CACHE_BYTES);
    const samples = new Map<string, number[]>([...Object.keys(RAW_READS), 'load'].map((k) => [k, []]));
    const load = async () => {
      const { snapshot: l } = await loadPack(dir, { env: {}, ...BENCH_LIMITS });
      if (!l) throw new Error('load failed');
    };
    for (let r = 0; r <= 5; r++) {
      for (const [name, read] of [...Object.entries(RAW_READS), ['load', load] as const]) {
        const t0 = performance.now();
        await read(dir);
        if (r > 0) samples.get(name)!.push(performance.now() - t0);
      }
    }
    const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const floor = Math.min(...Object.keys(RAW_READS).map((k) => med(samples.get(k)!)));
    const loadMs = med(samples.get('load')!);
    log(
      `| ${preset} | ${what} | ${reqs.length} | ${first.baseline.toFixed(2)} | ${hit.subject.toFixed(2)} | ${first.subject.toFixed(2)} | **${hit.ratio.toFixed(2)}** | **${first.ratio.toFixed(2)}** | **${firstCpu.ratio.toFixed(2)}** | **${firstHashed.ratio.toFixed(2)}** | **${fresh.ratio.toFixed(2)}** | ${floor.toFixed(1)} | ${loadMs.toFixed(1)} | **${(loadMs / floor).toFixed(2)}** |`,
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A cold load in its two steps, each timed on its own against reading the same files with
 * readFileSync: the read (list the folders, open, stat, read and close each file, keep its
 * identity), the build (decode, hash, parse, index: the snapshot), and the load that does
 * both; and, between readFileSync and the read, the same four system calls per file made
 * through node's fs functions as the reader makes them (opened without following a symlink
 * or blocking, its size known before a byte is read), nothing kept. strace counts the same
 * calls for readFileSync and the read (open, statx, read, close per file).
 */
async function loadPartRows(): Promise<void> {
  const rolesArg = process.argv.indexOf('--roles');
  const sizes = rolesArg === -1 ? [1000, 10000] : process.argv[rolesArg + 1]!.split(',').map(Number);
  log('');
  log(`## Where a cold load's time goes (generated roboco-style packs; load ${loadAverage()})`);
  log('');
  log(
    '| roles | files | readFileSync ms | the same calls through fs functions ms | read ms | build ms | load ms | **calls / readFileSync** | **read / readFileSync** | **build / readFileSync** | **load / readFileSync** (target <= 2.0) |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const roles of sizes) {
    const dir = mkdtempSync(join(tmpdir(), `strata-bench-parts-${roles}-`));
    const files = generatePack(dir, roles, agentsFor(AGENTS, roles));
    const paths = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => `${e.parentPath}/${e.name}`);
    const calls = () => {
      for (const path of paths) {
        const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
        try {
          const { size } = fstatSync(fd);
          readSync(fd, new Uint8Array(size), 0, size, 0);
        } finally {
          closeSync(fd);
        }
      }
    };
    let read = await readPackDir(dir, BENCH_LIMITS);
    const readStep = async () => {
      fileReuse.clear();
      read = await readPackDir(dir, BENCH_LIMITS);
    };
    // Each build on copies of the bytes made beforehand: a build on bytes an earlier build
    // saw takes their decoding and parses from the engine's memo, as a load never does.
    const copies: Map<string, Uint8Array>[] = [];
    const buildStep = () => {
      const files = copies.pop() ?? new Map([...read.files].map(([p, b]) => [p, b.slice()]));
      if (!buildSnapshot({ files, env: {} }).snapshot) throw new Error('build failed');
    };
    const load = async () => {
      fileReuse.clear();
      if (!(await loadPack(dir, { env: {}, ...BENCH_LIMITS })).snapshot) throw new Error('load failed');
    };
    const steps = { readAllSync: () => readAllSync(dir), calls, readStep, buildStep, load };
    const samples = new Map<string, number[]>(Object.keys(steps).map((k) => [k, []]));
    // Interleaved rounds, each step after a full collection and one untimed run (as the load rows).
    const rounds = roles >= 10000 ? 5 : 11;
    for (let r = 0; r <= rounds; r++) {
      for (const [name, step] of Object.entries(steps)) {
        if (step === buildStep)
          for (let c = 0; c < 2; c++) copies.push(new Map([...read.files].map(([p, b]) => [p, b.slice()])));
        collectGarbage('full');
        await step();
        collectGarbage('young');
        const t0 = performance.now();
        await step();
        if (r > 0) samples.get(name)!.push(performance.now() - t0);
      }
    }
    const med = (k: string) => [...samples.get(k)!].sort((x, y) => x - y)[Math.floor(rounds / 2)]!;
    const [floor, callsMs, readMs, buildMs, loadMs] = Object.keys(steps).map(med) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const r = (ms: number) => `**${(ms / floor).toFixed(2)}**`;
    log(
      `| ${roles.toLocaleString('en-US')} | ${files.toLocaleString('en-US')} | ${floor.toFixed(1)} | ${callsMs.toFixed(1)} | ${readMs.toFixed(1)} | ${buildMs.toFixed(1)} | ${loadMs.toFixed(1)} | ${r(callsMs)} | ${r(readMs)} | ${r(buildMs)} | ${r(loadMs)} |`,
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Like `compare`, for a subject that needs fresh state per call: `make()` builds `n`
 * states untimed, then one timed pass calls `subject` once on each; rounds alternate with
 * `n` calls of the baseline. Medians of per-round times (ms per `n` calls).
 */
async function compareFresh<S>(
  make: () => S,
  subject: (s: S) => unknown,
  baseline: () => unknown,
  n: number,
  rounds = 15,
  before?: () => unknown,
): Promise<{ baseline: number; subject: number; ratio: number }> {
  const b: number[] = [];
  const t: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    const states = Array.from({ length: n }, make);
    let t0 = performance.now();
    for (let i = 0; i < n; i++) baseline();
    const bt = performance.now() - t0;
    let st = 0;
    if (before === undefined) {
      t0 = performance.now();
      for (const s of states) subject(s);
      st = performance.now() - t0;
    } else
      for (const s of states) {
        before();
        t0 = performance.now();
        subject(s);
        st += performance.now() - t0;
      }
    if (r > 0) {
      b.push(bt);
      t.push(st);
    }
  }
  const med = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return { baseline: med(b), subject: med(t), ratio: med(t) / med(b) };
}

function loadAverage(): string {
  return `average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')}`;
}

/** A garbage collection (V8's `gc`, made reachable for this process): of the young generation, or full. */
function collectGarbage(kind: 'young' | 'full'): void {
  gcNow ??= (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
  })();
  gcNow({ type: kind === 'young' ? 'minor' : 'major' });
}
