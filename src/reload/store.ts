import type { LoadResult, Snapshot } from '../core/build/snapshot.js';
import { type DegradationReport, degradationDiagnostics } from '../core/compose/degradation.js';
import type { Manifest } from '../core/pack/manifest.js';
import { type Diagnostic, error } from '../core/text/diagnostics.js';
import { defaultEngine } from '../engine/default-engine.js';
import type { Engine } from '../engine/engine.js';
import type { PromptChanges } from '../engine/incremental/pack-compare.js';
import { Slices } from '../source/slices.js';
import { PathHints } from './hints.js';

/** Reads the pack once and builds a snapshot (or the diagnostics of why it cannot). */
export type PackLoader = (request: LoadRequest) => Promise<LoadedPack>;

/** What one reload asks of the loader. */
export interface LoadRequest {
  /**
   * The pack paths that may have changed since the last complete read (file events'
   * paths, `/`-separated); undefined: read the whole pack. A loader may always read the
   * whole pack instead; one that reads only these must give exactly what a full read
   * would.
   */
  hints?: readonly string[];
}

/** A loader's answer: the load, and how the pack was read when the loader says. */
export type LoadedPack = LoadResult & {
  /** `hinted`: only the hinted paths were looked at, on top of the last complete read. */
  read?: ReadKind;
  /** How many files the read opened (the others' bytes were reused), when the loader says. */
  filesRead?: number;
};

/** How a reload read the pack: whole, or only the paths file events named. */
export type ReadKind = 'hinted' | 'full';

/** What started a reload. */
export type ReloadTrigger = 'initial' | 'watch' | 'poll' | 'manual';

/** The pack version being served: swapped as a whole, never changed in place. */
export interface PackState {
  snapshot: Snapshot;
  /** The last good snapshot before this one (for comparisons). */
  previous?: Snapshot;
  /** When this snapshot was swapped in. */
  loadedAt: Date;
}

/** The last reload that failed validation; cleared by the next good load. */
export interface ReloadFailure {
  /** When this failure was first seen. */
  at: Date;
  trigger: ReloadTrigger;
  diagnostics: Diagnostic[];
  /**
   * The failed pack's manifest, when it resolved (a later step failed): what the pack now
   * selects, so that the watcher reads the file that would mend it.
   */
  manifest?: Manifest;
}

/**
 * A valid new version that is not served because it would take something away from a
 * member (a layer, its prompt, or the member itself); cleared by the next swap or when
 * the pack is back to the served version.
 */
export interface HeldReload {
  /** The version held back. */
  version: string;
  /** When this version was first held. */
  at: Date;
  trigger: ReloadTrigger;
  /** The members and layers it would degrade. */
  report: DegradationReport;
  /** The same as warnings (LAYER_LOST, MEMBER_FALLBACK, MEMBER_FAILS, MEMBER_REMOVED). */
  diagnostics: Diagnostic[];
}

export interface ReloadOutcome {
  /**
   * `swapped`: a new version is served; `unchanged`: same content; `failed`: the old one is
   * kept; `held`: the new version is valid but would degrade members, so the old one is
   * kept until it is accepted; `superseded`: the pack changed while it was read, so the
   * read was dropped.
   */
  outcome: 'swapped' | 'unchanged' | 'failed' | 'held' | 'superseded';
  trigger: ReloadTrigger;
  /** The version served after this reload (undefined while nothing has ever loaded). */
  version?: string;
  /** The version served before this reload. */
  previous?: string;
  changed: PromptChanges;
  /** Errors of a failed reload, or the warnings of a good one. */
  diagnostics: Diagnostic[];
  /** How long reading and validating took. */
  durationMs: number;
  /** The version held back (outcome `held`). */
  held?: string;
  /** What the new version takes away (outcome `held`, or `swapped` when it was accepted). */
  degradation?: DegradationReport;
  /** True when a degrading version was swapped in because the reload accepted it. */
  accepted?: boolean;
  /**
   * How the pack was read, when the loader says: `hinted` (only the paths file events
   * named, on top of the last complete read) or `full`.
   */
  read?: ReadKind;
  /** How many files the read opened (the others' bytes were reused), when the loader says. */
  filesRead?: number;
}

