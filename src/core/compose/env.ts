import { derived } from '../build/derived.js';
import type { PackFile } from '../build/pack-file.js';
import type { RoleRecord } from '../build/roles.js';
import type { Snapshot } from '../build/snapshot-types.js';
import type { GateContext } from '../pack/gates.js';
import { type CompiledTemplate, splitPath } from '../pack/template.js';
import type { Diagnostic } from '../text/diagnostics.js';
import { ownValue } from '../text/own.js';
import type { HashPairs } from './lazy-hash.js';
import type { ComposeRequest } from './types.js';

/**
 * What every layer of one compose reads, and where a layer's resolved text is left. It is
 * the gates' context too (settings, role, team, agent).
 */
export interface LayerEnv extends GateContext {
  /** The `role_file` and `role_source` path placeholders' values. */
  roleFile: string | undefined;
  roleSource: string | undefined;
  snapshot: Snapshot;
  request: ComposeRequest;
  diagnostics: Diagnostic[];
  /** Input values as templates write them. */
  inputs: Record<string, string>;
  /** Whether the manifest takes request inputs. */
  takesInputs: boolean;
  /** Names the request got wrong (already reported): their layers are not reported again. */
  unknown: ReadonlySet<string>;
  /** The role record of the compose's role (`role`), looked up once. */
  record: RoleRecord | undefined;
  /** Told every pack path the compose looks up (see `composeReading`). */
  onRead: ((path: string) => void) | undefined;
  /** What the engine hands the compose to do faster (none: the core's own way). */
  hooks: ComposeHooks | undefined;
  /** Included layers and chain parts with their hash sources, in pairs (defined when the layers are read). */
  hashes: HashPairs;
  /** The result text, once the layers are joined (lazy hashes read their slices of it; made with the first). */
  joined: { text: string } | undefined;
  /** Character offset in the result text where the layer being resolved would start. */
  charStart: number;
  /** The most bytes the prompt may have (checked as it grows). */
  maxBytes: number;
  /** Set when a layer's text grew past {@link LayerEnv.maxBytes} (said: PROMPT_TOO_LARGE). */
  tooLarge: boolean;
  /** Of a cut layer or chain part: the bytes of its source the cut kept (for TRUNCATED); made with the first cut. */
  kept: Map<object, number> | undefined;
  // The layer just resolved, when it is included:
  /** Its text (undefined: not included). */
  text: string | undefined;
  /** Its UTF-8 length, when known. */
  bytes: number | undefined;
  /** Set when the text is this file's prompt (its hash is the file's). */
  file: PackFile | undefined;
}

/**
 * What an engine hands a compose to do faster (`src/engine/`); the core composes the same
 * bytes without them, and the engine's tests hold each to that.
 */
export interface ComposeHooks {
  /**
   * The text of a layer's template whose placeholders are all role fields (the core asks
   * for no other), for the compose's record, each field's inputs filled as the layer's two
   * passes fill them (the field's inputs, then the template); undefined to leave the layer
   * to those passes.
   */
  fillFields?(env: LayerEnv, compiled: CompiledTemplate): string | undefined;
}

/** A pack file by path; every look-up of a compose goes through here. */
export function fileAt(env: LayerEnv, path: string): PackFile | undefined {
  env.onRead?.(path);
  return env.snapshot.files.get(path);
}

/**
 * The slot of {@link pathParts}' splits: of the manifest's templates only, so a patched
 * build (which shares the manifest) carries it over.
 */
export const SPLIT_PATHS = 'split-paths';

/** A manifest's path template split into literals and placeholders (`splitPath`), once per snapshot. */
export function pathParts(env: LayerEnv, template: string): readonly string[] {
  const split = derived(env.snapshot, SPLIT_PATHS, () => new Map<string, readonly string[]>());
  let parts = split.get(template);
  if (parts === undefined) {
    parts = splitPath(template);
    split.set(template, parts);
  }
  return parts;
}

/**
 * A path placeholder's value: the request's names (and the role record's file and source)
 * over inputs of the same name.
 */
export function placeholderValue(env: LayerEnv, name: string): string | undefined {
  switch (name) {
    case 'role':
      return env.role;
    case 'team':
      return env.team;
    case 'agent':
      return env.agent;
    case 'role_file':
      return env.roleFile;
    case 'role_source':
      return env.roleSource;
  }
  return ownValue(env.inputs, name);
}
