import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import type { LoadResult, Snapshot } from '../core/build/snapshot.js';
import { type ComposeRequest, type ComposeResult, strictOutcome } from '../core/compose/compose.js';
import { pathSettingNames } from '../core/pack/path-settings.js';
import { parseSetPairs } from '../core/pack/settings.js';
import { type Diagnostic, formatDiagnostic, PromptError, warning } from '../core/text/diagnostics.js';
import { tryCompose } from '../engine/default-engine.js';
import { PRESET_NAMES } from '../layouts/registry.js';
import { readBoundedFile } from '../source/bounded-read.js';
import { requestRole, resolvePackEnvironment } from '../source/environment.js';
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_FILES,
  DEFAULT_MAX_PACK_BYTES,
  DEFAULT_MAX_PROMPT_BYTES,
  DEFAULT_READ_TIMEOUT_MS,
  type PackLimits,
} from '../source/limits.js';
import { type OpenOptions, openPack, type PackSource } from '../source/open.js';
import { type CliIO, UsageError } from './io.js';

/** Options every pack-reading command shares (docs/cli.md, "Composing" and "Environment"). */
export interface PackFlags {
  dir?: string;
  preset?: string;
  maxFileBytes?: string;
  maxPackBytes?: string;
  maxFiles?: string;
  readTimeout?: string;
  maxPromptBytes?: string;
  /** `--set KEY=VALUE` pairs: the operator's settings (path settings are read at load). */
  set?: string[];
}

export interface RequestFlags extends PackFlags {
  role?: string;
  team?: string;
  agent?: string;
  ambient?: string;
  ambientFile?: string;
  set?: string[];
  var?: string[];
  /** Fail on any warning of the compose (exit 1). */
  strict?: boolean;
}

export function addPackOptions(cmd: Command): Command {
  return cmd
    .option(
      '--dir <dir>',
      'pack directory or bundle file (default: $STRATA_PROMPTS_DIR, else $CHORUS_PROMPTS_DIR)',
    )
    .option('--preset <name>', `${PRESET_NAMES.join(' | ')} (default: the pack manifest, else its layout)`)
    .option(
      '--max-file-bytes <n>',
      `refuse files larger than this (FILE_TOO_LARGE; default ${DEFAULT_MAX_FILE_BYTES})`,
    )
    .option(
      '--max-pack-bytes <n>',
      `refuse a pack whose files add up to more (PACK_TOO_LARGE; default ${DEFAULT_MAX_PACK_BYTES})`,
    )
    .option(
      '--max-files <n>',
      `refuse a pack with more files and folders (TOO_MANY_FILES; default ${DEFAULT_MAX_FILES})`,
    )
    .option(
      '--read-timeout <ms>',
      `give up a read of the pack after this long (READ_TIMEOUT; default ${DEFAULT_READ_TIMEOUT_MS})`,
    )
    .option(
      '--max-prompt-bytes <n>',
      `refuse to compose a prompt, or fill a value, of more bytes (PROMPT_TOO_LARGE; default ${DEFAULT_MAX_PROMPT_BYTES})`,
    );
}

export function addRequestOptions(cmd: Command): Command {
  return addPackOptions(cmd)
    .option('--role <role>', 'role to compose for (default without --agent: $STRATA_ROLE, else $CHORUS_ROLE)')
    .option('--team <team>', 'team')
    .option('--agent <agent>', 'agent id (a fleet member brings its role and team)')
    .option('--ambient <text>', 'ambient text for the ambient layer')
    .option('--ambient-file <file>', 'read the ambient text from a file')
    .option(
      '--set <key=value>',
      'override a setting (repeatable; a path setting may name a file outside the pack)',
      collect,
      [],
    )
    .option('--var <key=value>', 'a request input the pack declares (repeatable)', collect, [])
    .option(
      '--strict',
      'fail (exit 1) when the compose has warnings: unknown names, missing layers, the fallback',
    );
}

/**
 * Finds and opens the pack under the environment contract (src/source/environment.ts):
 * --dir, else $STRATA_PROMPTS_DIR, else $CHORUS_PROMPTS_DIR; with the chorus preset and no
 * directory at all, the pack is empty and composes to the fallback.
 */
export async function openPackFromFlags(
  flags: PackFlags,
  io: CliIO,
  build?: OpenOptions['build'],
): Promise<LoadResult> {
  const { source, preset, limits } = packLocation(flags, io);
  const options: OpenOptions = { ...limits, preset, env: io.env, build };
  const settings = operatorSettings(flags);
  if (settings) options.settings = settings;
  return openPack(source, options);
}