/** Events for subscribers (SSE, metrics, logs). */
export type StoreEvent =
  | {
      type: 'reload';
      version: string;
      previous?: string;
      changed: PromptChanges;
      trigger: ReloadTrigger;
      /** Set when a degrading version was accepted on purpose. */
      degradation?: DegradationReport;
    }
  | { type: 'held'; version: string; held: HeldReload }
  | { type: 'error'; version?: string; diagnostics: Diagnostic[]; trigger: ReloadTrigger }
  | { type: 'recovered'; version: string; trigger: ReloadTrigger }
  | { type: 'attempt'; outcome: ReloadOutcome };

export interface ReloadOptions {
  /**
   * Asked after the pack is read and before anything is swapped, with how it was read:
   * true when the files changed during the read (the watcher knows), so the read may mix
   * two versions; the reload is then `superseded`.
   */
  stale?: (read: ReadKind | undefined) => boolean | Promise<boolean>;
  /**
   * Serve the new version even when it degrades members: `true` accepts whatever this
   * reload reads; a version id accepts only that version (the one `/api/status` showed as
   * held), so a pack that changed again meanwhile is held anew.
   */
  accept?: true | string;
  /**
   * The pack paths that may have changed since the last complete read (the watcher's
   * events); undefined: read the whole pack. Reloads served by one follow-up reload read
   * the union of their paths, or the whole pack when any of them asks for it.
   */
  hints?: readonly string[];
}

export interface StoreOptions {
  now?: () => Date;
  /**
   * Swap in versions that degrade members without holding them (default false: a version
   * that would make a member lose a layer, get the fallback text, fail, or disappear is
   * held until a reload accepts it).
   */
  allowLayerLoss?: boolean;
  /**
   * `serve --strict`: a new version with problems (load warnings, or a member composing
   * with a warning or an error) never replaces a served version without any — that
   * reload fails with STRICT_REFUSED and the problems, so ready replicas stay ready.
   */
  strict?: boolean;
  /** The engine that compares versions (default: the library's shared one). */
  engine?: Engine;
}

/**
 * Holds the snapshot being served and replaces it only with a whole, validated one.
 * Readers take `store.state` once per request and use that object throughout, so no
 * request ever sees two versions. Reloads run one at a time; requests for a reload made
 * while one runs are served by a single follow-up reload (which reads the union of their
 * hinted paths, or the whole pack when any of them reads it whole).
 *
 * @example
 * const store = new SnapshotStore(() => loadPack('examples/roboco'));
 * await store.reload('initial');
 * const { snapshot } = store.state!;
 */
export class SnapshotStore {
  #loader: PackLoader;
  #now: () => Date;
  #state: PackState | undefined;
  #lastError: ReloadFailure | null = null;
  #held: HeldReload | null = null;
  #allowLayerLoss: boolean;
  #strict: boolean;
  #engine: Engine;
  #lastAttempt: Date | undefined;
  #lastRead: ReadKind | undefined;
  #listeners = new Set<(event: StoreEvent) => void>();
  #chain: Promise<unknown> = Promise.resolve();
  #queued: Promise<ReloadOutcome> | undefined;
  /** The paths the queued reload reads (the union of every request it serves). */
  #queuedHints = new PathHints();

  constructor(loader: PackLoader, options: StoreOptions = {}) {
    this.#loader = loader;
    this.#now = options.now ?? (() => new Date());
    this.#allowLayerLoss = options.allowLayerLoss ?? false;
    this.#strict = options.strict ?? false;
    this.#engine = options.engine ?? defaultEngine;
  }

  /** The engine that compares this store's versions, and whose cache its answers use. */
  get engine(): Engine {
    return this.#engine;
  }

