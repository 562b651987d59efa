import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Limits on the sockets of the HTTP server: how many, and how long each phase may take. */
export interface ConnectionLimits {
  /** Open connections at most (default 512). Over it, the oldest idle one is closed; when none is idle, the new one is answered 503 TOO_MANY_CONNECTIONS. */
  maxConnections?: number;
  /** Time to receive a request's headers (default 10 s); past it, 408 and the socket is closed. */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, body included (default 30 s); past it, 408 and the socket is closed. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open (default 5 s). */
  keepAliveTimeoutMs?: number;
  /**
   * Bytes of a request's head at most: the request line (its URL, query included) and the
   * headers (default 16 KiB, Node's own); past it, 431 `HEADERS_TOO_LARGE`.
   */
  maxHeaderBytes?: number;
  /**
   * How long a connection answered before its body was read (a 413, a 415) keeps reading
   * and dropping the rest of that body before it closes (default 2 s); see `linger.ts`.
   */
  lingerTimeoutMs?: number;
  /** Bytes of an unread body such a connection drops at most before it closes (default 16 MiB). */
  maxLingerBytes?: number;
}

export const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = {
  maxConnections: 512,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  lingerTimeoutMs: 2_000,
  maxLingerBytes: 16 * 1024 * 1024,
};

/** The limits given, each one not given at its default. */
export function connectionLimits(limits: ConnectionLimits = {}): Required<ConnectionLimits> {
  return { ...DEFAULT_CONNECTION_LIMITS, ...defined(limits) };
}

/** What the server needs to drain and to tell whether a socket is busy. */
export interface ConnectionGuard {
  /** Call first in the request handler: counts the request, and asks for `Connection: close` while draining. */
  onRequest(req: IncomingMessage, res: ServerResponse): void;
  /** Starts draining: every later response closes its connection; idle connections are closed now. */
  drain(): void;
  /** Open connections now. */
  readonly open: number;
}

/** The `http.createServer` options that carry the limits (the timeout check must run often enough). */
export function serverOptions(limits: ConnectionLimits = {}): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  maxHeaderSize: number;
} {
  const l = connectionLimits(limits);
  const requestTimeout = Math.max(l.requestTimeoutMs, l.headersTimeoutMs);
  return {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    maxHeaderSize: l.maxHeaderBytes,
    // Node checks the two timeouts on this period (30 s by default, too coarse).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(l.headersTimeoutMs / 4))),
  };
}

/**
 * Caps the server's connections. A new connection over the cap closes the oldest
 * connection that has no request in progress (a slow-header client or an idle
 * keep-alive socket), so a flood of idle sockets cannot lock out a health probe; when
 * every connection is busy, the new one is answered 503 `TOO_MANY_CONNECTIONS`.
 *
 * @example
 * const server = createServer(serverOptions(limits), handler);
 * const guard = guardConnections(server, limits); // handler calls guard.onRequest(req, res) first
 */
export function guardConnections(server: Server, limits: ConnectionLimits = {}): ConnectionGuard {
  const max = limits.maxConnections ?? DEFAULT_CONNECTION_LIMITS.maxConnections;
  const active = new Map<Socket, number>(); // socket → requests in progress; insertion order = age
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  server.on('connection', (socket: Socket) => {
    active.set(socket, 0);
    socket.once('close', () => active.delete(socket));
    if (active.size <= max) return;
    for (const [old, busy] of active) {
      if (busy === 0 && old !== socket) {
        old.destroy();
        active.delete(old);
        return;
      }
    }
    active.delete(socket);
    socket.end(TOO_MANY);
  });
  return {
    onRequest(req, res) {
      const socket = req.socket;
      active.set(socket, (active.get(socket) ?? 0) + 1);
      inFlight.add(res);
      res.once('close', () => {
        inFlight.delete(res);
        const n = active.get(socket);
        if (n !== undefined) active.set(socket, Math.max(0, n - 1));
      });
      if (draining) res.setHeader('Connection', 'close');
    },
    drain() {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      server.closeIdleConnections();
    },
    get open() {
      return active.size;
    },
  };
}

// --- internal ---

const TOO_MANY_BODY = JSON.stringify({
  error: { code: 'TOO_MANY_CONNECTIONS', message: 'too many open connections; try again' },
});
const TOO_MANY =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n' +
  `Retry-After: 1\r\nContent-Length: ${Buffer.byteLength(TOO_MANY_BODY)}\r\n\r\n${TOO_MANY_BODY}`;

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
