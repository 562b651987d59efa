import type { Command } from 'commander';
import { requestRole } from '../../source/environment.js';
import {
  type AgentConfig,
  type AgentConfigRequest,
  agentConfig,
  agentConfigJsonSchema,
} from '../../tooling/agent-config/agent-config.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import {
  addRequestOptions,
  openPackForRole,
  printDiagnostics,
  type RequestFlags,
  reportLoad,
  requestFromFlags,
  requestOverrides,
} from '../pack-options.js';
import { summary } from './list.js';

interface ConfigFlags extends RequestFlags {
  json?: boolean;
  schema?: boolean;
}

/** `strata config`: the agent config a runtime applies, with the source of every field. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  // The request options compose takes: a request that would not compose gets no config.
  addRequestOptions(program.command('config'))
    .description(summary('config'))
    .option('--json', 'print { config, sources, … } as JSON')
    .option('--schema', 'print the JSON Schema of the config and exit')
    .addHelpText(
      'after',
      '\nExit status: 0 success, 1 an error in the pack or the request (unknown role, bad name, invalid value), 2 a usage error.',
    )
    .action(async (flags: ConfigFlags) => {
      exit(await configCommand(flags, io));
    });
}

/** The text form: who, then one row per field with its value and source. */
export function formatAgentConfig(result: AgentConfig): string {
  const who = [
    result.agent && `agent=${result.agent}`,
    result.role && `role=${result.role}`,
    result.team && `team=${result.team}`,
  ].filter(Boolean);
  const rows = Object.entries(result.config).map(([key, value]) => {
    const s = result.sources[key]!;
    const origin =
      s.from === 'role'
        ? `role ${result.role}`
        : s.from === 'agent'
          ? `agent ${result.agent}`
          : 'agent_defaults';
    return [
      key,
      JSON.stringify(value),
      `${origin}${s.file ? ` (${s.file}${s.field ? `: ${s.field}` : ''})` : ''}${s.via ? `, ${s.via}` : ''}`,
    ];
  });
  const body = rows.length === 0 ? ['(no config fields)'] : columns([['field', 'value', 'source'], ...rows]);
  return `${[who.join(' '), '', ...body].join('\n')}\n`;
}

// --- internal ---

async function configCommand(flags: ConfigFlags, io: CliIO): Promise<number> {
  if (flags.schema) {
    io.stdout(`${JSON.stringify(agentConfigJsonSchema(), null, 2)}\n`);
    return EXIT_OK;
  }
  const role = requestRole(flags, io.env);
  if (role === undefined && flags.agent === undefined)
    throw new UsageError('give --role ROLE, --agent AGENT, or both (or set STRATA_ROLE)');
  const snapshot = reportLoad(await openPackForRole(flags, io, role), io);
  if (!snapshot) return EXIT_FAIL;
  const { team: _team, ambient: _ambient, ...asked } = await requestFromFlags(flags, io);
  const request: AgentConfigRequest = asked;
  if (request.settings)
    request.settings = requestOverrides(request.settings as Record<string, string>, snapshot);
  const outcome = agentConfig(snapshot, request);
  if (!outcome.ok) {
    printDiagnostics(outcome.diagnostics, io);
    return EXIT_FAIL;
  }
  printDiagnostics(outcome.result.diagnostics ?? [], io);
  io.stdout(flags.json ? `${JSON.stringify(outcome.result, null, 2)}\n` : formatAgentConfig(outcome.result));
  return EXIT_OK;
}

/** Left-aligned columns, two spaces apart (values are JSON, numbers included). */
function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}
