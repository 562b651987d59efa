import type { Command } from 'commander';
import { table } from '../../core/compose/explain.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit } from '../io.js';
import { addPackOptions, openPackFromFlags, type PackFlags, reportLoad } from '../pack-options.js';
import { summary } from './list.js';

/** `strata roles` and `strata fleet`: what the pack knows. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addPackOptions(program.command('roles'))
    .description(summary('roles'))
    .option('--json', 'print the role records')
    .addHelpText('after', EXIT_HELP)
    .action(async (flags: PackFlags & { json?: boolean }) => {
      const snapshot = reportLoad(await openPackFromFlags(flags, io), io);
      if (!snapshot) return exit(EXIT_FAIL);
      const roles = [...snapshot.roles.values()];
      if (flags.json) io.stdout(`${JSON.stringify({ version: snapshot.version, roles }, null, 2)}\n`);
      else {
        io.stdout(roles.map((r) => `${r.id}\n`).join(''));
        // Said beside the list (on stderr: the list stays one id a line, none here).
        if (roles.length === 0) io.stderr(`${noRoles(snapshot.manifest.inputs.map((i) => i.name))}\n`);
      }
      exit(EXIT_OK);
    });

  addPackOptions(program.command('fleet'))
    .description(summary('fleet'))
    .option('--json', 'print the agents')
    .addHelpText('after', EXIT_HELP)
    .action(async (flags: PackFlags & { json?: boolean }) => {
      const snapshot = reportLoad(await openPackFromFlags(flags, io), io);
      if (!snapshot) return exit(EXIT_FAIL);
      const agents = snapshot.fleet.map(({ at: _, ...agent }) => agent);
      if (flags.json) io.stdout(`${JSON.stringify({ version: snapshot.version, agents }, null, 2)}\n`);
      else if (agents.length === 0)
        io.stdout('(no fleet: the pack has no fleet.yaml and no identity frontmatter)\n');
      else {
        const rows = agents.map((a) => [a.id, a.role ?? '-', a.team ?? '-', a.source]);
        io.stdout(`${table([['agent', 'role', 'team', 'declared in'], ...rows]).join('\n')}\n`);
      }
      exit(EXIT_OK);
    });
}

// --- internal ---

const EXIT_HELP = '\nExit status: 0 listed, 1 an error in the pack, 2 a usage error.';

/** What `strata roles` says of a pack without roles: it composes without one, from its inputs. */
function noRoles(inputs: readonly string[]): string {
  const given = inputs.length === 0 ? '' : `; its request inputs: ${inputs.join(', ')} (--var NAME=VALUE)`;
  return `(no roles: the pack declares none and composes without --role${given})`;
}
