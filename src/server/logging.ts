import pino, { type Logger } from 'pino';
import { formatDiagnostic } from '../diagnostics.js';
import type { SnapshotStore } from '../reload/store.js';

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
  const opts = { level: options.level ?? 'info', base: { service: 'strata' }, timestamp: pino.stdTimeFunctions.isoTime };
  return options.write ? pino(opts, { write: options.write }) : pino(opts);
}

/** Logs the store's reloads: new versions at info, failed reloads at error (once per distinct failure). */
export function logReloads(store: SnapshotStore, logger: Logger): () => void {
  return store.subscribe((event) => {
    switch (event.type) {
      case 'reload':
        logger.info(
          { version: event.version, previous: event.previous ?? null, changed: event.changed, trigger: event.trigger },
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
    }
  });
}