  /** A store that always serves one snapshot (tests, embedding). */
  static of(snapshot: Snapshot): SnapshotStore {
    const store = new SnapshotStore(async () => ({ snapshot, diagnostics: snapshot.warnings }));
    store.#state = { snapshot, loadedAt: store.#now() };
    return store;
  }

  /** The version being served, or undefined before the first good load. */
  get state(): PackState | undefined {
    return this.#state;
  }

  /** The last failed reload, or null when the last reload was good. */
  get lastError(): ReloadFailure | null {
    return this.#lastError;
  }

  /** The version held back because it would degrade members, or null. */
  get held(): HeldReload | null {
    return this.#held;
  }

  /** Whether degrading versions are swapped in without being held. */
  get allowLayerLoss(): boolean {
    return this.#allowLayerLoss;
  }

  /** When the last reload finished (good or not). */
  get lastAttemptAt(): Date | undefined {
    return this.#lastAttempt;
  }

  /** How the last reload that said so read the pack: `hinted` or `full` (undefined before any). */
  get lastRead(): ReadKind | undefined {
    return this.#lastRead;
  }

  /** Reads the pack and swaps in the new snapshot when it is valid and different. */
  reload(trigger: ReloadTrigger = 'manual', options: ReloadOptions = {}): Promise<ReloadOutcome> {
    this.#queuedHints.merge(options.hints);
    if (this.#queued) return this.#queued;
    const next = this.#chain.then(() => {
      this.#queued = undefined;
      return this.#reloadOnce(trigger, options, this.#queuedHints.take());
    });
    this.#queued = next;
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /** Calls `listener` for every event; returns the unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // --- internal ---

  async #reloadOnce(
    trigger: ReloadTrigger,
    options: ReloadOptions,
    hints: readonly string[] | undefined,
  ): Promise<ReloadOutcome> {
    const started = performance.now();
    let result: LoadedPack;
    const request: LoadRequest = {};
    if (hints) request.hints = hints;
    try {
      result = await this.#loader(request);
    } catch (e) {
      result = {
        diagnostics: [
          error('READ_ERROR', `cannot load the pack: ${e instanceof Error ? e.message : String(e)}`),
        ],
      };
    }
    const current = this.#state?.snapshot;
    const base: Pick<ReloadOutcome, 'trigger' | 'previous' | 'durationMs' | 'read' | 'filesRead'> = {
      trigger,
      previous: current?.version,
      durationMs: performance.now() - started,
    };
    if (result.read) {
      base.read = result.read;
      this.#lastRead = result.read;
    }
    if (result.filesRead !== undefined) base.filesRead = result.filesRead;
    const none: PromptChanges = { agents: [], roles: [] };
    if (options.stale && (await options.stale(result.read))) {
      const outcome: ReloadOutcome = {
        ...base,
        outcome: 'superseded',
        version: current?.version,
        changed: none,
        diagnostics: [],
      };
      this.#emit({ type: 'attempt', outcome });
      return outcome;
    }
    const at = this.#now();
    this.#lastAttempt = at;

    if (this.#strict && result.snapshot && current)
      result = await strictRefusal(this.#engine, current, result);

    // 1. A pack with errors: keep serving what we have, report once per distinct failure.
    if (!result.snapshot) {
      const diagnostics = result.diagnostics;
      const repeated = this.#lastError && sameDiagnostics(this.#lastError.diagnostics, diagnostics);
      if (!repeated) {
        this.#lastError = { at, trigger, diagnostics };
        if (result.manifest) this.#lastError.manifest = result.manifest;
      } else if (this.#lastError) {
        if (result.manifest) this.#lastError.manifest = result.manifest;
        else delete this.#lastError.manifest;
      }
      const outcome: ReloadOutcome = {
        ...base,
        outcome: 'failed',
        version: current?.version,
        changed: none,
        diagnostics,
      };
      if (!repeated) this.#emit({ type: 'error', version: current?.version, diagnostics, trigger });
      this.#emit({ type: 'attempt', outcome });
      return outcome;
    }

    // 2. A good pack: clear the error; swap only when the content changed.
    const next = result.snapshot;
    const recovered = this.#lastError !== null || (this.#held !== null && current?.version === next.version);
    this.#lastError = null;
    if (current && current.version === next.version) {
      this.#held = null;
      const outcome: ReloadOutcome = {
        ...base,
        outcome: 'unchanged',
        version: current.version,
        changed: none,
        diagnostics: result.diagnostics,
      };
      if (recovered) this.#emit({ type: 'recovered', version: current.version, trigger });
      this.#emit({ type: 'attempt', outcome });
      return outcome;
    }

    // 3. One comparison for the guard and the change report, composing only the members
    // the edit can reach, in slices so requests keep being answered meanwhile.
    const comparison = await this.#engine.comparePacks(current, next, new Slices(Number.POSITIVE_INFINITY));
    // A version that would degrade members is held unless this reload accepts it.
    const report = current && !this.#allowLayerLoss ? comparison.degradation : undefined;
    const degraded = report?.degraded ? report : undefined;
    const accepted = degraded && (options.accept === true || options.accept === next.version);
    if (degraded && !accepted) {
      const diagnostics = [...degradationDiagnostics(degraded), ...result.diagnostics];
      const repeated = this.#held?.version === next.version;
      if (!repeated) this.#held = { version: next.version, at, trigger, report: degraded, diagnostics };
      const outcome: ReloadOutcome = {
        ...base,
        outcome: 'held',
        version: current!.version,
        changed: none,
        diagnostics,
        held: next.version,
        degradation: degraded,
      };
      if (!repeated) this.#emit({ type: 'held', version: current!.version, held: this.#held! });
      this.#emit({ type: 'attempt', outcome });
      return outcome;
    }

    // 4. Swap.
    const changed = comparison.changes;
    this.#state = { snapshot: next, previous: current, loadedAt: at };
    // The first version served: work out what each member reads, in the background, so
    // the next reload composes only what its edit reaches.
    if (!current)
      void this.#engine.indexPack(next, new Slices(Number.POSITIVE_INFINITY)).catch(() => undefined);
    // Under --strict, readiness asks for the new version's problems: work them out now, in
    // slices, rather than in the first readiness answer.
    if (this.#strict)
      void this.#engine.packProblemsSliced(next, new Slices(Number.POSITIVE_INFINITY)).catch(() => undefined);
    this.#held = null;
    const outcome: ReloadOutcome = {
      ...base,
      outcome: 'swapped',
      version: next.version,
      changed,
      diagnostics: degraded
        ? [...degradationDiagnostics(degraded), ...result.diagnostics]
        : result.diagnostics,
    };
    if (degraded) {
      outcome.degradation = degraded;
      outcome.accepted = true;
    }
    const event: StoreEvent = { type: 'reload', version: next.version, changed, trigger };
    if (current) event.previous = current.version;
    if (degraded) event.degradation = degraded;
    this.#emit(event);
    this.#emit({ type: 'attempt', outcome });
    return outcome;
  }

  #emit(event: StoreEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber must not break reloading or the other subscribers.
      }
    }
  }
}

function sameDiagnostics(a: readonly Diagnostic[], b: readonly Diagnostic[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Under `serve --strict`: a new version with problems, replacing one without, becomes a
 * failed load (STRICT_REFUSED, then every problem); anything else passes unchanged.
 */
async function strictRefusal(engine: Engine, current: Snapshot, result: LoadResult): Promise<LoadResult> {
  const next = result.snapshot!;
  if (next.version === current.version) return result;
  const slices = new Slices(Number.POSITIVE_INFINITY);
  const problems = await engine.packProblemsSliced(next, slices);
  if (problems.length === 0 || (await engine.packProblemsSliced(current, slices)).length > 0) return result;
  const refused = error(
    'STRICT_REFUSED',
    `serve --strict: version ${next.version} has ${problems.length} problem${problems.length === 1 ? '' : 's'} (first: ${problems[0]!.code} ${problems[0]!.message}); version ${current.version} stays`,
  );
  return { diagnostics: [refused, ...problems] };
}
