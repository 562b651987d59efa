import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { type ComposeRequest, type ComposeResult, tryCompose } from '../core/compose.js';
import { type Diagnostic, formatDiagnostic } from '../core/diagnostics.js';
import { parseSetPairs } from '../core/settings.js';
import { buildSnapshot, type LoadResult, type Snapshot } from '../core/snapshot.js';
import { loadPack } from '../source/load.js';
import { type CliIO, UsageError } from './io.js';

/** Options every pack-reading command shares (SPEC §4). */
export interface PackFlags {
  dir?: string;
  preset?: string;
  maxFileBytes?: string;
}

export interface RequestFlags extends PackFlags {
  role?: string;
  team?: string;
  agent?: string;
  ambient?: string;
  ambientFile?: string;
  set?: string[];
}

export function addPackOptions(cmd: Command): Command {
  return cmd
    .option('--dir <dir>', 'pack directory (default: $STRATA_PROMPTS_DIR, or $CHORUS_PROMPTS_DIR)')
    .option('--preset <name>', 'roboco | chorus (default: the pack manifest, else its layout)')
    .option('--max-file-bytes <n>', 'refuse files larger than this (default 1048576)');
}

export function addRequestOptions(cmd: Command): Command {
  return addPackOptions(cmd)
    .option('--role <role>', 'role to compose for (default: $CHORUS_ROLE with the chorus preset)')
    .option('--team <team>', 'team')
    .option('--agent <agent>', 'agent id (a fleet member brings its role and team)')
    .option('--ambient <text>', 'ambient text for the ambient layer')
    .option('--ambient-file <file>', 'read the ambient text from a file')
    .option('--set <key=value>', 'override a setting (repeatable)', collect, []);
}

/**
 * Finds and loads the pack as SPEC §4 says: --dir, else $STRATA_PROMPTS_DIR, else
 * $CHORUS_PROMPTS_DIR (not with --preset roboco). With the chorus preset and no directory
 * at all, the pack is empty and composes to the fallback.
 */
export async function openPack(flags: PackFlags, io: CliIO): Promise<LoadResult> {
  const { dir, preset, maxFileBytes } = packLocation(flags, io);
  if (dir === undefined) return buildSnapshot({ files: new Map(), env: io.env, preset });
  return loadPack(dir, { preset, env: io.env, maxFileBytes });
}

/** Where a pack is, as {@link openPack} finds it; `dir` is absolute, or undefined for an empty chorus pack. */
export interface PackLocation {
  dir?: string;
  /** The directory as the user gave it (for display, e.g. GitHub annotations). */
  given?: string;
  preset?: string;
  maxFileBytes?: number;
}

/** Resolves --dir / $STRATA_PROMPTS_DIR / $CHORUS_PROMPTS_DIR, --preset and --max-file-bytes; usage errors throw. */
export function packLocation(flags: PackFlags, io: CliIO): PackLocation {
  const preset = flags.preset;
  if (preset !== undefined && preset !== 'roboco' && preset !== 'chorus') {
    throw new UsageError(`--preset must be roboco or chorus, not ${JSON.stringify(preset)}`);
  }
  let maxFileBytes: number | undefined;
  if (flags.maxFileBytes !== undefined) {
    maxFileBytes = Number(flags.maxFileBytes);
    if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes <= 0)
      throw new UsageError('--max-file-bytes must be a positive integer');
  }
  const dir =
    flags.dir ?? io.env.STRATA_PROMPTS_DIR ?? (preset === 'roboco' ? undefined : io.env.CHORUS_PROMPTS_DIR);
  if (dir === undefined || dir === '') {
    if (preset === 'chorus') return { preset, maxFileBytes };
    throw new UsageError('no pack directory: give --dir DIR or set STRATA_PROMPTS_DIR');
  }
  return { dir: resolvePath(io, dir), given: dir, preset, maxFileBytes };
}

/** Prints diagnostics to stderr; returns the snapshot, or undefined when loading failed. */
export function reportLoad(result: LoadResult, io: CliIO): Snapshot | undefined {
  printDiagnostics(result.diagnostics, io);
  return result.snapshot;
}

export function printDiagnostics(diagnostics: readonly Diagnostic[], io: CliIO): void {
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
}

/**
 * Loads the pack, builds the request from flags and composes, printing every
 * diagnostic on stderr. Undefined when loading or composing failed (exit 1).
 */
export async function composeFromFlags(
  flags: RequestFlags,
  io: CliIO,
): Promise<{ snapshot: Snapshot; request: ComposeRequest; result: ComposeResult } | undefined> {
  const snapshot = reportLoad(await openPack(flags, io), io);
  if (!snapshot) return undefined;
  const request = await requestFromFlags(flags, snapshot, io);
  const outcome = tryCompose(snapshot, request);
  printDiagnostics(outcome.ok ? outcome.result.diagnostics : outcome.diagnostics, io);
  return outcome.ok ? { snapshot, request, result: outcome.result } : undefined;
}

/** Builds the compose request from flags (role from $CHORUS_ROLE with the chorus preset). */
export async function requestFromFlags(
  flags: RequestFlags,
  snapshot: Snapshot,
  io: CliIO,
): Promise<ComposeRequest> {
  if (flags.ambient !== undefined && flags.ambientFile !== undefined) {
    throw new UsageError('give --ambient or --ambient-file, not both');
  }
  const { overrides, bad } = parseSetPairs(flags.set ?? []);
  if (bad.length > 0) throw new UsageError(`--set needs KEY=VALUE, got ${JSON.stringify(bad[0])}`);
  const request: ComposeRequest = {};
  const role = flags.role ?? (snapshot.preset === 'chorus' ? io.env.CHORUS_ROLE || undefined : undefined);
  if (role !== undefined) request.role = role;
  if (flags.team !== undefined) request.team = flags.team;
  if (flags.agent !== undefined) request.agent = flags.agent;
  if (flags.ambient !== undefined) request.ambient = flags.ambient;
  if (flags.ambientFile !== undefined) {
    try {
      request.ambient = await readFile(resolvePath(io, flags.ambientFile), 'utf8');
    } catch (e) {
      throw new UsageError(
        `cannot read --ambient-file ${flags.ambientFile}: ${(e as NodeJS.ErrnoException).code ?? e}`,
      );
    }
  }
  if (Object.keys(overrides).length > 0) request.settings = overrides;
  return request;
}

export function resolvePath(io: CliIO, path: string): string {
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
