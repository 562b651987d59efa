import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { DEFAULT_MAX_SESSIONS, DEFAULT_PAGE_SIZE } from '../../mcp/limits.js';
import { MAX_BODY_BYTES } from '../../server/app.js';
import { DEFAULT_CONNECTION_LIMITS } from '../../server/node/connections.js';
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type ServiceOptions,
  startService,
} from '../../server/node/start.js';
import { MAX_QUERY_AMBIENT, MAX_TEAM_MEMBERS } from '../../server/schemas/requests.js';
import { createCors } from '../../server/service/cors.js';
import { MAX_PENDING_BYTES, MAX_PENDING_EVENTS } from '../../server/service/events.js';
import { hostPolicy } from '../../server/service/host-policy.js';
import { bufferedWriter, createLogger, LOG_LEVELS, type LogLevel } from '../../server/service/logging.js';
import { DEFAULT_MAX_RENDERS } from '../../server/service/render-slots.js';
import { envVariable } from '../../source/environment.js';
import { DEFAULT_TOKEN_BUDGET_MS } from '../../tokens/count-off-thread.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import { LOG_FORMATS, type LogFormat, textLogWriter } from '../log-text.js';
import { addPackOptions, printDiagnostics } from '../pack-options.js';
import {
  addReloadOptions,
  assignDefined,
  integer,
  positiveFlag,
  type ReloadFlags,
  reloadOptions,
} from '../reload-flags.js';
import { summary } from './list.js';

export interface ServeFlags extends ReloadFlags {
  /** Origins allowed cross-origin access (`--cors`, repeatable). */
  cors?: string[];
  host?: string;
  port?: string;
  logLevel?: string;
  logFormat?: string;
  /** Host names accepted beside loopback names (`--allowed-host`, repeatable). */
  allowedHost?: string[];
  maxConnections?: string;
  probeConnections?: string;
  headersTimeout?: string;
  requestTimeout?: string;
  keepAliveTimeout?: string;
  maxHeaderBytes?: string;
  lingerTimeout?: string;
  maxLingerBytes?: string;
  maxPipelined?: string;
  maxRenders?: string;
  tokenBudget?: string;
  maxTeamMembers?: string;
  maxEventBacklog?: string;
  shutdownTimeout?: string;
  maxMcpSessions?: string;
}

