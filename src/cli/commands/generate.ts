import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { type Diagnostic, error, warning } from '../../core/text/diagnostics.js';
import { byteOrder } from '../../core/text/text.js';
import { readBoundedFile } from '../../source/bounded-read.js';
import { DEFAULT_MAX_FILE_BYTES } from '../../source/limits.js';
import { promptDiff } from '../../tooling/diff/diff.js';
import { isGeneratedFragment, parseVerbRegistry, renderVerbFragments } from '../../tooling/verbs/verbs.js';
import { ioReason, notWritable, writeFileAtomic } from '../atomic-write.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import { positive, printDiagnostics, resolvePath } from '../pack-options.js';
import { summary } from './list.js';

interface GenerateFlags {
  dir?: string;
  registry?: string;
  out?: string;
  check?: boolean;
  prune?: boolean;
  json?: boolean;
  maxFileBytes?: string;
}

/** One generated file compared with what is on disk. */
interface FileStatus {
  file: string;
  status: 'same' | 'changed' | 'missing' | 'stale';
}

/** `strata generate`: render the verb fragments from a verbs registry. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  program
    .command('generate')
    .description(summary('generate'))
    .option('--registry <file>', 'the verbs registry (default with --dir: DIR/verbs.yaml)')
    .option('--out <dir>', 'folder for the fragments (default with --dir: DIR/_generated)')
    .option('--dir <dir>', 'a pack: sets the defaults of --registry and --out')
    .option('--check', 'write nothing; exit 1 listing every file that differs, is missing or is stale')
    .option(
      '--prune',
      'delete stale fragments (fragments generate wrote in --out that the registry no longer makes)',
    )
    .option('--json', 'print the status of every file as JSON')
    .option(
      '--max-file-bytes <n>',
      `refuse a registry larger than this (FILE_TOO_LARGE; default ${DEFAULT_MAX_FILE_BYTES})`,
    )
    .addHelpText(
      'after',
      '\nExit status: 0 written / up to date, 1 a bad or unreadable registry, a write error, or (with --check) drift, 2 a usage error.',
    )
    .action(async (flags: GenerateFlags) => {
      exit(await generateCommand(flags, io));
    });
}

// --- internal ---

async function generateCommand(flags: GenerateFlags, io: CliIO): Promise<number> {
  const registryArg = flags.registry ?? (flags.dir !== undefined ? join(flags.dir, 'verbs.yaml') : undefined);
  const outArg = flags.out ?? (flags.dir !== undefined ? join(flags.dir, '_generated') : undefined);
  if (registryArg === undefined || outArg === undefined)
    throw new UsageError('give --registry FILE and --out DIR (or --dir PACK)');
  const outDir = resolvePath(io, outArg);

  // 1. Read and render.
  const maxFileBytes = positive(flags.maxFileBytes, '--max-file-bytes') ?? DEFAULT_MAX_FILE_BYTES;
  const read = await readBoundedFile(resolvePath(io, registryArg), registryArg, maxFileBytes, {
    flag: '--max-file-bytes',
    what: 'the verbs registry',
  });
  if ('problem' in read) {
    printDiagnostics([read.problem], io);
    return EXIT_FAIL;
  }
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(read.bytes);
  const { verbs, diagnostics } = parseVerbRegistry(text, registryArg);
  printDiagnostics(diagnostics, io);
  if (diagnostics.some((d) => d.severity === 'error')) return EXIT_FAIL;
  const rendered = renderVerbFragments(verbs);

  // 2. Compare with the folder.
  const existing = await listFolder(outDir);
  if (existing === 'error') {
    printDiagnostics([error('READ_ERROR', 'the output folder cannot be listed', { file: outArg })], io);
    return EXIT_FAIL;
  }
  const statuses: FileStatus[] = [];
  const current = new Map<string, string | undefined>();
  for (const [name, body] of rendered) {
    const path = join(outDir, name);
    const now = existing.has(name) ? await fragmentText(path, maxFileBytes) : undefined;
    current.set(name, now);
    statuses.push({ file: name, status: now === undefined ? 'missing' : now === body ? 'same' : 'changed' });
  }
  for (const name of [...existing].sort(byteOrder)) {
    if (rendered.has(name) || !name.endsWith('.md')) continue;
    const text = await fragmentText(join(outDir, name), maxFileBytes);
    if (text !== undefined && isGeneratedFragment(name, text)) statuses.push({ file: name, status: 'stale' });
  }
  const drift = statuses.filter((s) => s.status !== 'same');

  // 3. Check, or write what differs.
  if (flags.check) {
    if (flags.json) io.stdout(`${JSON.stringify({ ok: drift.length === 0, files: statuses }, null, 2)}\n`);
    else if (drift.length === 0)
      io.stdout(`ok: ${rendered.size} fragments in ${outArg} match ${registryArg}\n`);
    else {
      for (const s of drift) {
        io.stdout(`${s.status} ${join(outArg, s.file)}\n`);
        if (s.status === 'changed')
          io.stdout(promptDiff(s.file, current.get(s.file) ?? '', rendered.get(s.file)!).diff);
      }
      io.stderr(
        `drift: ${drift.length} file${drift.length === 1 ? '' : 's'}; run strata generate to update\n`,
      );
    }
    return drift.length === 0 ? EXIT_OK : EXIT_FAIL;
  }
  const problems: Diagnostic[] = [];
  try {
    await fs.mkdir(outDir, { recursive: true });
  } catch (e) {
    printDiagnostics(
      [error('WRITE_ERROR', `cannot create the output folder: ${ioReason(e)}`, { file: outArg })],
      io,
    );
    return EXIT_FAIL;
  }
  for (const s of drift) {
    const path = join(outDir, s.file);
    try {
      if (s.status === 'stale') {
        if (flags.prune) await fs.rm(path);
        else
          problems.push(
            warning(
              'BAD_REGISTRY',
              'stale fragment: the registry no longer makes it (delete it, or run with --prune)',
              { file: join(outArg, s.file) },
            ),
          );
      } else await writeFileAtomic(path, rendered.get(s.file)!);
    } catch (e) {
      problems.push(error('WRITE_ERROR', `cannot write: ${ioReason(e)}`, { file: join(outArg, s.file) }));
    }
  }
  printDiagnostics(problems, io);
  if (flags.json) io.stdout(`${JSON.stringify({ files: statuses }, null, 2)}\n`);
  else {
    for (const s of drift)
      if (s.status !== 'stale' || flags.prune)
        io.stdout(`${s.status === 'stale' ? 'deleted' : 'wrote'} ${join(outArg, s.file)}\n`);
    io.stdout(
      `${rendered.size} fragments for ${verbs.length} verb${verbs.length === 1 ? '' : 's'}; ${drift.filter((s) => s.status !== 'stale').length} written\n`,
    );
  }
  return problems.some((d) => d.severity === 'error') ? EXIT_FAIL : EXIT_OK;
}

/** Names of the files in a folder; an empty set when it does not exist yet. */
async function listFolder(dir: string): Promise<Set<string> | 'error'> {
  try {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    return new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? new Set() : 'error';
  }
}

/**
 * A fragment's text as it is on disk (at most `maxBytes` bytes of it: a larger one is
 * given as '', which differs from any fragment); undefined when it is no regular file or
 * cannot be read (a FIFO named like a fragment is never opened).
 */
async function fragmentText(path: string, maxBytes: number): Promise<string | undefined> {
  if (await notWritable(path)) return undefined;
  const read = await readBoundedFile(path, path, maxBytes, { flag: '--max-file-bytes' });
  if ('problem' in read) return read.problem.code === 'FILE_TOO_LARGE' ? '' : undefined;
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(read.bytes);
}
