import { existsSync, readFileSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { type Diagnostic, error } from '../../core/text/diagnostics.js';
import { isPresetName, PRESET_NAMES } from '../../layouts/registry.js';
import { openPack } from '../../source/open.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import { printDiagnostics } from '../pack-options.js';
import { summary } from './list.js';

/**
 * `strata init [dir] [--layout L]`: writes a small, commented starter pack of a layout
 * (`src/layouts/<layout>/starter/`) into a folder, refusing to replace any file, checks
 * that it loads, and prints the three commands to run next.
 */
export function register(program: Command, io: CliIO, exit: Exit): void {
  program
    .command('init')
    .description(summary('init'))
    .argument('[dir]', 'the folder to write into (made if missing)', '.')
    .option('--layout <layout>', `${PRESET_NAMES.join(' | ')}`, 'roboco')
    .addHelpText(
      'after',
      '\nNo file is replaced: when one the starter would write exists, nothing is written.' +
        '\nExit status: 0 written, 1 a file exists or cannot be written, 2 a usage error.',
    )
    .action(async (dir: string, flags: { layout: string }) => {
      if (!isPresetName(flags.layout))
        throw new UsageError(
          `--layout must be one of ${PRESET_NAMES.join(', ')}, not ${JSON.stringify(flags.layout)}`,
        );
      const outcome = await initPack(resolve(io.cwd, dir), flags.layout);
      if ('problems' in outcome) {
        const shown = (file?: string) => (file && isAbsolute(file) ? relative(io.cwd, file) || '.' : file);
        printDiagnostics(
          outcome.problems.map((d) => ({ ...d, file: shown(d.file) })),
          io,
        );
        return exit(EXIT_FAIL);
      }
      io.stdout(nextSteps(dir, flags.layout, outcome.files.length, outcome.members, npxName(io.cwd)));
      exit(EXIT_OK);
    });
}

/** What {@link initPack} did: the files written (pack-relative) and the pack's members. */
export type InitOutcome = { files: string[]; members: string[] } | { problems: Diagnostic[] };

/**
 * Writes the starter pack of `layout` into `target` (made if missing). Writes nothing and
 * answers `WRITE_ERROR` for each file that is already there (or when `target` is no
 * folder); each file is created exclusively, so a file made meanwhile is not replaced.
 * The pack written is loaded back: its members are the fleet's agents, else its roles.
 *
 * @example
 * await initPack('/tmp/my-pack', 'chorus'); // { files: ['defaults.md', …], members: ['ada', 'grace'] }
 */
export async function initPack(target: string, layout: string): Promise<InitOutcome> {
  const source = starterDir(layout);
  const files = await listFiles(source);
  const problems: Diagnostic[] = [];
  const kind = await lstat(target).catch(() => undefined);
  if (kind && !kind.isDirectory())
    return {
      problems: [
        error('WRITE_ERROR', 'is not a folder: strata init writes a pack into a folder', { file: target }),
      ],
    };
  for (const file of files) {
    if (await lstat(join(target, file)).catch(() => undefined))
      problems.push(
        error('WRITE_ERROR', 'already exists: strata init never replaces a file; choose an empty folder', {
          file: join(target, file),
        }),
      );
  }
  if (problems.length > 0) return { problems };
  try {
    for (const file of files) {
      await mkdir(dirname(join(target, file)), { recursive: true });
      await writeFile(join(target, file), await readFile(join(source, file)), { flag: 'wx' });
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return {
      problems: [
        error('WRITE_ERROR', `cannot write: ${err.code ?? err.message}`, { file: err.path ?? target }),
      ],
    };
  }
  const { snapshot, diagnostics } = await openPack({ kind: 'dir', dir: target });
  if (!snapshot) return { problems: diagnostics };
  const members = snapshot.fleet.length > 0 ? snapshot.fleet.map((a) => a.id) : [...snapshot.roles.keys()];
  return { files, members };
}

// --- internal ---

/** The compose command that shows each layout's starter at work (its first member, its inputs). */
const TRY: Record<string, string> = {
  roboco: '--agent ada',
  chorus: '--agent ada',
  crewai: '--role researcher --var topic=AI',
  'claude-agents': '--role code-reviewer',
  'agents-md': '--var cwd=backend',
};

function nextSteps(dir: string, layout: string, files: number, members: string[], npx: string): string {
  const d = shellWord(dir);
  const who =
    members.length > 0
      ? `, ${members.length} ${members.length === 1 ? 'member' : 'members'} (${members.join(', ')})`
      : '';
  const steps = [
    [`${npx} validate --dir ${d}`, 'check it: exit 0, no warning'],
    [`${npx} compose --dir ${d} ${TRY[layout] ?? ''}`.trimEnd(), "one agent's prompt"],
    [`${npx} serve --dir ${d}`, 'the service; its inspector at http://127.0.0.1:7411/'],
  ];
  const width = Math.max(...steps.map(([command]) => command!.length));
  return [
    `Wrote the ${layout} starter pack to ${dir}: ${files} files${who}. Next:`,
    '',
    ...steps.map(([command, what]) => `  ${command!.padEnd(width)}   # ${what}`),
    '',
  ].join('\n');
}

/** `npx strata` where the package is installed for this folder (or is this folder's project), else `npx strata-prompts`. */
function npxName(cwd: string): string {
  for (let here = cwd; ; here = dirname(here)) {
    if (existsSync(join(here, 'node_modules', 'strata-prompts', 'package.json'))) return 'npx strata';
    const pkg = join(here, 'package.json');
    if (existsSync(pkg) && /"name":\s*"strata-prompts"/.test(readText(pkg))) return 'npx strata';
    if (dirname(here) === here) return 'npx strata-prompts';
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `src/layouts/<layout>/starter/` of the package: found by walking up (tsc does not copy it to dist/). */
function starterDir(layout: string): string {
  let here = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(here, 'src', 'layouts', layout, 'starter');
    if (existsSync(candidate)) return candidate;
    here = dirname(here);
  }
  throw new Error(`the ${layout} starter pack is not in this installation (src/layouts/${layout}/starter)`);
}

/** Every file below `dir`, hidden folders included, as sorted `/`-separated relative paths. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}
