import { Command, CommanderError } from 'commander';
import { formatDiagnostic, PromptError } from '../core/text/diagnostics.js';
import { VERSION } from '../source/version.js';
import * as bundleCommand from './commands/bundle.js';
import * as composeCommands from './commands/compose.js';
import * as configCommand from './commands/config.js';
import * as diffCommand from './commands/diff.js';
import * as exportCommand from './commands/export.js';
import * as generateCommand from './commands/generate.js';
import * as roleCommands from './commands/roles.js';
import * as serveCommands from './commands/serve.js';
import * as snapshotCommand from './commands/snapshot.js';
import * as validateCommand from './commands/validate.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, EXIT_USAGE, type Exit, UsageError } from './io.js';
import { refuseRepeatedOptions } from './option-repeats.js';

export type { Exit } from './io.js';

/** Each command module registers its commands on the program. */
const COMMANDS: Array<{ register(program: Command, io: CliIO, exit: Exit): void }> = [
  composeCommands,
  roleCommands,
  serveCommands,
  validateCommand,
  diffCommand,
  snapshotCommand,
  generateCommand,
  configCommand,
  exportCommand,
  bundleCommand,
];

/**
 * Runs the strata CLI. Exit status: 0 success (warnings allowed), 1 an error in the pack
 * or the request, 2 a usage error.
 *
 * @example
 * const code = await run(['compose', '--dir', 'examples/roboco', '--agent', 'ada'], {
 *   stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s),
 *   env: process.env, cwd: process.cwd(),
 * });
 */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  let code: number = EXIT_OK;
  const exit: Exit = (c) => {
    code = c;
  };
  const program = new Command('strata')
    .description("Compose every agent's system prompt from layered, ops-tunable files.")
    .version(VERSION, '-V, --version')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  program.addHelpText(
    'after',
    '\nExit status: 0 success (warnings allowed), 1 an error in the pack or the request, 2 a usage error.',
  );
  for (const command of COMMANDS) command.register(program, io, exit);
  for (const cmd of program.commands)
    cmd.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  refuseRepeatedOptions(program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === 'commander.helpDisplayed' ||
        e.code === 'commander.version' ||
        e.code === 'commander.help'
      )
        return EXIT_OK;
      return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (e instanceof UsageError) {
      io.stderr(`error USAGE: ${e.message}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof PromptError) {
      for (const d of e.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
      return EXIT_FAIL;
    }
    io.stderr(`error INTERNAL: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT_FAIL;
  }
}
