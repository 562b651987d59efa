import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { folderMembers, packMembers } from '../../core/compose/members.js';
import { parseSetPairs } from '../../core/pack/settings.js';
import { type Diagnostic, formatDiagnostic } from '../../core/text/diagnostics.js';
import { openPack } from '../../source/open.js';
import { lintPack } from '../../tooling/lint/lint.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import { addPackOptions, type PackFlags, packLocation } from '../pack-options.js';
import { summary } from './list.js';

const FORMATS = ['text', 'json', 'github'] as const;

/** `strata validate`: lint the whole pack. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addPackOptions(program.command('validate'))
    .description(summary('validate'))
    .option('--format <format>', 'text | json | github (workflow annotations)', 'text')
    .option('--json', 'the same as --format json, as every command that gives data takes it')
    .option('--strict', 'exit 1 on warnings too')
    .option('--var <key=value>', 'compose every member with this request input (repeatable)', collectVars, [])
    .addHelpText(
      'after',
      '\nEach finding: severity CODE: path:line:col: message (as every command prints diagnostics); an info line is a note, no problem (INPUTS_NEEDED: the inputs a compose needs, given stand-ins here when --var leaves them out).\nExit status: 0 no error (warnings allowed), 1 an error (or, with --strict, a warning), 2 a usage error.',
    )
    .action(async (flags: PackFlags & { format: string; json?: boolean; strict?: boolean }) => {
      exit(await validateCommand(flags, io));
    });
}

/** One finding as a GitHub workflow annotation; `file` is the path to show (relative to the workspace). */
export function formatAnnotation(d: Diagnostic, file?: string): string {
  const props = [
    file !== undefined && `file=${escapeProperty(file)}`,
    d.line !== undefined && `line=${d.line}`,
    d.col !== undefined && `col=${d.col}`,
    `title=${escapeProperty(d.code)}`,
  ].filter(Boolean);
  return `::${d.severity === 'info' ? 'notice' : d.severity} ${props.join(',')}::${escapeData(d.message)}`;
}

// --- internal ---

function collectVars(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function validateCommand(
  flags: PackFlags & { format: string; json?: boolean; strict?: boolean; var?: string[] },
  io: CliIO,
): Promise<number> {
  if (flags.json) {
    if (flags.format !== 'text' && flags.format !== 'json')
      throw new UsageError(`--json and --format ${flags.format} ask for two formats; give one`);
    flags = { ...flags, format: 'json' };
  }
  const vars = parseSetPairs(flags.var ?? []);
  if (vars.bad.length > 0) throw new UsageError(`--var needs KEY=VALUE, got ${JSON.stringify(vars.bad[0])}`);
  if (!(FORMATS as readonly string[]).includes(flags.format)) {
    throw new UsageError(
      `--format must be one of ${FORMATS.join(', ')}, not ${JSON.stringify(flags.format)}`,
    );
  }
  const loc = packLocation(flags, io);
  const { snapshot, diagnostics } = await openPack(loc.source, {
    preset: loc.preset,
    env: io.env,
    ...loc.limits,
    build: (input) => lintPack(input, undefined, { vars: vars.overrides }),
  });
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  const notes = diagnostics.length - errors - warnings;
  // With --strict a warning fails the run: `ok` says what the exit status says.
  const failed = errors > 0 || (flags.strict === true && warnings > 0);
  if (flags.format === 'json') {
    const out = {
      ok: !failed,
      version: snapshot?.version ?? null,
      errors,
      warnings,
      notes,
      diagnostics,
    };
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
  } else if (flags.format === 'github') {
    const shown = (file?: string) =>
      file === undefined || loc.dir === undefined ? file : relative(io.cwd, resolve(loc.dir, file));
    for (const d of diagnostics) io.stdout(`${formatAnnotation(d, shown(d.file))}\n`);
  } else {
    for (const d of diagnostics) io.stdout(`${formatDiagnostic(d)}\n`);
  }
  const members = snapshot
    ? packMembers(snapshot).length + folderMembers(snapshot, vars.overrides).length
    : 0;
  io.stderr(
    `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}` +
      (notes > 0 ? `, ${notes} note${notes === 1 ? '' : 's'}` : '') +
      (snapshot
        ? ` (${counted(snapshot.files.size, 'file')}, ${counted(members, 'member')}, version ${snapshot.version})`
        : '') +
      '\n',
  );
  return failed ? EXIT_FAIL : EXIT_OK;
}

/** `1 file`, `2 files`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
