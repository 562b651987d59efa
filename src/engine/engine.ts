import type { BuildHooks } from '../core/build/build-hooks.js';
import { derived } from '../core/build/derived.js';
import { buildSnapshot, buildSnapshotSliced } from '../core/build/snapshot.js';
import type { BuildInput, LoadResult, Snapshot } from '../core/build/snapshot-types.js';
import type { Yielder } from '../core/build/yielder.js';
import {
  type ComposeHooks,
  type ComposeOutcome,
  type ComposeRequest,
  type ComposeResult,
  composeReading,
  tryCompose as coreCompose,
} from '../core/compose/compose.js';
import { requestShapeProblems } from '../core/compose/compose-request.js';
import { packProblems, packProblemsSliced } from '../core/compose/usable.js';
import type { Layouts } from '../core/layout.js';
import { type Diagnostic, PromptError } from '../core/text/diagnostics.js';
import { LAYOUTS } from '../layouts/registry.js';
import { type CacheUsage, DEFAULT_CACHE_BYTES, EngineCache, type SnapshotCache } from './cache.js';
import { RecordTemplates } from './fast/record-template.js';
import { fastYaml } from './fast/yaml-simple.js';
import { PackComparer, type PackComparison } from './incremental/pack-compare.js';
import { Incremental } from './incremental/snapshot-patch.js';
import { ComposeMemo } from './memo/compose-memo.js';
import { freezeOutcome } from './memo/freeze.js';
import { outcomeBytes } from './memo/outcome-bytes.js';
import { BytesMemo } from './memo/parse-memo.js';

/** What an engine is made with: its limits, and which accelerators it runs. */
export interface EngineOptions {
  /**
   * Budget of all of the engine's caches together (composed outcomes, rendered answers,
   * token counts), in bytes; 0 keeps nothing. Default {@link DEFAULT_CACHE_BYTES} (64 MiB).
   */
  cacheBytes?: number;
  /**
   * Accelerators, each on unless turned off here: `memo` (compose outcomes kept per
   * snapshot and request), `incremental` (a reload builds from the served snapshot),
   * `parseMemo` (per-bytes UTF-8 checks and YAML parses kept across builds), `fastYaml`
   * (the simplest YAML read without a syntax tree), `recordTemplates` (a template of role
   * fields filled from each record's flattened text). Turning one off never changes a byte
   * of any answer, only the time it takes: benchmarks and tests do.
   */
  accelerators?: Partial<Record<Accelerator, boolean>>;
  /** The layouts a pack may be (presets, detection): default the built-in ones. */
  layouts?: Layouts;
}

/** The engine's accelerators, by name (see {@link EngineOptions.accelerators}). */
export type Accelerator = 'memo' | 'incremental' | 'parseMemo' | 'fastYaml' | 'recordTemplates';

/**
 * strata's core, made fast: builds and composes exactly as the core does, with every
 * cache held here, bounded by the engine's options.
 */
