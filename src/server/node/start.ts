import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import { type Diagnostic, type DiagnosticCode, error } from '../../core/text/diagnostics.js';
import { createEngine } from '../../engine/engine.js';
import { type ReloadSource, stablePackLoader } from '../../reload/read.js';
import { SnapshotStore } from '../../reload/store.js';
import { type PackWatcher, watchPack } from '../../reload/watch.js';
import { tokenConfig } from '../../tokens/config.js';
import { stopCountWorker, warmCountWorker } from '../../tokens/count-off-thread.js';
import { getTokenizer, tokenizerAvailable, tokenizerMissing } from '../../tokens/tokenizer.js';
import { type AppOptions, createApp, type StrataApp } from '../app.js';
import { deferContinue } from '../middleware/continue.js';
import { routeTable } from '../routes/route.js';
import { createLogger, logReloads } from '../service/logging.js';
import { createMetrics } from '../service/metrics.js';
import {
  type ConnectionGuard,
  type ConnectionLimits,
  connectionLimits,
  guardConnections,
  serverOptions,
} from './connections.js';
import { createFastPath } from './fast-path.js';
import { lingerOnClose } from './linger.js';
import {
  answerClientError,
  answerServerOptions,
  refuseConnect,
  refuseExpectation,
  refuseMissingHost,
  refuseRepeatedFields,
  unreadableRequest,
} from './unreadable.js';

export interface ServiceOptions extends ReloadSource {
  /** Address to bind (default 127.0.0.1: loopback unless told otherwise). */
  host?: string;
  /** Port (default 7411; 0 picks a free one). */
  port?: number;
  /** Watch the pack and reload on change (default true). */
  watch?: boolean;
  debounceMs?: number;
  /** Backstop for missed file events: compare the pack with its last read this often (default 10 s; 0 disables). */
  pollMs?: number;
  adminToken?: string;
  /** Origins allowed cross-origin access (`*`: any); none by default. */
  cors?: readonly string[];
  /** The role of a `POST /api/compose` that names neither a role nor an agent. */
  defaultRole?: string;
  /**
   * Swap in new versions that degrade members instead of holding them (default false:
   * such a version is held until `POST /api/prompts/reload?accept=<version>`).
   */
  allowLayerLoss?: boolean;
  logger?: Logger;
  /** How long shutdown waits for in-flight requests before cutting connections (default {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}, 10 s). */
  shutdownTimeoutMs?: number;
  /** Request bodies over this many bytes are answered 413 `BODY_TOO_LARGE` (default `MAX_BODY_BYTES`, 64 KiB). */
  maxBodyBytes?: number;
  /** A longer `?ambient=` (in characters) is answered 400 `BAD_REQUEST` (default `MAX_QUERY_AMBIENT`, 32 KiB). */
  maxQueryAmbient?: number;
  /** A team compose with more members is answered 400 `BAD_REQUEST` (default `MAX_TEAM_MEMBERS`, 256). */
  maxTeamMembers?: number;
  /**
   * Events queued for one `/api/events` client that is not reading, at most (default
   * `MAX_PENDING_EVENTS`, 512; the byte bound scales with it); past it the client is cut off.
   */
  maxEventBacklog?: number;
  /** Stops the service gracefully (as `close()`) when it aborts. */
  signal?: AbortSignal;
  /**
   * Host names accepted beside loopback names and IP literals (`*`: any). Default: none
   * when bound to a loopback address; any (the check off) when bound to another address,
   * which is reachable under names strata cannot know.
   */
  allowedHosts?: readonly string[];
  /** Connection cap and header, request and keep-alive timeouts (see `DEFAULT_CONNECTION_LIMITS`). */
  connections?: ConnectionLimits;
  /** Budget of all snapshot caches together, in bytes (default `DEFAULT_CACHE_BYTES`, 64 MiB). */
  cacheBytes?: number;
  /**
   * Requests composing, counting and serialising an uncached answer at once, at most
   * (default `DEFAULT_MAX_RENDERS`, 4; later ones wait): bounds the memory of requests in flight.
   */
  maxRenders?: number;
  /** Time budget for one request's token counts (default 5 s; past it, the prompt comes without counts, with a TOKEN_BUDGET_EXCEEDED warning). */
  tokenBudgetMs?: number;
  /** Answer every compose with warnings as an error (`serve --strict`). */
  strict?: boolean;
  /** `/mcp`: open sessions at most (`--max-mcp-sessions`) and `prompts/list` page size (`--mcp-page-size`). */
  mcp?: AppOptions['mcp'];
}

