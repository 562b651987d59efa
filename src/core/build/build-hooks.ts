import type { FastYaml } from '../text/yaml.js';

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
}
