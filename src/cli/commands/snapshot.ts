import type { Command } from 'commander';
import { parseSetPairs } from '../../core/pack/settings.js';
import { error } from '../../core/text/diagnostics.js';
import { readBoundedFile } from '../../source/bounded-read.js';
import {
  buildLock,
  checkLock,
  DEFAULT_MAX_LOCK_BYTES,
  formatLock,
  parseLock,
} from '../../tooling/lock/lock.js';
import { ioReason, writeFileAtomic } from '../atomic-write.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import {
  addPackOptions,
  collect,
  openPackFromFlags,
  type PackFlags,
  positive,
  printDiagnostics,
  reportLoad,
  requestOverrides,
  resolvePath,
} from '../pack-options.js';
import { formatDiffReport } from './diff.js';
import { summary } from './list.js';

interface SnapshotFlags extends PackFlags {
  out?: string;
  check?: string;
  text: boolean;
  set: string[];
  var?: string[];
  json?: boolean;
  maxLockBytes?: string;
}

/** `strata snapshot`: a lock file of every member's prompt, and the CI check against it. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addPackOptions(program.command('snapshot'))
    .description(summary('snapshot'))
    .option('--out <file>', 'write the lock file (atomically)')
    .option('--check <file>', 'compare the pack with a lock file; list and diff every member that drifted')
    .option('--no-text', 'store only hashes and sizes, not prompt texts (a check then cannot show diffs)')
    .option('--set <key=value>', 'compose with this setting (repeatable)', collect, [])
    .option('--var <key=value>', 'compose every member with this request input (repeatable)', collect, [])
    .option('--json', 'print the lock (with --out) or the drift report (with --check) as JSON')
    .option(
      '--max-lock-bytes <n>',
      `refuse a lock file larger than this, to read or to write (FILE_TOO_LARGE; default ${DEFAULT_MAX_LOCK_BYTES})`,
    )
    .addHelpText(
      'after',
      '\nExit status: 0 written / no drift, 1 a pack error, an unreadable or invalid lock file, or drift, 2 a usage error.',
    )
    .action(async (flags: SnapshotFlags) => {
      exit(await snapshotCommand(flags, io));
    });
}

// --- internal ---

async function snapshotCommand(flags: SnapshotFlags, io: CliIO): Promise<number> {
  if ((flags.out === undefined) === (flags.check === undefined))
    throw new UsageError('give one of --out FILE or --check FILE');
  const maxLockBytes = positive(flags.maxLockBytes, '--max-lock-bytes') ?? DEFAULT_MAX_LOCK_BYTES;
  const { overrides, bad } = parseSetPairs(flags.set);
  if (bad.length > 0) throw new UsageError(`--set needs KEY=VALUE, got ${JSON.stringify(bad[0])}`);
  const snapshot = reportLoad(await openPackFromFlags(flags, io), io);
  if (!snapshot) return EXIT_FAIL;
  const vars = parseSetPairs(flags.var ?? []);
  if (vars.bad.length > 0) throw new UsageError(`--var needs KEY=VALUE, got ${JSON.stringify(vars.bad[0])}`);
  const build = (inputs: Readonly<Record<string, unknown>>) => {
    const built = buildLock(snapshot, {
      settings: requestOverrides(overrides, snapshot),
      vars: inputs,
      text: flags.text,
    });
    printDiagnostics(built.diagnostics, io);
    return built.lock;
  };

  if (flags.out !== undefined) {
    const current = build(vars.overrides);
    if (!current) return EXIT_FAIL;
    const path = resolvePath(io, flags.out);
    // What --out writes, --check with the same limit reads back.
    const text = formatLock(current);
    const size = Buffer.byteLength(text);
    if (size > maxLockBytes) {
      printDiagnostics(
        [
          error(
            'FILE_TOO_LARGE',
            `the lock would be ${size} bytes; the limit is ${maxLockBytes} (--max-lock-bytes raises it; --no-text leaves the prompt texts out)`,
            { file: flags.out },
          ),
        ],
        io,
      );
      return EXIT_FAIL;
    }
    try {
      await writeFileAtomic(path, text);
    } catch (e) {
      printDiagnostics(
        [error('WRITE_ERROR', `cannot write lock file: ${ioReason(e)}`, { file: flags.out })],
        io,
      );
      return EXIT_FAIL;
    }
    if (flags.json) io.stdout(formatLock(current));
    else io.stdout(`wrote ${flags.out}: ${members(current.members.length)}\n`);
    return EXIT_OK;
  }

  const file = flags.check!;
  const read = await readBoundedFile(resolvePath(io, file), file, maxLockBytes, {
    flag: '--max-lock-bytes',
    what: 'lock file',
  });
  if ('problem' in read) {
    printDiagnostics([read.problem], io);
    return EXIT_FAIL;
  }
  const parsed = parseLock(new TextDecoder('utf-8', { ignoreBOM: true }).decode(read.bytes), file);
  printDiagnostics(parsed.diagnostics, io);
  if (!parsed.lock) return EXIT_FAIL;
  // Without --var, the check composes with the inputs the lock was written with, and says so.
  const lockVars = parsed.lock.vars ?? {};
  const useLockVars = (flags.var ?? []).length === 0 && Object.keys(lockVars).length > 0;
  if (useLockVars) io.stderr(`note: composing with the lock's inputs: ${pairs(lockVars).join(', ')}\n`);
  const current = build(useLockVars ? lockVars : vars.overrides);
  if (!current) return EXIT_FAIL;
  const settingsNote = differing(current.settings, parsed.lock.settings);
  if (settingsNote.length > 0) io.stderr(`note: settings differ from the lock: ${settingsNote.join(', ')}\n`);
  const varsNote = differing(current.vars ?? {}, lockVars);
  if (varsNote.length > 0) io.stderr(`note: inputs differ from the lock: ${varsNote.join(', ')}\n`);
  const drifted = checkLock(parsed.lock, current);
  if (flags.json) {
    const unchanged = current.members.length - drifted.filter((d) => d.status !== 'removed').length;
    io.stdout(`${JSON.stringify({ ok: drifted.length === 0, drifted, unchanged }, null, 2)}\n`);
  } else if (drifted.length === 0) {
    const n = current.members.length;
    io.stdout(`ok: ${n === 1 ? 'the 1 member matches' : `all ${n} members match`} ${file}\n`);
  } else {
    const unchanged = current.members
      .filter((m) => !drifted.some((d) => d.key === m.key))
      .map(({ text: _, ...m }) => m);
    io.stdout(formatDiffReport({ changed: drifted, unchanged, diagnostics: [] }));
    io.stderr(
      `drift: ${drifted.map((d) => `${d.key} (${d.status})`).join(', ')}; update with strata snapshot --out ${file}\n`,
    );
  }
  return drifted.length === 0 ? EXIT_OK : EXIT_FAIL;
}

type Scalars = Readonly<Record<string, string | number | boolean>>;

function pairs(values: Scalars): string[] {
  return Object.entries(values).map(([k, v]) => `${k}=${String(v)}`);
}

/** `key=now (lock: then)` for every key set on either side whose values differ. */
function differing(now: Scalars, lock: Scalars): string[] {
  const keys = [...new Set([...Object.keys(now), ...Object.keys(lock)])].sort();
  // Own keys only: a lock edited by hand may name `constructor` or `toString`, which every
  // object inherits.
  const at = (values: Scalars, k: string) => (Object.hasOwn(values, k) ? values[k] : undefined);
  return keys
    .filter((k) => at(now, k) !== at(lock, k))
    .map(
      (k) =>
        `${k}=${at(now, k) === undefined ? 'unset' : String(at(now, k))} (lock: ${at(lock, k) === undefined ? 'unset' : String(at(lock, k))})`,
    );
}

function members(n: number): string {
  return `${n} ${n === 1 ? 'member' : 'members'}`;
}
