import type { Writable } from 'node:stream';

/**
 * A writer for one of the process's output streams that survives the reader going away.
 * When the stream fails (`EPIPE`: `strata roles | head -1`, a log collector that
 * restarted; any other write error), later writes are dropped instead of the stream's
 * `error` event ending the process with a stack trace: a one-shot command finishes with
 * its own exit status, and `strata serve` keeps serving with its log lines dropped.
 *
 * @example
 * const stdout = streamWriter(process.stdout);
 * stdout('text\n'); // never throws, never crashes the process
 */
export function streamWriter(stream: Writable): (text: string) => void {
  let failed = stream.destroyed || stream.writableEnded;
  // One listener for the stream's life: an error after a failed write is expected too.
  stream.on('error', () => {
    failed = true;
  });
  return (text) => {
    if (failed || stream.destroyed) return;
    stream.write(text);
  };
}
