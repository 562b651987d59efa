import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { generateLayout } from './gen-layouts.js';
import { generatePack } from './gen-pack.js';
import {
  type Accelerator,
  coreBuild,
  coreCompose,
  createEngine,
  type Engine,
  LAYOUTS,
  sha256,
} from './lib.js';
import { compare } from './measure.js';

// Each accelerator of the engine against the engine without it, measured in the same run:
// an accelerator keeps its place only while its row says it pays (src/engine/README.md).
// And the rows of a first compose and of a memo hit that the engine's shape is for.

/** Rows for `npm run bench` (section `accelerators`). */
export async function acceleratorRows(log: (line: string) => void, load: () => string): Promise<void> {
  const roboco = readTree(join(import.meta.dirname, '..', 'examples', 'roboco'));
  log('');
  log(`## The engine's accelerators, each against the engine without it (load ${load()})`);
  log('');
  log('| accelerator | what is timed | with it | without it | **without / with** |');
  log('| --- | --- | --- | --- | --- |');

  // memo: a repeated request of each kind, with the memo and without. The last row sends a
  // new request object each time, equal to the one before (as a service parses each body).
  const twoSettings = {
    role: 'developer',
    settings: { fable_mode_enabled: 'on', ponytail_intensity: 'lite' },
  };
  for (const [label, request, fresh] of [
    ['names only', { agent: 'ada' }, false],
    ['one setting', { agent: 'ada', settings: { fable_mode_enabled: 'on' } }, false],
    ['two settings', twoSettings, false],
    ['two settings, a new request object each time', twoSettings, true],
  ] as const) {
    const on = createEngine();
    const off = createEngine({ accelerators: { memo: false } });
    const snapshot = on.buildSnapshot({ files: roboco, env: {} }).snapshot!;
    const N = 20_000;
    const requests: object[] = Array.from({ length: N }, () => (fresh ? structuredClone(request) : request));
    const r = await compare(
      () => {
        for (let i = 0; i < N; i++) on.tryCompose(snapshot, requests[i]!);
      },
      () => {
        for (let i = 0; i < N; i++) off.tryCompose(snapshot, requests[i]!);
      },
    );
    log(
      `| memo | a repeated compose (${label}), roboco | ${us(r.baseline / N)} | ${us(r.subject / N)} | **${r.ratio.toFixed(1)}** |`,
    );
  }

  // recordTemplates: every agent of a 1,000-agent crewai pack composed (the memo off, so
  // each compose fills the role-playing template), on a snapshot that has composed them
  // before, and on freshly built ones (each record flattened on its first compose).
  const crew = mkdtempSync(join(tmpdir(), 'strata-bench-crew-'));
  try {
    const crewRequests = generateLayout(crew, 'crewai', 1000);
    const crewFiles = readTree(crew);
    const noMemo = { memo: false } as const;
    const withIt = engineWithout([], noMemo);
    const withoutIt = engineWithout(['recordTemplates'], noMemo);
    const warm = (engine: Engine) => {
      const snapshot = engine.buildSnapshot({ files: crewFiles, env: {} }).snapshot!;
      return () => {
        for (const r of crewRequests) engine.tryCompose(snapshot, r);
      };
    };
    const t = await compare(warm(withIt), warm(withoutIt));
    log(
      `| recordTemplates | every agent composed, 1,000 crewai agents (the memo off) | ${ms2(t.baseline)} | ${ms2(t.subject)} | **${t.ratio.toFixed(2)}** |`,
    );
    const fresh = (engine: Engine) => () => {
      const snapshot = engine.buildSnapshot({ files: copy(crewFiles), env: {} }).snapshot!;
      const t0 = performance.now();
      for (const r of crewRequests) engine.tryCompose(snapshot, r);
      return performance.now() - t0;
    };
    const f = compareTimed(fresh(withIt), fresh(withoutIt));
    log(
      `| recordTemplates | every agent's first compose on a freshly built snapshot, 1,000 crewai agents (the compose timed, not the build) | ${ms2(f.baseline)} | ${ms2(f.subject)} | **${f.ratio.toFixed(2)}** |`,
    );
  } finally {
    rmSync(crew, { recursive: true, force: true });
  }

  // fastYaml: a 1,000-role pack built from fresh bytes.
  const dir = mkdtempSync(join(tmpdir(), 'strata-bench-acc-'));
  try {
    generatePack(dir, 1000);
    const files = readTree(dir);
    const fresh = () => new Map([...files].map(([p, b]) => [p, b.slice()]));
    const buildWith = (engine: Engine) => () => engine.buildSnapshot({ files: fresh(), env: {} });
    const noIncremental = { incremental: false } as const;
    const fast = await compare(
      buildWith(engineWithout([], noIncremental)),
      buildWith(engineWithout(['fastYaml'], noIncremental)),
      3,
      1000,
      3,
    );
    log(
      `| fastYaml | a build of 1,000 roles from fresh bytes | ${ms(fast.baseline)} | ${ms(fast.subject)} | **${fast.ratio.toFixed(1)}** |`,
    );
    // parseMemo: an edit of roles.yaml (the registry: the whole pack is built again) in a
    // pack whose 10,000-agent fleet.yaml is unchanged, its parse kept from the last build.
    const fleet = ['agents:'];
    for (let i = 0; i < 10_000; i++)
      fleet.push(`  - id: agent-${i}`, `    role: role-${i % 1000}`, `    team: team-${i % 10}`);
    const withFleet = new Map(files).set('fleet.yaml', new TextEncoder().encode(`${fleet.join('\n')}\n`));
    const registryEdit = (engine: Engine) => {
      let n = 0;
      const roles = new TextDecoder().decode(files.get('roles.yaml'));
      return () => {
        const next = new Map(withFleet);
        next.set(
          'roles.yaml',
          new TextEncoder().encode(roles.replace('Does task family 3.', `Edit ${n++}.`)),
        );
        engine.buildSnapshot({ files: next, env: {} });
      };
    };
    const memo = await compare(
      registryEdit(createEngine()),
      registryEdit(engineWithout(['parseMemo'])),
      3,
      1000,
      3,
    );
    log(
      `| parseMemo | a roles.yaml edit of 1,000 roles beside an unchanged 10,000-agent fleet.yaml (built in full) | ${ms(memo.baseline)} | ${ms(memo.subject)} | **${memo.ratio.toFixed(1)}** |`,
    );
    // parseMemo again: a one-file edit as a reload builds it (handed the served snapshot).
    const reload = (engine: Engine) => {
      const first = engine.buildSnapshot({ files, env: {} }).snapshot!;
      let n = 0;
      return () => {
        const next = new Map(files);
        next.set('roles/role-7.md', new TextEncoder().encode(`Role seven, edit ${n++}.\n`));
        engine.buildSnapshot({ files: next, env: {}, previous: first });
      };
    };
    const again = await compare(reload(createEngine()), reload(engineWithout(['parseMemo'])), 3, 1000, 3);
    log(
      `| parseMemo | a one-file edit of 1,000 roles, built as a reload builds it (handed the served snapshot) | ${ms(again.baseline)} | ${ms(again.subject)} | **${again.ratio.toFixed(1)}** |`,
    );
    // incremental: a one-file edit of the same pack as a reload does it: built from the
    // served snapshot, then compared with it for the reload guard (what the patch says
    // changed decides which members are composed again). The edit is a body edit, its
    // frontmatter kept, as an operator's usually is (a frontmatter change builds in full).
    const bodyEdit = (tree: Map<string, Uint8Array>, n: number) =>
      new TextEncoder().encode(`${new TextDecoder().decode(tree.get('roles/role-7.md'))}Edit ${n}.\n`);
    const edit = (engine: Engine) => {
      const first = engine.buildSnapshot({ files, env: {} }).snapshot!;
      let n = 0;
      return async () => {
        const next = new Map(files);
        next.set('roles/role-7.md', bodyEdit(files, n++));
        const built = engine.buildSnapshot({ files: next, env: {}, previous: first }).snapshot!;
        await engine.comparePacks(first, built);
      };
    };
    const inc = await compare(edit(createEngine()), edit(engineWithout(['incremental'])), 3, 1000, 3);
    log(
      `| incremental | a one-file edit of 1,000 roles as a reload makes it: built from the served snapshot, then compared with it member by member | ${ms(inc.baseline)} | ${ms(inc.subject)} | **${inc.ratio.toFixed(1)}** |`,
    );
    // The same at 10,000 roles with a fleet of 10 (identity files): where a service feels it.
    const large = mkdtempSync(join(tmpdir(), 'strata-bench-acc-'));
    try {
      generatePack(large, 10_000, 10);
      const largeFiles = readTree(large);
      const editLarge = (engine: Engine) => {
        const first = engine.buildSnapshot({ files: largeFiles, env: {} }).snapshot!;
        let n = 0;
        return async () => {
          const next = new Map(largeFiles);
          next.set('roles/role-7.md', bodyEdit(largeFiles, n++));
          const built = engine.buildSnapshot({ files: next, env: {}, previous: first }).snapshot!;
          await engine.comparePacks(first, built);
        };
      };
      const big = await compare(
        editLarge(createEngine()),
        editLarge(engineWithout(['incremental'])),
        3,
        1000,
        3,
      );
      log(
        `| incremental | the same edit of 10,000 roles with a fleet of 10 | ${ms(big.baseline)} | ${ms(big.subject)} | **${big.ratio.toFixed(1)}** |`,
      );
    } finally {
      rmSync(large, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The first compose of a freshly built snapshot, against join + sha256 of its layers.
  log('');
  log(`## A first compose on a freshly built snapshot (roboco, a settings request; load ${load()})`);
  log('');
  log('| | µs | **/ join + sha256** (target <= 3) |');
  log('| --- | --- | --- |');
  const request = { agent: 'ada', settings: { fable_mode_enabled: 'on' } };
  const build = () => coreBuild({ files: copy(roboco), env: {}, layouts: LAYOUTS }).snapshot!;
  const sample = coreCompose(build(), request);
  if (!sample.ok) throw new Error('the roboco request does not compose');
  const text = Buffer.from(sample.result.text);
  const parts = sample.result.layers
    .filter((l) => l.included)
    .map((l) => text.subarray(l.start!, l.end!).toString());
  const sep = build().manifest.separator;
  const N = 300;
  const base: number[] = [];
  const subject: number[] = [];
  const hashed: number[] = [];
  for (let round = 0; round < 9; round++) {
    // The prompt's hash is computed when it is first read: the second subject reads it
    // (as the service does for the ETag of its first answer).
    for (const [times, read] of [
      [subject, false],
      [hashed, true],
    ] as const) {
      const snapshots = Array.from({ length: N }, build);
      let t = performance.now();
      for (let i = 0; i < N; i++) sha256(parts.join(sep));
      base.push((performance.now() - t) / N);
      t = performance.now();
      for (const s of snapshots) {
        const outcome = coreCompose(s, request);
        if (read && outcome.ok) outcome.result.sha256;
      }
      times.push((performance.now() - t) / N);
    }
  }
  const b = median(base);
  log(`| join + sha256 of the layers | ${us(b)} | 1.0 |`);
  log(`| the core's first compose | ${us(median(subject))} | **${(median(subject) / b).toFixed(1)}** |`);
  log(
    `| the core's first compose, its sha256 read | ${us(median(hashed))} | **${(median(hashed) / b).toFixed(1)}** |`,
  );
}

// --- internal ---

/** An engine with every accelerator but `off` (and any other option given). */
function engineWithout(off: Accelerator[], more: Partial<Record<Accelerator, boolean>> = {}): Engine {
  return createEngine({ accelerators: { ...more, ...Object.fromEntries(off.map((a) => [a, false])) } });
}

function readTree(root: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true }))
    if (e.isFile()) {
      const path = join(e.parentPath, e.name);
      out.set(relative(root, path).split('\\').join('/'), readFileSync(path));
    }
  return out;
}