/** A running service. */
export interface RunningService {
  /** `http://host:port` it listens on. */
  url: string;
  store: SnapshotStore;
  app: StrataApp;
  /** Graceful stop: stop watching, end event streams, finish in-flight requests, close. Idempotent. */
  close(): Promise<void>;
}

export type StartOutcome = { ok: true; service: RunningService } | { ok: false; diagnostics: Diagnostic[] };

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7411;
/** How long shutdown waits for in-flight requests before cutting their connections, by default. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Starts the prompt service on a real socket: listens (so `/healthz` answers and
 * `/readyz` says 503), loads the pack, then watches it. A pack with errors at start-up
 * stops the service and returns the diagnostics (fail at start-up, not at first request).
 *
 * @example
 * const started = await startService({ dir: 'examples/roboco', port: 0 });
 * if (started.ok) console.log(started.service.url);
 */
export async function startService(options: ServiceOptions): Promise<StartOutcome> {
  // A limit out of range is refused before anything starts (a RangeError).
  const limits = connectionLimits(options.connections);
  const logger = options.logger ?? createLogger();
  // One consistency rule for every reload: the pack must have been quiet for the debounce.
  // The service's own engine: its caches within the service's budget, apart from any other.
  const engine = createEngine({ cacheBytes: options.cacheBytes });
  const store = new SnapshotStore(
    stablePackLoader({ ...options, engine, quietMs: options.quietMs ?? options.debounceMs }),
    { allowLayerLoss: options.allowLayerLoss, strict: options.strict, engine },
  );
  logReloads(store, logger);
  const watching = options.watch !== false && options.dir !== undefined;
  const bindHost = options.host ?? DEFAULT_HOST;
  const app = createApp({
    allowedHosts: options.allowedHosts ?? (isLoopback(bindHost) ? [] : ['*']),
    tokenBudgetMs: options.tokenBudgetMs,
    maxRenders: options.maxRenders,
    maxBodyBytes: options.maxBodyBytes,
    maxQueryAmbient: options.maxQueryAmbient,
    maxTeamMembers: options.maxTeamMembers,
    maxEventBacklog: options.maxEventBacklog,
    store,
    adminToken: options.adminToken,
    defaultRole: options.defaultRole,
    cors: options.cors,
    logger,
    watching,
    strict: options.strict,
    mcp: options.mcp,
    metrics: createMetrics(store, { processMetrics: true }),
  });

  app.service.warming = true;

  // 1. Listen first: liveness answers while the pack loads. Routes with a direct handler
  //    (liveness, cached prompts) are answered without going through the app when they can.
  // A request the adapter cannot build (no Host on HTTP/1.0 gets the bound address, as
  // the app then judges it; a bad Host port, a backslash in the path) and one Node's parser
  // refuses are answered as coded JSON errors, like every other (src/server/unreadable.ts).
  const appListener = getRequestListener(app.fetch, {
    hostname: `${bindHost.includes(':') ? `[${bindHost}]` : bindHost}:${options.port ?? DEFAULT_PORT}`,
    errorHandler: unreadableRequest,
  });
  const fast = createFastPath(app.service, routeTable(app.app), appListener);
  const serverAllow = routeTable(app.app).allMethods().join(', ');
  let guard: ConnectionGuard | undefined;
  const linger = { ms: limits.lingerTimeoutMs, bytes: limits.maxLingerBytes };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    // A request with a body: should it be answered unread and the connection close, the
    // connection lingers until the client has sent it (linger.ts), so the answer is read.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      lingerOnClose(req, linger);
    if (guard!.onRequest(req, res)) return; // not a probe, on a connection kept for probes
    if (
      refuseMissingHost(req, res) ||
      refuseRepeatedFields(req, res) ||
      answerServerOptions(req, res, serverAllow)
    )
      return;
    if (!fast(req, res)) void appListener(req, res);
  };
  const server = createServer({ ...serverOptions(options.connections), requireHostHeader: false }, onRequest);
  guard = guardConnections(server, options.connections, (reason) => {
    app.metrics.connectionShed(reason);
    if (reason === 'pipelined')
      logger.warn(
        { code: 'PIPELINE_TOO_DEEP' satisfies DiagnosticCode, maxPipelined: limits.maxPipelined },
        'a connection with more requests in progress than serve --max-pipelined was closed (a client pipelining requests without reading the answers)',
      );
  });
  app.metrics.watchConnections(() => ({
    open: guard!.open,
    reserve: guard!.reserve,
    requests: guard!.requests,
  }));
  const maxHeaderBytes = serverOptions(options.connections).maxHeaderSize;
  server.on('clientError', (err: Error, socket) => answerClientError(err, socket, maxHeaderBytes));
  server.on('checkExpectation', refuseExpectation);
  // `Expect: 100-continue` is answered when the body is read, not on arrival (continue.ts).
  server.on('checkContinue', (req, res) => {
    deferContinue(req);
    onRequest(req, res);
  });
  server.on('connect', refuseConnect);
  const port = options.port ?? DEFAULT_PORT;
  const listening = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once('error', resolve);
    server.listen(port, bindHost, () => resolve(undefined));
  });
  if (listening) {
    app.close();
    return { ok: false, diagnostics: [listenProblem(listening, bindHost, port)] };
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  // 2. Load; refuse to run on a broken pack.
  let watcher: PackWatcher | undefined;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await watcher?.close();
      app.close();
      await closeServer(server, guard, options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
      await stopCountWorker();
      fast.flush();
    })();
    return closing;
  };
  const initial = await store.reload('initial');
  if (initial.outcome === 'failed') {
    await close();
    return { ok: false, diagnostics: initial.diagnostics };
  }
  // Load the tokenizer's tables now (about a second), not on the first request: here for
  // short texts, and in the worker thread that counts long ones. The service is ready
  // (`/readyz`) and says it is listening only once the worker is, so no request's time
  // budget pays for its start-up (which takes seconds on a busy machine).
  const tokenizer = tokenConfig(store.state!.snapshot).tokenizer;
  if (tokenizerAvailable()) {
    // The worker loads its tables while this thread loads its own.
    const worker = warmCountWorker(tokenizer).catch((e) =>
      logger.warn({ err: e }, 'token counting worker failed to start'),
    );
    getTokenizer(tokenizer).count('warm up');
    await worker;
  } else {
    const said = tokenizerMissing('answers carry no token counts', 'warning');
    logger.warn({ code: said.code }, said.message);
  }
  app.service.warming = false;

  // 3. Watch.
  if (watching) {
    watcher = watchPack(options.dir!, store, {
      debounceMs: options.debounceMs,
      pollMs: options.pollMs,
      onError: (e) => logger.warn({ err: e }, 'watcher error; the poll still runs'),
    });
    await watcher.ready;
  }
  const served = store.state?.snapshot;
  logger.info(
    {
      url,
      dir: options.dir ?? null,
      version: served?.version,
      roles: served?.roles.size ?? 0,
      agents: served?.fleet.length ?? 0,
      watching,
    },
    'listening',
  );
  if (options.signal?.aborted) void close();
  else options.signal?.addEventListener('abort', () => void close(), { once: true });
  return { ok: true, service: { url, store, app, close } };
}

