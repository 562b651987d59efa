import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Snapshot } from '../../core/build/snapshot-types.js';
import { pathSelector } from '../../core/pack/select.js';
import { error } from '../../core/text/diagnostics.js';
import { readBoundedFile } from '../../source/bounded-read.js';
import { ioReason, notWritable, writeFileAtomic } from '../atomic-write.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import {
  addRequestOptions,
  composeFromFlags,
  printDiagnostics,
  type RequestFlags,
  resolvePath,
} from '../pack-options.js';
import { packRelativePath } from '../pack-target.js';
import { summary } from './list.js';

/** Export targets and the file name each agent runtime reads. */
export const EXPORT_TARGETS = {
  claude: 'CLAUDE.md',
  agents: 'AGENTS.md',
  gemini: 'GEMINI.md',
  file: undefined,
} as const;

interface ExportFlags extends RequestFlags {
  target?: string;
  out?: string;
  json?: boolean;
  check?: boolean;
}

/** `strata export`: the composed prompt as a file a CLI agent runtime reads. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addRequestOptions(program.command('export'))
    .description(summary('export'))
    .option('--target <target>', 'claude | agents | gemini | file')
    .option(
      '--out <path>',
      'the file to write; for claude/agents/gemini a folder gets CLAUDE.md / AGENTS.md / GEMINI.md',
    )
    .option('--check', 'write nothing; exit 1 when the file differs from the composed prompt')
    .option('--json', 'print { path, target, bytes, sha256, version, written }')
    .addHelpText(
      'after',
      '\nThe file holds exactly the composed prompt bytes (as strata compose prints them). It is written to a temporary\nfile and renamed into place, so readers never see half of it.\nExit status: 0 written / up to date, 1 a pack, request or write error (with --check: the file differs), 2 a usage error.',
    )
    .action(async (flags: ExportFlags) => {
      exit(await exportCommand(flags, io));
    });
}

// --- internal ---

async function exportCommand(flags: ExportFlags, io: CliIO): Promise<number> {
  const target = flags.target;
  if (target === undefined || !Object.hasOwn(EXPORT_TARGETS, target)) {
    throw new UsageError(`--target must be one of ${Object.keys(EXPORT_TARGETS).join(', ')}`);
  }
  if (flags.out === undefined) throw new UsageError('give --out PATH');
  const composed = await composeFromFlags(flags, io);
  if (!composed) return EXIT_FAIL;
  const { text, sha256, bytes, version } = composed.result;

  // The path: a folder gets the target's file name.
  const fileName = EXPORT_TARGETS[target as keyof typeof EXPORT_TARGETS];
  let shown = flags.out;
  let path = resolvePath(io, flags.out);
  const isDir =
    flags.out.endsWith('/') ||
    (await fs
      .stat(path)
      .then((s) => s.isDirectory())
      .catch(() => false));
  if (isDir) {
    if (fileName === undefined) throw new UsageError('--target file needs --out FILE, not a folder');
    path = join(path, fileName);
    shown = join(flags.out, fileName);
  }

  // A file of the pack is never replaced by a prompt composed from the pack, nor a file a
  // chain of the pack would read made: its next compose would read the prompt back (an
  // AGENTS.md chain holding its root twice).
  const packFile = flags.check ? undefined : await packRelativePath(path, flags, io);
  if (packFile !== undefined && readBack(composed.snapshot, packFile)) {
    printDiagnostics(
      [
        error(
          'WRITE_ERROR',
          `${composed.snapshot.files.has(packFile) ? 'is' : 'would be'} the pack's file ${packFile}: strata export never writes a file of the pack it composes from (the next compose would read the prompt back); give --out a path outside the pack`,
          { file: shown },
        ),
      ],
      io,
    );
    return EXIT_FAIL;
  }

  // Only a regular file is read or replaced: /dev/zero is never read, /dev/null never
  // replaced by a file. A missing one (or its folder) is drift for --check.
  const refused = await notWritable(path);
  if (refused && !(flags.check && refused.code === 'ENOENT')) {
    printDiagnostics([error('WRITE_ERROR', `cannot write: ${refused.message}`, { file: shown })], io);
    return EXIT_FAIL;
  }
  const before = refused ? MISSING : await currentText(path, shown, bytes);
  const same = before === text;
  if (flags.check) {
    report(
      io,
      flags,
      { path: shown, target, bytes, sha256, version, written: false, upToDate: same },
      before === MISSING,
    );
    if (!same)
      io.stderr(
        `drift: ${shown} ${before === MISSING ? 'is missing' : 'differs from the composed prompt'}\n`,
      );
    return same ? EXIT_OK : EXIT_FAIL;
  }
  if (!same) {
    try {
      await writeFileAtomic(path, text);
    } catch (e) {
      printDiagnostics([error('WRITE_ERROR', `cannot write: ${ioReason(e)}`, { file: shown })], io);
      return EXIT_FAIL;
    }
  }
  report(io, flags, { path: shown, target, bytes, sha256, version, written: !same, upToDate: true });
  return EXIT_OK;
}

/** Whether a compose of the pack would read the file `path` (pack-relative): a file of the pack, or one a chain layer takes where the pack selects it. */
function readBack(snapshot: Snapshot, path: string): boolean {
  if (snapshot.files.has(path)) return true;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const chained = snapshot.manifest.layers.some((layer) =>
    [layer.source, ...(layer.variants ?? []).map((v) => v.source)].some(
      (source) => source?.kind === 'chain' && source.files.includes(name),
    ),
  );
  return chained && pathSelector(snapshot.manifest)(path);
}

/** A target that is not there (or cannot be read). */
const MISSING = Symbol('missing');
/** A target larger than the composed prompt: it differs, whatever it holds. */
const LARGER = Symbol('larger');

/**
 * The text of the file a write would replace, read no further than one byte past the
 * composed prompt's size.
 */
async function currentText(
  path: string,
  shown: string,
  bytes: number,
): Promise<string | typeof MISSING | typeof LARGER> {
  const read = await readBoundedFile(path, shown, bytes + 1, { flag: '--out' });
  if ('problem' in read) return read.problem.code === 'FILE_TOO_LARGE' ? LARGER : MISSING;
  if (read.bytes.length > bytes) return LARGER;
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(read.bytes);
}

function report(
  io: CliIO,
  flags: ExportFlags,
  r: {
    path: string;
    target: string;
    bytes: number;
    sha256: string;
    version: string;
    written: boolean;
    upToDate: boolean;
  },
  /** `--check` found no file to compare with. */
  missing = false,
): void {
  if (flags.json) io.stdout(`${JSON.stringify(r, null, 2)}\n`);
  else {
    const drift = missing ? 'missing' : 'differs';
    const what = flags.check ? (r.upToDate ? 'up to date' : drift) : r.written ? 'wrote' : 'unchanged';
    io.stdout(`${what} ${r.path} (${r.bytes} bytes, sha256 ${r.sha256.slice(0, 12)}, pack ${r.version})\n`);
  }
}
