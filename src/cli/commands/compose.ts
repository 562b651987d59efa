import type { Command } from 'commander';
import { tryCompose } from '../../compose.js';
import { formatExplain } from '../../explain.js';
import { type CliIO, EXIT_FAIL, EXIT_OK } from '../io.js';
import {
  addRequestOptions,
  openPack,
  printDiagnostics,
  type RequestFlags,
  reportLoad,
  requestFromFlags,
} from '../pack-options.js';
import type { Exit } from '../run.js';

/** `strata compose` and `strata explain`: the prompt, or the table of its layers. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addRequestOptions(program.command('compose'))
    .description('print the composed prompt (exactly its bytes) for a role, team and agent')
    .option('--json', 'print the result object with provenance instead')
    .action(async (flags: RequestFlags & { json?: boolean }) => {
      exit(
        await composeCommand(flags, io, (result) =>
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : result.text,
        ),
      );
    });

  addRequestOptions(program.command('explain'))
    .description('show every layer of the pipeline: included or why not, source, bytes')
    .option('--json', 'print the result object')
    .action(async (flags: RequestFlags & { json?: boolean }) => {
      exit(
        await composeCommand(flags, io, (result) =>
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatExplain(result),
        ),
      );
    });
}

// --- internal ---

async function composeCommand(
  flags: RequestFlags,
  io: CliIO,
  render: (result: import('../../compose.js').ComposeResult) => string,
): Promise<number> {
  const snapshot = reportLoad(await openPack(flags, io), io);
  if (!snapshot) return EXIT_FAIL;
  const outcome = tryCompose(snapshot, await requestFromFlags(flags, snapshot, io));
  if (!outcome.ok) {
    printDiagnostics(outcome.diagnostics, io);
    return EXIT_FAIL;
  }
  printDiagnostics(outcome.result.diagnostics, io);
  io.stdout(render(outcome.result));
  return EXIT_OK;
}
