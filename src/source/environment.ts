import { isAbsolute, resolve } from 'node:path';
import { PRESET_NAMES } from '../layouts/registry.js';
import type { PackSource } from './open.js';

// The environment contract: how `strata compose` (and every pack-reading command),
// `systemPrompt()` and `strata serve` find the pack, the preset and the role. One rule,
// documented once in docs/cli.md ("Environment").
//
// | what | read from, first that is set | an empty string |
// | --- | --- | --- |
// | pack directory | `--dir` / `dir`, `STRATA_PROMPTS_DIR`, `CHORUS_PROMPTS_DIR` | is unset |
// | preset | `--preset` / `preset`, else the pack's `strata.yaml`, else its layout | is unset |
// | role | `--role` / `role`, `STRATA_ROLE`, `CHORUS_ROLE` (only for a request that names neither a role nor an agent) | is unset |
//
// With no pack directory, the chorus preset composes an empty pack (its fallback text);
// any other preset is refused. With no directory and no preset, `systemPrompt()` takes
// the chorus preset (it is the chorus drop-in) while the CLI and the service refuse.

/** What a surface was told explicitly (flags or options); undefined or '' is "not given". */
export interface PackChoice {
  dir?: string;
  preset?: string;
}

/** Where the pack is and which preset reads it, as {@link resolvePackEnvironment} finds them. */
export interface PackEnvironment {
  /** The source to open: a directory, or the empty pack. */
  source: PackSource;
  /** Absolute pack directory; undefined for the empty pack. */
  dir?: string;
  /** The directory as given (for display). */
  given?: string;
  /** Which setting gave the directory. */
  from?: '--dir' | 'STRATA_PROMPTS_DIR' | 'CHORUS_PROMPTS_DIR';
  preset?: string;
}

export type PackEnvironmentOutcome =
  | { ok: true; pack: PackEnvironment }
  | { ok: false; problem: 'preset' | 'no-pack'; refusal: string };

export interface ResolveOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Relative directories resolve against this (default: process.cwd()). */
  cwd?: string;
  /** With neither a directory nor a preset: refuse (CLI, service) or take chorus (runtime helper). */
  withoutPack: 'refuse' | 'chorus';
}

/**
 * Resolves the pack directory and preset of the environment contract. A refusal is a
 * usage problem (an unknown preset, no pack directory), worded for every surface.
 *
 * @example
 * const found = resolvePackEnvironment({}, { env: process.env, withoutPack: 'refuse' });
 * if (found.ok) await openPack(found.pack.source, { preset: found.pack.preset });
 */
export function resolvePackEnvironment(choice: PackChoice, options: ResolveOptions): PackEnvironmentOutcome {
  const env = options.env;
  const preset = given(choice.preset);
  if (preset !== undefined && !(PRESET_NAMES as readonly string[]).includes(preset)) {
    return {
      ok: false,
      problem: 'preset',
      refusal: `unknown preset ${JSON.stringify(preset)}; presets: ${PRESET_NAMES.join(', ')}`,
    };
  }
  const explicit = given(choice.dir);
  const strata = given(env.STRATA_PROMPTS_DIR);
  const chorus = given(env.CHORUS_PROMPTS_DIR);
  const dir = explicit ?? strata ?? chorus;
  if (dir === undefined) {
    const effective = preset ?? (options.withoutPack === 'chorus' ? 'chorus' : undefined);
    if (effective === 'chorus')
      return { ok: true, pack: { source: { kind: 'files', files: new Map() }, preset: 'chorus' } };
    return {
      ok: false,
      problem: 'no-pack',
      refusal:
        'no pack directory: give --dir DIR or set STRATA_PROMPTS_DIR (or CHORUS_PROMPTS_DIR); ' +
        'only the chorus preset composes without one',
    };
  }
  const absolute = isAbsolute(dir) ? dir : resolve(options.cwd ?? process.cwd(), dir);
  const pack: PackEnvironment = {
    source: { kind: 'dir', dir: absolute },
    dir: absolute,
    given: dir,
    from:
      explicit !== undefined ? '--dir' : strata !== undefined ? 'STRATA_PROMPTS_DIR' : 'CHORUS_PROMPTS_DIR',
  };
  if (preset !== undefined) pack.preset = preset;
  return { ok: true, pack };
}

/**
 * The role of a request under the environment contract: the request's own role, else —
 * when the request names no agent (a fleet member brings its own role) — `STRATA_ROLE`,
 * else `CHORUS_ROLE`. Empty strings are unset.
 */
export function requestRole(
  request: { role?: string; agent?: string },
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (request.role !== undefined || request.agent !== undefined) return request.role;
  return environmentRole(env);
}

/** `STRATA_ROLE`, else `CHORUS_ROLE` (empty strings are unset). */
export function environmentRole(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return given(env.STRATA_ROLE) ?? given(env.CHORUS_ROLE);
}

/**
 * A variable of the environment contract: its value, or undefined when it is unset or set
 * to the empty string (which counts as unset, as for every variable strata reads).
 *
 * @example
 * envVariable({ STRATA_HOST: '' }, 'STRATA_HOST'); // undefined
 */
export function envVariable(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string | undefined {
  return given(env[name]);
}

// --- internal ---

function given(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
