import type { FastYaml } from '../text/yaml.js';
import type { BuildInput, LoadResult, Snapshot } from './snapshot-types.js';

// What a build may be handed to go faster. The core's build is whole without them; each
// one must leave every snapshot, version and diagnostic exactly as the plain build makes
// them (the engine's accelerators, each proved so by its own test).

/** A build's accelerators (see `buildSnapshot`). */
export interface BuildHooks {
  /** A faster reader of the simplest YAML (manifests, registries, frontmatter). */
  fastYaml?: FastYaml;
  /**
   * Remembers pure per-bytes results across builds (whether bytes are UTF-8, a YAML
   * file's parse): `compute()`'s result for these bytes, step and path.
   */
  memo?: <T>(bytes: Uint8Array, step: string, compute: () => T, path: string) => T;
  /**
   * The snapshot a full build of `input` would give, made from `input.previous` when only
   * a few files changed; undefined when that is not known to be exact (the build runs in full).
   */
  patch?: (input: BuildInput, previous: Snapshot) => Generator<void, LoadResult | undefined>;
  /** Told of every snapshot a full build made, with what a later `patch` starts from. */
  built?: (snapshot: Snapshot, record: BuildRecord) => void;
}

/**
 * What a build kept about its snapshot so that the next build of the same pack can start
 * from it: the input it was built from, and which paths the pack's structure (manifest,
 * preset detection, role registry, fleet) was read from.
 */
export interface BuildRecord {
  /** The files the snapshot was built from (the same bytes objects). */
  inputFiles: ReadonlyMap<string, Uint8Array>;
  refused: ReadonlySet<string>;
  /** The forced preset of the build, if any. */
  preset: string | undefined;
  root: string | undefined;
  /** Whether the preset came from detection (no manifest, none forced). */
  detected: boolean;
  /**
   * Files the manifest, registry or fleet were read from (manifest chain, registry YAML
   * files, the files its discovery rules read, the fleet file, every agent's declaring
   * file): a change to one rebuilds all.
   */
  structural: ReadonlySet<string>;
  /** Files the manifest leaves out of the pack (`files:`, `hidden:`). */
  dropped: ReadonlySet<string>;
  /** Refused paths the version counts (those the manifest does not leave out). */
  refusedKept: readonly string[];
  /** Which files the manifest keeps raw. */
  raw: (path: string) => boolean;
  /** Files a warning of the snapshot names. */
  warned: ReadonlySet<string>;
  /** The settings' diagnostics, as JSON. */
  settingsKey: string;
}
