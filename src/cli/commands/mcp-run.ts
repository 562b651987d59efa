import { createEngine } from '../../engine/engine.js';
import { DEFAULT_BOUNDS, DEFAULT_MAX_MESSAGE_BYTES } from '../../mcp/limits.js';
import { createPromptServer } from '../../mcp/prompt-server.js';
import { serveStdio } from '../../mcp/stdio.js';
import { stablePackLoader } from '../../reload/read.js';
import { SnapshotStore } from '../../reload/store.js';
import { type PackWatcher, watchPack } from '../../reload/watch.js';
import { createLogger, LOG_LEVELS, type LogLevel, logReloads } from '../../server/service/logging.js';
import { envVariable } from '../../source/environment.js';
import { VERSION } from '../../source/version.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, UsageError } from '../io.js';
import { printDiagnostics } from '../pack-options.js';
import { type ReloadFlags, reloadOptions } from '../reload-flags.js';

/** The flags of `strata mcp`. */
export interface McpFlags extends ReloadFlags {
  logLevel?: string;
}

/**
 * Runs `strata mcp` (see `register` in mcp.ts): loads the pack (a pack with errors prints
 * them on stderr and exits 1), watches it, and serves one MCP session on `io.input` and
 * `io.stdout` until the client closes its end or `io.signal` aborts.
 */
export async function runMcp(flags: McpFlags, io: CliIO): Promise<number> {
  // Read first: the bin installs its SIGTERM and SIGINT handlers when the signal is asked for.
  const stop = io.signal;
  const options = reloadOptions(flags, io);
  const level = (flags.logLevel ?? envVariable(io.env, 'STRATA_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  if (!io.input) throw new UsageError('strata mcp reads its client on standard input, and has none');
  const logger = createLogger({ level, write: io.stderr });
  const engine = createEngine({ cacheBytes: options.cacheBytes });
  const store = new SnapshotStore(stablePackLoader({ ...options, engine, quietMs: options.debounceMs }), {
    allowLayerLoss: options.allowLayerLoss,
    strict: options.strict,
    engine,
  });
  const initial = await store.reload('initial');
  printDiagnostics(initial.diagnostics, io);
  if (initial.outcome === 'failed') return EXIT_FAIL;
  logReloads(store, logger);
  let watcher: PackWatcher | undefined;
  if (options.watch && options.dir !== undefined) {
    watcher = watchPack(options.dir, store, {
      debounceMs: options.debounceMs,
      pollMs: options.pollMs,
      onError: (e) => logger.warn({ err: e }, 'watcher error; the poll still runs'),
    });
    await watcher.ready;
  }
  const prompts = createPromptServer({
    source: store,
    version: VERSION,
    bounds: { maxAmbientChars: options.maxQueryAmbient ?? DEFAULT_BOUNDS.maxAmbientChars },
    pageSize: options.mcpPageSize,
    strict: options.strict,
    defaultRole: options.defaultRole,
  });
  logger.info(
    { dir: options.dir ?? null, version: store.state?.snapshot.version, watching: watcher !== undefined },
    'serving MCP on stdio',
  );
  await serveStdio(prompts, {
    input: io.input,
    write: io.stdout,
    maxMessageBytes: options.maxBodyBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    onRefused: (problem) => logger.warn({ problem }, 'a message from the client was refused'),
    ...(stop && { signal: stop }),
  });
  const reason = stop?.aborted ? (typeof stop.reason === 'string' ? stop.reason : 'abort') : 'end of input';
  logger.info({ reason }, 'stopping');
  await watcher?.close();
  await prompts.close();
  return EXIT_OK;
}