/**
 * `strata serve`: the prompt service (docs/service.md). Logs are JSON lines
 * on stdout (text lines on a terminal, `--log-format`); a pack with errors at start-up prints its diagnostics on stderr and exits 1.
 * Aborting `io.signal` (the bin aborts it on SIGTERM or SIGINT) stops it gracefully
 * (in-flight requests finish) with exit status 0.
 */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addReloadOptions(addPackOptions(program.command('serve')), {
    pageSize: DEFAULT_PAGE_SIZE,
    noWatch: 'do not watch the pack (reload only through POST /api/prompts/reload)',
  })
    .description(summary('serve'))
    .option('--host <host>', `address to bind (default: $STRATA_HOST, else ${DEFAULT_HOST})`)
    .option('--port <port>', `port (default: $STRATA_PORT, else ${DEFAULT_PORT}; 0 picks a free one)`)
    .option(
      '--cors <origin>',
      'allow cross-origin requests from this origin (scheme://host[:port]; scheme://*.host[:port] for any one subdomain label; or *); repeatable (default: $STRATA_CORS, space-separated, else none)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--allowed-host <name>',
      'accept this Host name (and Origin) beside loopback names and IP literals; .example.com for its subdomains, * for any; repeatable (default: none on a loopback address, any on another; $STRATA_ALLOWED_HOSTS)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--max-connections <n>',
      `open connections at most (default ${DEFAULT_CONNECTION_LIMITS.maxConnections})`,
    )
    .option(
      '--probe-connections <n>',
      `connections kept beyond --max-connections for /healthz and /readyz, so probes are answered while every connection is busy (default ${DEFAULT_CONNECTION_LIMITS.probeConnections}; 0: none)`,
    )
    .option(
      '--headers-timeout <ms>',
      `time to receive a request's headers (default ${DEFAULT_CONNECTION_LIMITS.headersTimeoutMs})`,
    )
    .option(
      '--request-timeout <ms>',
      `time to receive a whole request, body included (default ${DEFAULT_CONNECTION_LIMITS.requestTimeoutMs})`,
    )
    .option(
      '--keep-alive-timeout <ms>',
      `how long an idle keep-alive connection stays open (default ${DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs})`,
    )
    .option(
      '--max-header-bytes <bytes>',
      `bytes of a request's line (its URL) and headers at most (default ${DEFAULT_CONNECTION_LIMITS.maxHeaderBytes})`,
    )
    .option(
      '--linger-timeout <ms>',
      `how long a connection answered before its body was read (413, 415) reads and drops the rest of it before closing, so the client reads the answer (default ${DEFAULT_CONNECTION_LIMITS.lingerTimeoutMs})`,
    )
    .option(
      '--max-linger-bytes <bytes>',
      `bytes of such a body dropped at most before the connection closes (default ${DEFAULT_CONNECTION_LIMITS.maxLingerBytes})`,
    )
    .option(
      '--max-pipelined <n>',
      `requests in progress on one connection at most (HTTP/1.1 pipelining); a connection with more is closed (default ${DEFAULT_CONNECTION_LIMITS.maxPipelined})`,
    )
    .option(
      '--max-renders <n>',
      `requests composing an uncached answer at once, at most; later ones wait (default ${DEFAULT_MAX_RENDERS}; bounds the memory of requests in flight)`,
    )
    .option(
      '--token-budget <ms>',
      `time one request's token counts may take (default ${DEFAULT_TOKEN_BUDGET_MS}; past it the prompt is answered without counts, with a TOKEN_BUDGET_EXCEEDED warning)`,
    )
    .option(
      '--max-body-bytes <bytes>',
      `request bodies larger are answered 413 BODY_TOO_LARGE (default ${MAX_BODY_BYTES})`,
    )
    .option(
      '--max-query-ambient <chars>',
      `a longer ?ambient= is answered 400 BAD_REQUEST (default ${MAX_QUERY_AMBIENT})`,
    )
    .option(
      '--max-team-members <n>',
      `a POST /api/teams/compose with more members is answered 400 BAD_REQUEST (default ${MAX_TEAM_MEMBERS})`,
    )
    .option(
      '--max-event-backlog <n>',
      `events queued for an /api/events client that is not reading, at most, and ${MAX_PENDING_BYTES / MAX_PENDING_EVENTS} bytes of event data per event; past it the client is cut off with an EVENTS_CLIENT_TOO_SLOW warning (default ${MAX_PENDING_EVENTS})`,
    )
    .option(
      '--max-mcp-sessions <n>',
      `MCP sessions open on /mcp at once, at most; past it the session unused the longest is closed, with an MCP_SESSION_EVICTED warning (default ${DEFAULT_MAX_SESSIONS})`,
    )
    .option(
      '--shutdown-timeout <ms>',
      `on shutdown, how long in-flight requests may take before their connections are cut (default ${DEFAULT_SHUTDOWN_TIMEOUT_MS})`,
    )
    .option('--log-level <level>', `${LOG_LEVELS.join(' | ')} (default: $STRATA_LOG_LEVEL, else info)`)
    .option(
      '--log-format <format>',
      `${LOG_FORMATS.join(' | ')}: JSON lines, or a line a person reads per event, starting with where the inspector is (default: $STRATA_LOG_FORMAT, else text on a terminal and json otherwise)`,
    )
    .option(
      '--strict',
      'answer every compose with warnings as an error (unknown names, missing layers, the fallback), and be not ready (/readyz 503 with the reasons) while the pack loads with warnings or a member composes with one',
    )
    .addHelpText(
      'after',
      '\nEnvironment: STRATA_ADMIN_TOKEN enables POST /api/prompts/reload (Authorization: Bearer <token>).' +
        '\nSTRATA_ROLE (else CHORUS_ROLE) is the role of a POST /api/compose that names neither a role nor an agent.' +
        '\nExit status: 0 after a clean shutdown (SIGTERM or SIGINT), 1 a pack error at start-up, 2 a usage error.',
    )
    .action(async (flags: ServeFlags) => {
      const stop = io.signal;
      const options = serviceOptions(flags, io);
      const level = (flags.logLevel ?? envVariable(io.env, 'STRATA_LOG_LEVEL') ?? 'info') as LogLevel;
      if (!LOG_LEVELS.includes(level))
        throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
      const format = (flags.logFormat ??
        envVariable(io.env, 'STRATA_LOG_FORMAT') ??
        (io.isTTY ? 'text' : 'json')) as LogFormat;
      if (!LOG_FORMATS.includes(format))
        throw new UsageError(
          `--log-format must be one of ${LOG_FORMATS.join(', ')}, not ${JSON.stringify(format)}`,
        );
      const out = bufferedWriter(format === 'text' ? textLogWriter(io.stdout, io.cwd) : io.stdout);
      const logger = createLogger({ level, write: out.write });
      steadyHeap();
      const started = await startService({ ...options, logger });
      if (!started.ok) {
        out.flush();
        printDiagnostics(started.diagnostics, io);
        return exit(EXIT_FAIL);
      }
      const signal = await untilAborted(stop);
      logger.info({ signal }, 'shutting down');
      await started.service.close();
      logger.info('stopped');
      out.flush();
      exit(EXIT_OK);
    });
}