function copy(files: Map<string, Uint8Array>): Map<string, Uint8Array> {
  return new Map([...files].map(([p, b]) => [p, b.slice()]));
}

/** The middle of some timings (the first round, a warm-up, is dropped). */
function median(xs: number[]): number {
  const kept = xs.slice(1).sort((a, b) => a - b);
  return kept[Math.floor(kept.length / 2)]!;
}

const us = (msValue: number) => `${(msValue * 1000).toFixed(2)} µs`;
const ms = (msValue: number) => `${msValue.toFixed(1)} ms`;
const ms2 = (msValue: number) => `${msValue.toFixed(2)} ms`;

/**
 * Like `compare`, for functions that time a part of their own work and return it (ms):
 * rounds alternate the two, 15 calls each; the medians of what they returned.
 */
function compareTimed(
  baseline: () => number,
  subject: () => number,
  rounds = 7,
): { baseline: number; subject: number; ratio: number } {
  const b: number[] = [];
  const s: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    for (let i = 0; i < 15; i++) {
      const x = baseline();
      const y = subject();
      // The first round warms both up.
      if (r > 0) {
        b.push(x);
        s.push(y);
      }
    }
  }
  const mb = median(b);
  const msub = median(s);
  return { baseline: mb, subject: msub, ratio: msub / mb };
}
