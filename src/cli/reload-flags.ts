import type { Command } from 'commander';
import { DEFAULT_CACHE_BYTES } from '../engine/cache.js';
import type { ReloadSource } from '../reload/read.js';
import { environmentRole } from '../source/environment.js';
import { type CliIO, UsageError } from './io.js';
import { collect, operatorSettings, type PackFlags, packLocation } from './pack-options.js';

/** The flags of the long-running commands that serve a pack and follow its changes (`serve`, `mcp`). */
export interface ReloadFlags extends PackFlags {
  watch: boolean;
  debounce?: string;
  pollInterval?: string;
  allowLayerLoss?: boolean;
  cacheBytes?: string;
  maxBodyBytes?: string;
  maxQueryAmbient?: string;
  mcpPageSize?: string;
  strict?: boolean;
}

/** What those flags start with, in this environment (see {@link reloadOptions}). */
export interface ReloadOptions extends ReloadSource {
  watch: boolean;
  debounceMs: number;
  pollMs: number;
  /** The role of a compose that names neither a role nor an agent (`STRATA_ROLE`, else `CHORUS_ROLE`). */
  defaultRole?: string;
  allowLayerLoss?: boolean;
  strict?: boolean;
  cacheBytes?: number;
  maxBodyBytes?: number;
  maxQueryAmbient?: number;
  mcpPageSize?: number;
}

/**
 * Declares the flags `serve` and `mcp` share, beside the pack options: watching
 * (`--no-watch`, `--debounce`, `--poll-interval`), `--allow-layer-loss`, `--set`,
 * `--cache-bytes` and `--mcp-page-size`.
 */
export function addReloadOptions(cmd: Command, wording: { pageSize: number; noWatch: string }): Command {
  return cmd
    .option('--no-watch', wording.noWatch)
    .option('--debounce <ms>', 'quiet time after a file change before reloading (default 100)')
    .option(
      '--poll-interval <ms>',
      'backstop for missed file events: compare the pack with its last read this often, reading only what changed (default 10000; 0 disables)',
    )
    .option(
      '--allow-layer-loss',
      'serve a new pack version even when a member would lose a layer, get the fallback text, fail or disappear (default: hold it until POST /api/prompts/reload?accept=<version>, or a restart)',
    )
    .option(
      '--set <key=value>',
      'set a setting for every request (repeatable; over env, below requests; a path setting may name a file outside the pack, read and watched)',
      collect,
      [],
    )
    .option(
      '--cache-bytes <bytes>',
      `budget of all caches of composed prompts and token counts (default ${DEFAULT_CACHE_BYTES})`,
    )
    .option(
      '--mcp-page-size <n>',
      `MCP prompts/list: prompts of one page at most; the rest follow with its nextCursor (default ${wording.pageSize})`,
    );
}

/**
 * Resolves the shared flags under the environment contract: the pack directory, preset,
 * read limits and settings, the default role, the watch timings and the limits. Usage
 * errors throw.
 */
export function reloadOptions(flags: ReloadFlags, io: CliIO): ReloadOptions {
  const where = packLocation(flags, io);
  const options: ReloadOptions = {
    dir: where.dir,
    preset: where.preset,
    ...where.limits,
    env: io.env,
    watch: flags.watch,
    debounceMs: integer(flags.debounce, '--debounce', 100),
    pollMs: integer(flags.pollInterval, '--poll-interval', 10_000),
    defaultRole: environmentRole(io.env),
  };
  if (flags.allowLayerLoss === true) options.allowLayerLoss = true;
  if (flags.strict === true) options.strict = true;
  const settings = operatorSettings(flags);
  if (settings) options.settings = settings;
  if (flags.cacheBytes !== undefined)
    options.cacheBytes = integer(flags.cacheBytes, '--cache-bytes', 0, 2 ** 40);
  const limits = {
    maxBodyBytes: positiveFlag(flags.maxBodyBytes, '--max-body-bytes'),
    maxQueryAmbient: positiveFlag(flags.maxQueryAmbient, '--max-query-ambient'),
    mcpPageSize: positiveFlag(flags.mcpPageSize, '--mcp-page-size'),
  };
  return assignDefined(options, limits);
}

/** Sets on `target` each value of `values` that is not undefined; returns `target`. */
export function assignDefined<T extends object>(target: T, values: { [K in keyof T]?: T[K] | undefined }): T {
  for (const [key, value] of Object.entries(values))
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
}

/**
 * An integer flag from 0 to `max` (`fallback` when not given); anything else, the empty
 * string included, is a usage error (an empty variable of the environment is unset before
 * it gets here: `envVariable`).
 */
export function integer(raw: string | undefined, flag: string, fallback: number, max = 2 ** 31 - 1): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n > max) {
    throw new UsageError(`${flag} must be an integer from 0 to ${max}, not ${JSON.stringify(raw)}`);
  }
  return n;
}

/** An integer flag of at least 1 (undefined when not given); anything else is a usage error. */
export function positiveFlag(raw: string | undefined, flag: string): number | undefined {
  const n = integer(raw, flag, -1);
  if (n === 0) throw new UsageError(`${flag} must be at least 1`);
  return n === -1 ? undefined : n;
}