/**
 * What `strata serve` starts with these flags in this environment: the pack directory,
 * preset and default role under the environment contract, and the address and timings.
 * Usage errors throw.
 */
export function serviceOptions(flags: Omit<ServeFlags, 'logLevel' | 'logFormat'>, io: CliIO): ServiceOptions {
  const { mcpPageSize, ...shared } = reloadOptions(flags, io);
  const options: ServiceOptions = {
    ...shared,
    host: bindAddress(flags.host ?? envVariable(io.env, 'STRATA_HOST')),
    port: integer(flags.port ?? envVariable(io.env, 'STRATA_PORT'), '--port', DEFAULT_PORT, 65535),
    adminToken: io.env.STRATA_ADMIN_TOKEN || undefined,
  };
  const cors = flags.cors?.length ? flags.cors : (io.env.STRATA_CORS ?? '').split(/[\s,]+/).filter(Boolean);
  try {
    createCors(cors);
  } catch (e) {
    throw new UsageError(`--cors: ${(e as Error).message}`);
  }
  if (cors.length > 0) options.cors = cors;
  const hosts = flags.allowedHost?.length
    ? flags.allowedHost
    : (io.env.STRATA_ALLOWED_HOSTS ?? '').split(/[\s,]+/).filter(Boolean);
  try {
    hostPolicy(hosts);
  } catch (e) {
    throw new UsageError(`--allowed-host: ${(e as Error).message}`);
  }
  if (hosts.length > 0) options.allowedHosts = hosts;
  const positive = positiveFlag;
  const connections = Object.fromEntries(
    Object.entries({
      maxConnections: positive(flags.maxConnections, '--max-connections'),
      probeConnections:
        flags.probeConnections === undefined
          ? undefined
          : integer(flags.probeConnections, '--probe-connections', 0, 4096),
      headersTimeoutMs: positive(flags.headersTimeout, '--headers-timeout'),
      requestTimeoutMs: positive(flags.requestTimeout, '--request-timeout'),
      keepAliveTimeoutMs: positive(flags.keepAliveTimeout, '--keep-alive-timeout'),
      maxHeaderBytes: positive(flags.maxHeaderBytes, '--max-header-bytes'),
      lingerTimeoutMs: positive(flags.lingerTimeout, '--linger-timeout'),
      maxLingerBytes: positive(flags.maxLingerBytes, '--max-linger-bytes'),
      maxPipelined: positive(flags.maxPipelined, '--max-pipelined'),
    }).filter(([, v]) => v !== undefined),
  );
  if (Object.keys(connections).length > 0) options.connections = connections;
  assignDefined(options, {
    maxRenders: positive(flags.maxRenders, '--max-renders'),
    tokenBudgetMs: positive(flags.tokenBudget, '--token-budget'),
    maxTeamMembers: positive(flags.maxTeamMembers, '--max-team-members'),
    maxEventBacklog: positive(flags.maxEventBacklog, '--max-event-backlog'),
    shutdownTimeoutMs: positive(flags.shutdownTimeout, '--shutdown-timeout'),
  });
  const mcp = assignDefined(
    {},
    { maxSessions: positive(flags.maxMcpSessions, '--max-mcp-sessions'), pageSize: mcpPageSize },
  );
  if (Object.keys(mcp).length > 0) options.mcp = mcp;
  return options;
}

// --- internal ---

/**
 * The address to bind: the one given, else the loopback default. An empty one is refused:
 * Node reads it as no address at all and binds every interface, and the Host check, which
 * is off on an address that is not loopback, was off with it.
 */
function bindAddress(host: string | undefined): string {
  if (host === undefined) return DEFAULT_HOST;
  if (host.trim() === '')
    throw new UsageError(`--host must be an address or a host name, not ${JSON.stringify(host)}`);
  return host;
}

/** Resolves with the abort reason's name once `signal` aborts (never, without a signal). */
function untilAborted(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    if (!signal) return;
    const done = () => resolve(typeof signal.reason === 'string' ? signal.reason : 'abort');
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The service process's heap may grow to twice what survived the last full collection
 * before the next one (V8's `--heap-growing-percent=100`), unless node was started with
 * its own setting. V8 otherwise adapts that factor, and under a steady stream of large
 * requests it can settle near its floor: a full collection every few hundred milliseconds,
 * which is what a health probe then waits behind (docs/BENCHMARKS.md, "Hostile clients").
 * The memory bound in docs/operations.md already allows the collector twice the live heap.
 */
function steadyHeap(): void {
  if (process.execArgv.some((a) => a.startsWith('--heap-growing-percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const HEAP_GROWING_PERCENT = 100;