/**
 * {@link openPackFromFlags} for a request of `role`: a folder detected as a layout that
 * reads no roles (a root AGENTS.md) that is also another layout (`.claude/agents/`) is
 * opened as that layout when it has the role, with a warning saying so; otherwise as
 * detected (where the role is an error naming the `--preset` to use).
 */
export async function openPackForRole(
  flags: PackFlags,
  io: CliIO,
  role: string | undefined,
): Promise<LoadResult> {
  const result = await openPackFromFlags(flags, io);
  const detected = result.snapshot;
  if (detected === undefined || role === undefined || flags.preset !== undefined || detected.roles.has(role))
    return result;
  // The first other layout, in detection order, that has the role.
  for (const also of detected.alsoLayouts ?? []) {
    const other = await openPackFromFlags({ ...flags, preset: also }, io);
    if (!other.snapshot?.roles.has(role)) continue;
    const note = warning(
      'UNKNOWN_ROLE',
      `role ${JSON.stringify(role)} is no role of the ${detected.preset} layout detected first; the folder is also a ${also} layout, which has it: composed as --preset ${also} does`,
    );
    return { ...other, diagnostics: [note, ...other.diagnostics] };
  }
  return result;
}

/** `--set` pairs as the operator's settings (usage errors throw). */
export function operatorSettings(flags: PackFlags): Record<string, string> | undefined {
  const { overrides, bad } = parseSetPairs(flags.set ?? []);
  if (bad.length > 0) throw new UsageError(`--set needs KEY=VALUE, got ${JSON.stringify(bad[0])}`);
  return Object.keys(overrides).length > 0 ? overrides : undefined;
}

/** Where a pack is, as {@link openPackFromFlags} finds it; `dir` is absolute, or undefined for an empty chorus pack. */
export interface PackLocation {
  source: PackSource;
  dir?: string;
  /** The directory as the user gave it (for display, e.g. GitHub annotations). */
  given?: string;
  preset?: string;
  /** --max-file-bytes, --max-pack-bytes, --max-files, --read-timeout (unset: the defaults). */
  limits: PackLimits;
}

/** A commander option parser that gathers a repeatable option's values into a list. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Resolves --dir / $STRATA_PROMPTS_DIR / $CHORUS_PROMPTS_DIR, --preset and the limit flags; usage errors throw. */
export function packLocation(flags: PackFlags, io: CliIO): PackLocation {
  const found = resolvePackEnvironment(
    { dir: flags.dir, preset: flags.preset },
    { env: io.env, cwd: io.cwd, withoutPack: 'refuse' },
  );
  if (!found.ok)
    throw new UsageError(found.problem === 'preset' ? `--preset: ${found.refusal}` : found.refusal);
  const limits: PackLimits = {};
  const maxFileBytes = positive(flags.maxFileBytes, '--max-file-bytes');
  if (maxFileBytes !== undefined) limits.maxFileBytes = maxFileBytes;
  const maxPackBytes = positive(flags.maxPackBytes, '--max-pack-bytes');
  if (maxPackBytes !== undefined) limits.maxPackBytes = maxPackBytes;
  const maxFiles = positive(flags.maxFiles, '--max-files');
  if (maxFiles !== undefined) limits.maxFiles = maxFiles;
  const readTimeoutMs = positive(flags.readTimeout, '--read-timeout');
  if (readTimeoutMs !== undefined) limits.readTimeoutMs = readTimeoutMs;
  const maxPromptBytes = positive(flags.maxPromptBytes, '--max-prompt-bytes');
  if (maxPromptBytes !== undefined) limits.maxPromptBytes = maxPromptBytes;
  const { source, dir, given, preset } = found.pack;
  const location: PackLocation = { source, limits };
  if (dir !== undefined) location.dir = dir;
  if (given !== undefined) location.given = given;
  if (preset !== undefined) location.preset = preset;
  return location;
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
  const snapshot = reportLoad(await openPackForRole(flags, io, requestRole(flags, io.env)), io);
  if (!snapshot) return undefined;
  const request = await requestFromFlags(flags, io);
  if (request.settings) {
    const settings = requestOverrides(request.settings as Record<string, string>, snapshot);
    if (Object.keys(settings).length > 0) request.settings = settings;
    else delete request.settings;
  }
  let outcome = tryCompose(snapshot, request);
  if (flags.strict) outcome = strictOutcome(outcome);
  // A prompt carries the load warnings of its own files: they were printed with the load.
  const printed = new Set(snapshot.warnings);
  const diagnostics = outcome.ok
    ? outcome.result.diagnostics
    : await withLayoutHint(outcome.diagnostics, flags, io, snapshot, request);
  printDiagnostics(
    diagnostics.filter((d) => !printed.has(d)),
    io,
  );
  return outcome.ok ? { snapshot, request, result: outcome.result } : undefined;
}