export interface Engine {
  /** The engine's byte-bounded cache, for callers that keep snapshot-derived answers in it. */
  readonly cache: EngineCache;
  /** The layouts its builds know (unless a build's input names its own). */
  readonly layouts: Layouts;
  /** Builds a snapshot (as the core's `buildSnapshot`), incrementally from `input.previous`. */
  buildSnapshot(input: BuildInput): LoadResult;
  /** {@link Engine.buildSnapshot} in steps, giving the event loop a turn when `yielder` is due. */
  buildSnapshotSliced(input: BuildInput, yielder: Yielder): Promise<LoadResult>;
  /** The core's `tryCompose`, memoised per snapshot and request; outcomes are frozen and shared. */
  tryCompose(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome;
  /** {@link Engine.tryCompose}, throwing a `PromptError` for a bad request. */
  compose(snapshot: Snapshot, request: ComposeRequest): ComposeResult;
  /** The core's `packProblems`, worked out once per snapshot. */
  packProblems(snapshot: Snapshot): Diagnostic[];
  /** {@link Engine.packProblems} in steps (a service after a reload). */
  packProblemsSliced(snapshot: Snapshot, yielder: Yielder): Promise<Diagnostic[]>;
  /**
   * Compares two versions of a pack for the reload guard and the change report, composing
   * only the members an edit can reach.
   */
  comparePacks(current: Snapshot | undefined, next: Snapshot, yielder?: Yielder): Promise<PackComparison>;
  /**
   * The paths whose files may differ between `a` and `b` when this engine built `b` from
   * `a` incrementally (a superset of those that do); undefined when it did not.
   */
  patchedPaths(a: Snapshot, b: Snapshot): readonly string[] | undefined;
  /** Works out which files each member of a snapshot reads (what {@link Engine.comparePacks} starts from). */
  indexPack(snapshot: Snapshot, yielder?: Yielder): Promise<ReadonlyMap<string, readonly string[]>>;
  /** The cache's budget and what it holds now. */
  cacheUsage(): CacheUsage;
}

/**
 * Makes an engine: a cache bounded by `cacheBytes`, and the accelerators. A test or a
 * service makes its own; the library's plain functions use one shared default engine.
 *
 * @example
 * const engine = createEngine({ cacheBytes: 16 * 1024 * 1024 });
 * const { snapshot } = engine.buildSnapshot({ files });
 * const { text } = engine.compose(snapshot!, { agent: 'ada' });
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const on = (name: Accelerator) => options.accelerators?.[name] !== false;
  const layouts = options.layouts ?? LAYOUTS;
  const withLayouts = (input: BuildInput): BuildInput => (input.layouts ? input : { ...input, layouts });
  const cache = new EngineCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
  const memo = new ComposeMemo(cache);
  const bytes = new BytesMemo();
  const incremental = new Incremental();
  const problems = new WeakMap<Snapshot, Promise<Diagnostic[]> | Diagnostic[]>();

  const hooks: BuildHooks = {};
  if (on('fastYaml')) hooks.fastYaml = fastYaml;
  if (on('parseMemo')) hooks.memo = (b, step, compute, path) => bytes.get(b, step, compute, path);
  if (on('incremental')) {
    hooks.patch = (input, previous) => incremental.patch(withLayouts(input), previous, hooks);
    hooks.built = (snapshot, record) => incremental.remember(snapshot, record);
  }
  const templates = new RecordTemplates();
  const composeHooks: ComposeHooks | undefined = on('recordTemplates')
    ? { fillFields: (env, compiled) => templates.fill(env, compiled) }
    : undefined;
  const compute = (snapshot: Snapshot, request: ComposeRequest) =>
    coreCompose(snapshot, request, composeHooks);
  const composeShaped = on('memo')
    ? (snapshot: Snapshot, request: ComposeRequest) =>
        memo.outcome(snapshot, request, compute, sizeOf, freezeComposed)
    : (snapshot: Snapshot, request: ComposeRequest) => freezeComposed(compute(snapshot, request), snapshot);
  // A snapshot or request of the wrong shape (from untyped code) is the core's BAD_REQUEST,
  // told before the memo reads either.
  const tryCompose = (snapshot: Snapshot, request: ComposeRequest): ComposeOutcome => {
    const bad = requestShapeProblems(snapshot, request);
    return bad.length > 0
      ? freezeOutcome({ ok: false, diagnostics: [...bad] })
      : composeShaped(snapshot, request);
  };
  const comparer = new PackComparer(
    { tryCompose, composeReading: (s, r, onRead) => composeReading(s, r, onRead, composeHooks) },
    incremental,
  );

  const engine: Engine = {
    cache,
    layouts,
    buildSnapshot: (input) => owned(buildSnapshot(withLayouts(input), hooks), engine),
    buildSnapshotSliced: async (input, yielder) =>
      owned(await buildSnapshotSliced(withLayouts(input), yielder, hooks), engine),
    tryCompose,
    compose(snapshot, request) {
      const outcome = tryCompose(snapshot, request);
      if (!outcome.ok) throw new PromptError(outcome.diagnostics);
      return outcome.result;
    },
    packProblems(snapshot) {
      const known = problems.get(snapshot);
      if (Array.isArray(known)) return known;
      const found = packProblems(snapshot, tryCompose);
      problems.set(snapshot, found);
      return found;
    },
    async packProblemsSliced(snapshot, yielder) {
      const known = problems.get(snapshot);
      if (known) return known;
      const working = packProblemsSliced(snapshot, yielder, tryCompose);
      problems.set(snapshot, working);
      const found = await working;
      problems.set(snapshot, found);
      return found;
    },
    comparePacks: (current, next, yielder) => comparer.compare(current, next, yielder),
    indexPack: (snapshot, yielder) => comparer.index(snapshot, yielder),
    patchedPaths: (a, b) => incremental.patchedPaths(a, b),
    cacheUsage: () => cache.usage(),
  };
  return engine;
}

/**
 * The engine that built a snapshot, when one did (a snapshot built by the core alone, or
 * frozen, has none): its later work (composes, token counts, rendered answers) is kept in
 * that engine's cache, within that engine's budget.
 */
export function builtBy(snapshot: Snapshot): Engine | undefined {
  // Something that is no snapshot (from untyped code) was built by no engine.
  if (typeof snapshot !== 'object' || snapshot === null) return undefined;
  return derived<Engine | undefined>(snapshot, BUILT_BY, () => undefined);
}

export type { CacheUsage, SnapshotCache };
export { DEFAULT_CACHE_BYTES, EngineCache };

// --- internal ---

/** The slot of {@link builtBy}. */
const BUILT_BY = 'built-by-engine';

/** Marks the snapshot of a build as `engine`'s. */
function owned(result: LoadResult, engine: Engine): LoadResult {
  if (result.snapshot) derived(result.snapshot, BUILT_BY, () => engine);
  return result;
}

/** Freezes an outcome; the snapshot's settings objects are frozen already (by its build). */
function freezeComposed(outcome: ComposeOutcome, snapshot: Snapshot): ComposeOutcome {
  return freezeOutcome(outcome, snapshot.settings);
}

/** An upper bound of an outcome's memory (its layers are not read: they are built on first read). */
function sizeOf(outcome: ComposeOutcome, snapshot: Snapshot): number {
  return outcomeBytes(outcome, snapshot.manifest.layers.length);
}
