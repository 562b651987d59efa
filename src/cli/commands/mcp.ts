import type { Command } from 'commander';
import { DEFAULT_BOUNDS, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_PAGE_SIZE } from '../../mcp/limits.js';
import type { CliIO, Exit } from '../io.js';
import { addPackOptions } from '../pack-options.js';
import { addReloadOptions } from '../reload-flags.js';
import type { McpFlags } from './mcp-run.js';

/**
 * `strata mcp`: the pack's prompts over the Model Context Protocol on stdin and stdout
 * (docs/mcp.md), with `serve`'s pack options, environment, settings and limits. Only
 * JSON-RPC goes to stdout; logs are JSON lines on stderr. The MCP code is loaded when the
 * command runs.
 */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addReloadOptions(addPackOptions(program.command('mcp')), {
    pageSize: DEFAULT_PAGE_SIZE,
    noWatch: 'do not watch the pack (the prompts stay as they were at start-up)',
  })
    .description(
      "serve the pack's prompts over MCP on stdin/stdout (an MCP client starts it), reloading the pack when it changes",
    )
    .option(
      '--strict',
      'answer every compose with warnings as an error (unknown names, missing layers, the fallback)',
    )
    .option(
      '--max-body-bytes <bytes>',
      `a message longer than this is refused with a JSON-RPC error, unread (default ${DEFAULT_MAX_MESSAGE_BYTES})`,
    )
    .option(
      '--max-query-ambient <chars>',
      `a longer ambient argument of a prompt is refused (-32602 BAD_REQUEST) (default ${DEFAULT_BOUNDS.maxAmbientChars})`,
    )
    .option(
      '--log-level <level>',
      'fatal | error | warn | info | debug | trace | silent, on stderr (default: $STRATA_LOG_LEVEL, else info)',
    )
    .addHelpText(
      'after',
      '\nClaude Code: claude mcp add strata -- npx strata mcp --dir /path/to/pack' +
        '\nSTRATA_ROLE (else CHORUS_ROLE) is the role of a compose tool call that names neither a role nor an agent.' +
        '\nExit status: 0 when the client closes stdin (or on SIGTERM or SIGINT), 1 a pack error at start-up, 2 a usage error.',
    )
    .action(async (flags: McpFlags) => {
      const { runMcp } = await import('./mcp-run.js');
      exit(await runMcp(flags, io));
    });
}