// --- internal ---

/**
 * Stops accepting connections and drains: in-flight requests finish and their answers
 * say `Connection: close` (so a keep-alive client does not send another request on a
 * socket about to close), idle sockets close now, and what is left after `timeoutMs` is cut.
 */
function closeServer(server: Server, guard: ConnectionGuard, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    guard.drain();
  });
}

/**
 * Why the service could not listen, said plainly: a port in use (the commonest start-up
 * mistake) is PORT_IN_USE naming the port and how to choose another; any other is LISTEN_FAILED.
 */
function listenProblem(e: NodeJS.ErrnoException, host: string, port: number): Diagnostic {
  const choose = 'choose another with --port or STRATA_PORT (0 picks a free one)';
  if (e.code === 'EADDRINUSE')
    return error(
      'PORT_IN_USE',
      `port ${port} on ${host} is in use by another process: stop it, or ${choose}`,
    );
  if (e.code === 'EACCES')
    return error(
      'LISTEN_FAILED',
      `port ${port} on ${host} needs privileges this process lacks: ${choose} (from 1024)`,
    );
  if (e.code === 'EADDRNOTAVAIL')
    return error(
      'LISTEN_FAILED',
      `no network interface has the address ${host}: choose another with --host or STRATA_HOST`,
    );
  return error('LISTEN_FAILED', `cannot listen on ${host}:${port}: ${e.code ?? e.message}`);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