/**
 * A compose that gave no role and no agent but inputs (`--var cwd=…`), failing NO_ROLE in
 * the layout detected first: when the folder is also a layout that declares every input
 * given, the NO_ROLE error says which `--preset` composes it (the folder is read as each
 * other layout only on this error's path).
 */
async function withLayoutHint(
  diagnostics: Diagnostic[],
  flags: RequestFlags,
  io: CliIO,
  snapshot: Snapshot,
  request: ComposeRequest,
): Promise<Diagnostic[]> {
  const at = diagnostics.findIndex((d) => d.code === 'NO_ROLE' && d.severity === 'error');
  const names = Object.keys(request.vars ?? {});
  if (at < 0 || flags.preset !== undefined || request.role !== undefined || request.agent !== undefined)
    return diagnostics;
  if (names.length === 0) return diagnostics;
  for (const preset of PRESET_NAMES.slice(0, -1)) {
    if (preset === snapshot.preset) continue;
    const other = (await openPackFromFlags({ ...flags, preset }, io)).snapshot;
    const declared = new Set(other?.manifest.inputs.map((i) => i.name));
    if (!other || other.files.size === 0 || !names.every((n) => declared.has(n))) continue;
    const given = names.map((n) => `--var ${n}`).join(', ');
    const d = diagnostics[at]!;
    const hint = `; the folder is also a ${preset} layout, which takes ${given}: compose with --preset ${preset}`;
    return diagnostics.map((x, i) => (i === at ? { ...d, message: `${d.message}${hint}` } : x));
  }
  return diagnostics;
}

/** Builds the compose request from flags (without --role and --agent: the role from $STRATA_ROLE / $CHORUS_ROLE). */
export async function requestFromFlags(flags: RequestFlags, io: CliIO): Promise<ComposeRequest> {
  if (flags.ambient !== undefined && flags.ambientFile !== undefined) {
    throw new UsageError('give --ambient or --ambient-file, not both');
  }
  const { overrides, bad } = parseSetPairs(flags.set ?? []);
  if (bad.length > 0) throw new UsageError(`--set needs KEY=VALUE, got ${JSON.stringify(bad[0])}`);
  const request: ComposeRequest = {};
  const role = requestRole(flags, io.env);
  if (role !== undefined) request.role = role;
  if (flags.team !== undefined) request.team = flags.team;
  if (flags.agent !== undefined) request.agent = flags.agent;
  if (flags.ambient !== undefined) request.ambient = flags.ambient;
  if (flags.ambientFile !== undefined) {
    // As large as a pack file may be, at most (a pipe or a device is read only that far).
    const max = positive(flags.maxFileBytes, '--max-file-bytes') ?? DEFAULT_MAX_FILE_BYTES;
    const read = await readBoundedFile(resolvePath(io, flags.ambientFile), flags.ambientFile, max, {
      flag: '--max-file-bytes',
      what: '--ambient-file',
    });
    if ('problem' in read) throw new PromptError([read.problem]);
    request.ambient = new TextDecoder('utf-8', { ignoreBOM: true }).decode(read.bytes);
  }
  if (Object.keys(overrides).length > 0) request.settings = overrides;
  const vars = parseSetPairs(flags.var ?? []);
  if (vars.bad.length > 0) throw new UsageError(`--var needs KEY=VALUE, got ${JSON.stringify(vars.bad[0])}`);
  if (Object.keys(vars.overrides).length > 0) request.vars = vars.overrides;
  return request;
}

/**
 * `--set` overrides without the path settings: those were the operator's, applied when
 * the pack was loaded (a compose request may not set them).
 */
export function requestOverrides(
  overrides: Readonly<Record<string, string>>,
  snapshot: Snapshot,
): Record<string, string> {
  const paths = pathSettingNames(snapshot.manifest);
  return Object.fromEntries(Object.entries(overrides).filter(([key]) => !paths.has(key)));
}

export function resolvePath(io: CliIO, path: string): string {
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

/** A positive integer flag, or undefined when not given; anything else is a usage error. */
/** A flag's positive integer value (undefined when not given); anything else is a usage error. */
export function positive(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive integer`);
  return n;
}
