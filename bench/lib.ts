// What the core benchmarks measure: the built `dist/` (what `strata serve` and the CLI
// run), or, with BENCH_SRC=1, the sources. Run through tsx, the sources carry tsx's
// `__name(…)` call around every function expression made at run time (its `keepNames`),
// which the built code does not: closure-heavy code measures slower than it runs. Every
// module comes from one of the two trees, never both (a snapshot one tree built is
// composed by the same tree's engine). `npm run bench` builds `dist/` first.

import type * as SnapshotModule from '../src/core/build/snapshot.js';
import type * as ComposeModule from '../src/core/compose/compose.js';
import type * as TextModule from '../src/core/text/text.js';
import type * as CacheModule from '../src/engine/cache.js';
import type * as DefaultEngineModule from '../src/engine/default-engine.js';
import type * as EngineModule from '../src/engine/engine.js';
import type * as RegistryModule from '../src/layouts/registry.js';
import type * as LoadModule from '../src/source/load.js';
import type * as ReadDirModule from '../src/source/read-dir.js';
import type * as ReuseModule from '../src/source/reuse.js';

export type { ComposeRequest } from '../src/core/compose/compose.js';
export type { Accelerator, Engine } from '../src/engine/engine.js';

/** Which tree this process measures: `dist` (the default) or `src`. */
export const TREE = process.env.BENCH_SRC === '1' ? 'src' : 'dist';

/** What a benchmark's machine line says of the tree it measures. */
export const TREE_NOTE =
  TREE === 'dist' ? 'measuring the built dist/' : 'measuring the sources through tsx (BENCH_SRC=1)';

const root = TREE === 'src' ? '../src' : '../dist/src';
/**
 * A module of the measured tree, by its path under `src/` (`'server/node/start.js'`); type
 * it with the source module's type (`fromTree<typeof import('../src/…')>(…)`).
 */
export const fromTree = <T>(path: string): Promise<T> => import(`${root}/${path}`) as Promise<T>;
const load = fromTree;

export const { buildSnapshot: coreBuild } = await load<typeof SnapshotModule>('core/build/snapshot.js');
export const { tryCompose: coreCompose } = await load<typeof ComposeModule>('core/compose/compose.js');
export const { sha256 } = await load<typeof TextModule>('core/text/text.js');
export const { DEFAULT_CACHE_BYTES } = await load<typeof CacheModule>('engine/cache.js');
export const { buildSnapshot, compose, defaultEngine } =
  await load<typeof DefaultEngineModule>('engine/default-engine.js');
export const { createEngine } = await load<typeof EngineModule>('engine/engine.js');
export const { LAYOUTS } = await load<typeof RegistryModule>('layouts/registry.js');
export const { loadPack, loadPackStrict } = await load<typeof LoadModule>('source/load.js');
export const { readPackDir } = await load<typeof ReadDirModule>('source/read-dir.js');
export const { fileReuse } = await load<typeof ReuseModule>('source/reuse.js');
