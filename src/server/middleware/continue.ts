import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue` answered only when the body is read. Node sends `100 Continue`
 * as soon as a request arrives unless the server listens to `checkContinue`; the service
 * does, marks the request with {@link deferContinue}, and the body reader sends the
 * `100 Continue` ({@link continueBody}) when it begins to read. A request answered without
 * reading its body (over the size limit, compressed, no such route, a Host refused) gets
 * its final answer instead, so the client never sends a body nobody reads, and never sees
 * the connection reset under an upload it was invited to send (curl then reported no
 * answer at all in a third of its tries).
 *
 * @example
 * server.on('checkContinue', (req, res) => {
 *   deferContinue(req);
 *   server.emit('request', req, res);
 * });
 */
export function deferContinue(req: IncomingMessage): void {
  waiting.add(req);
}

/** Sends the `100 Continue` a deferred request waits for (once; nothing for any other request). */
export function continueBody(req: IncomingMessage, res: ServerResponse | undefined): void {
  if (!waiting.delete(req) || res === undefined || res.headersSent || res.writableEnded) return;
  res.writeContinue();
}

// --- internal ---

const waiting = new WeakSet<IncomingMessage>();
