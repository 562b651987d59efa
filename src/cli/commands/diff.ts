import type { Command } from 'commander';
import type { LoadResult, Snapshot } from '../../core/build/snapshot.js';
import { table } from '../../core/compose/explain.js';
import { parseSetPairs } from '../../core/pack/settings.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import { openPack, type PackSource } from '../../source/open.js';
import { type DiffReport, diffPacks, type MemberChange } from '../../tooling/diff/diff.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import {
  addPackOptions,
  collect,
  type PackFlags,
  packLocation,
  printDiagnostics,
  reportLoad,
  resolvePath,
} from '../pack-options.js';
import { summary } from './list.js';

interface DiffFlags extends PackFlags {
  baseDir?: string;
  baseRef?: string;
  baseSet: string[];
  set: string[];
  var?: string[];
  json?: boolean;
  exitCode?: boolean;
  stat?: boolean;
}

/** `strata diff`: which members' prompts a change touches, and how. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addPackOptions(program.command('diff'))
    .description(summary('diff'))
    .option('--base-dir <dir>', 'compare against another pack directory')
    .option(
      '--base-ref <rev>',
      'compare against this pack at a git revision (read from git, not the working tree)',
    )
    .option(
      '--base-set <key=value>',
      'compose the base with this setting (repeatable; alone, compares settings)',
      collect,
      [],
    )
    .option('--set <key=value>', 'compose both sides with this setting (repeatable)', collect, [])
    .option('--var <key=value>', 'compose both sides with this request input (repeatable)', collect, [])
    .option('--stat', 'print only the summary table')
    .option('--json', 'print { changed: [...], unchanged: [...] }')
    .option('--exit-code', 'exit 1 when any prompt changed')
    .addHelpText(
      'after',
      '\nExit status: 0 success (with --exit-code: nothing changed), 1 a pack or git error (with --exit-code: something changed), 2 a usage error.',
    )
    .action(async (flags: DiffFlags) => {
      exit(await diffCommand(flags, io));
    });
}

/** The text form of a diff report: each changed member's diff, then the summary table. */
export function formatDiffReport(report: DiffReport, options: { stat?: boolean } = {}): string {
  const parts: string[] = [];
  if (!options.stat) for (const c of report.changed) if (c.diff) parts.push(c.diff);
  const rows = [
    ...report.changed.map((c) => row(c)),
    ...report.unchanged.map((u) => [
      u.key,
      u.role ?? '-',
      u.team ?? '-',
      'same',
      String(u.bytes),
      '0',
      '',
      '',
    ]),
  ];
  const total = report.changed.length + report.unchanged.length;
  parts.push(
    [
      ...table([['member', 'role', 'team', 'status', 'bytes', 'Δbytes', 'Δlines', '+/-'], ...rows]),
      '',
      `${report.changed.length} of ${total} member${total === 1 ? '' : 's'} changed`,
    ].join('\n'),
  );
  return `${parts.join('\n')}\n`;
}

// --- internal ---

async function diffCommand(flags: DiffFlags, io: CliIO): Promise<number> {
  if (flags.baseDir !== undefined && flags.baseRef !== undefined)
    throw new UsageError('give --base-dir or --base-ref, not both');
  if (flags.baseDir === undefined && flags.baseRef === undefined && flags.baseSet.length === 0) {
    throw new UsageError(
      'nothing to compare against: give --base-dir DIR, --base-ref REV or --base-set KEY=VALUE',
    );
  }
  const set = pairs(flags.set, '--set');
  const baseSet = pairs(flags.baseSet, '--base-set');
  const vars = pairs(flags.var ?? [], '--var');
  const loc = packLocation(flags, io);
  const options = { ...loc.limits, preset: loc.preset, env: io.env };
  const head = reportLoad(await openPack(loc.source, options), io);
  if (!head) return EXIT_FAIL;

  let base: Snapshot | undefined = head;
  if (flags.baseDir !== undefined) {
    base = reportBase(await openPack({ kind: 'dir', dir: resolvePath(io, flags.baseDir) }, options), io);
  } else if (flags.baseRef !== undefined) {
    if (loc.dir === undefined) throw new UsageError('--base-ref needs a pack directory (--dir)');
    const source: PackSource = { kind: 'git', dir: head.root ?? loc.dir, rev: flags.baseRef };
    if (head.root !== undefined) source.root = head.root;
    base = reportBase(await openPack(source, options), io);
  }
  if (!base) return EXIT_FAIL;

  const report = diffPacks(
    { snapshot: base, settings: { ...set, ...baseSet }, vars },
    { snapshot: head, settings: set, vars },
  );
  printDiagnostics(report.diagnostics, io);
  if (report.diagnostics.some((d) => d.severity === 'error')) return EXIT_FAIL;
  if (flags.json) {
    const out = {
      base: base.version,
      version: head.version,
      changed: report.changed,
      unchanged: report.unchanged,
    };
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
  } else io.stdout(formatDiffReport(report, { stat: flags.stat }));
  return flags.exitCode && report.changed.length > 0 ? EXIT_FAIL : EXIT_OK;
}

function reportBase(result: LoadResult, io: CliIO): Snapshot | undefined {
  const label = (d: Diagnostic): Diagnostic => ({ ...d, message: `(base) ${d.message}` });
  printDiagnostics(result.diagnostics.map(label), io);
  return result.snapshot;
}

function row(c: MemberChange): string[] {
  const bytes =
    c.status === 'added'
      ? `${c.bytesAfter}`
      : c.status === 'removed'
        ? `${c.bytesBefore}`
        : `${c.bytesBefore}→${c.bytesAfter}`;
  return [
    c.key,
    c.role ?? '-',
    c.team ?? '-',
    c.status,
    bytes,
    signed(c.bytesAfter - c.bytesBefore),
    // A lock written without texts knows no lines of its side: say so, never a made-up count.
    c.linesBefore === undefined || c.linesAfter === undefined ? '?' : signed(c.linesAfter - c.linesBefore),
    c.linesAdded === undefined || c.linesRemoved === undefined ? '?' : `+${c.linesAdded} -${c.linesRemoved}`,
  ];
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

function pairs(list: readonly string[], flag: string): Record<string, string> {
  const { overrides, bad } = parseSetPairs(list);
  if (bad.length > 0) throw new UsageError(`${flag} needs KEY=VALUE, got ${JSON.stringify(bad[0])}`);
  return overrides;
}
