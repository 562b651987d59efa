import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { formatDiagnostic } from '../../core/text/diagnostics.js';
import type { SnapshotStore } from '../../reload/store.js';
import { jsonString } from './json-string.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * A JSON-lines logger (pino) writing to `write` (default: stdout), with ISO timestamps
 * and `service: "strata"` on every line.
 *
 * @example
 * const logger = createLogger({ level: 'info', write: (line) => process.stdout.write(line) });
 */
export function createLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const opts = {
    level: options.level ?? 'info',
    base: { service: 'strata' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.write ? pino(opts, { write: options.write }) : pino(opts);
}

/** A line writer that batches writes (one write per 16 KiB or 100 ms, and on flush). */
export interface BufferedWriter {
  write(line: string): void;
  /** Writes out what is buffered (call on shutdown). */
  flush(): void;
}

/**
 * Batches log lines before handing them to `write`: one write per request would cost a
 * system call each; this costs one per batch. Lines are at most `flushMs` late.
 */
export function bufferedWriter(
  write: (text: string) => void,
  options: { maxBytes?: number; flushMs?: number } = {},
): BufferedWriter {
  const maxBytes = options.maxBytes ?? 16 * 1024;
  const flushMs = options.flushMs ?? 100;
  let buffer = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer === '') return;
    const text = buffer;
    buffer = '';
    write(text);
  };
  return {
    write(line) {
      buffer += line;
      if (buffer.length >= maxBytes) flush();
      else if (!timer) {
        timer = setTimeout(flush, flushMs);
        timer.unref?.();
      }
    },
    flush,
  };
}

/**
 * A request's id: letters, digits and `_.:-` only (a UUID or a sane caller's id), so it
 * is written into a JSON line as it is, with no escaping.
 */
export type RequestId = string & { readonly requestId: unique symbol };

/** The request id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
export function requestId(given: string | undefined): RequestId {
  return (given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID()) as RequestId;
}

/** One access-log line (health, readiness and metrics scrapes at debug). */
export function logRequest(
  logger: Logger,
  line: { reqId: string; method: string; path: string; route: string; status: number; ms: number },
): void {
  const quiet = line.route === '/healthz' || line.route === '/readyz' || line.route === '/metrics';
  if (!logger.isLevelEnabled(quiet ? 'debug' : 'info')) return;
  line.ms = Math.round(line.ms * 100) / 100;
  logger[quiet ? 'debug' : 'info'](line, 'request');
}

export type AccessLine = {
  reqId: RequestId;
  method: string;
  path: string;
  route: string;
  status: number;
  ms: number;
};

/**
 * Writes many info-level access lines at once, byte for byte as {@link logRequest} would
 * (pino's level, time and bindings, then the fields, then `msg`), in one write straight to
 * the logger's destination: the hot path's lines without pino's per-call work. A field
 * is quoted as `JSON.stringify` quotes it, without its work when it needs no escaping (a
 * request id never does; a method, path or route the same as the line before's is
 * quoted once). Falls back to {@link logRequest} for a logger without a plain destination.
 */
export function writeAccessLines(logger: Logger, lines: readonly AccessLine[]): void {
  if (lines.length === 0 || !logger.isLevelEnabled('info')) return;
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write?: (s: string) => void } | undefined;
  const time = internals[pino.symbols.timeSym] as (() => string) | undefined;
  const bindings = internals[pino.symbols.chindingsSym];
  if (typeof stream?.write !== 'function' || typeof time !== 'function' || typeof bindings !== 'string') {
    for (const line of lines) logRequest(logger, line);
    return;
  }
  const head = `{"level":${logger.levels.values.info}${time()}${bindings},"reqId":"`;
  const method = new Quoted();
  const path = new Quoted();
  const route = new Quoted();
  let text = '';
  for (const l of lines) {
    text += `${head}${l.reqId}","method":${method.of(l.method)},"path":${path.of(l.path)},"route":${route.of(l.route)},"status":${l.status},"ms":${hundredths(l.ms)},"msg":"request"}\n`;
  }
  stream.write(text);
}

/** Logs the store's reloads: new versions at info, failed reloads at error (once per distinct failure). */
export function logReloads(store: SnapshotStore, logger: Logger): () => void {
  return store.subscribe((event) => {
    switch (event.type) {
      case 'reload':
        logger.info(
          {
            version: event.version,
            previous: event.previous ?? null,
            changed: event.changed,
            trigger: event.trigger,
            ...(event.degradation
              ? { accepted: true, degraded: event.degradation.members.map((m) => m.label) }
              : {}),
          },
          'pack loaded',
        );
        break;
      case 'error':
        logger.error(
          {
            serving: event.version ?? null,
            trigger: event.trigger,
            diagnostics: event.diagnostics.map(formatDiagnostic),
          },
          event.version ? 'reload failed; still serving the last good version' : 'pack has errors',
        );
        break;
      case 'recovered':
        logger.info({ version: event.version, trigger: event.trigger }, 'reload recovered');
        break;
      case 'held':
        logger.warn(
          {
            serving: event.version,
            held: event.held.version,
            trigger: event.held.trigger,
            members: event.held.report.members.map((m) => m.label),
            layers: event.held.report.layers,
            diagnostics: event.held.diagnostics.map(formatDiagnostic),
          },
          'new version held: it would degrade members; still serving the last good version',
        );
        break;
    }
  });
}

// --- internal ---

/** Strings quoted as `JSON.stringify` quotes them; the last one kept (lines of a batch repeat them). */
class Quoted {
  #last: string | undefined;
  #quoted = '';

  of(s: string): string {
    if (s !== this.#last) {
      this.#last = s;
      this.#quoted = jsonString(s);
    }
    return this.#quoted;
  }
}

/** `Math.round(ms * 100) / 100` as JavaScript writes it (`12`, `12.5`, `12.05`), without a float's formatting. */
function hundredths(ms: number): string {
  const c = Math.round(ms * 100);
  if (!(c >= 0 && c < 1e15)) return String(c / 100);
  const whole = Math.floor(c / 100);
  const part = c - whole * 100;
  if (part === 0) return `${whole}`;
  if (part % 10 === 0) return `${whole}.${part / 10}`;
  return `${whole}.${part < 10 ? '0' : ''}${part}`;
}
