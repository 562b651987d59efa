import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Limits on the sockets of the HTTP server: how many, and how long each phase may take. */
export interface ConnectionLimits {
  /**
   * Open connections at most (default 512). Over it, the oldest idle one is closed; when
   * none is idle, the oldest whose request body is still arriving (a slow body); when
   * none is, the new one is kept in the probe reserve, else answered 503
   * TOO_MANY_CONNECTIONS.
   */
  maxConnections?: number;
  /**
   * Connections kept beyond `maxConnections` for liveness and readiness probes (default
   * 8): when every connection is busy, a new one may still ask `/healthz` or `/readyz`;
   * any other request on it is answered 503 TOO_MANY_CONNECTIONS.
   */
  probeConnections?: number;
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
  /**
   * Requests in progress on one connection at most (default 64): HTTP/1.1 pipelining sends
   * requests without waiting for answers, and Node parses every request of a read (a 64 KB
   * read holds a thousand) while the client reads nothing. A connection with more is
   * closed, its requests dropped (`strata_connections_shed_total{reason="pipelined"}`).
   */
  maxPipelined?: number;
}

export const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = {
  maxConnections: 512,
  probeConnections: 8,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  lingerTimeoutMs: 2_000,
  maxLingerBytes: 16 * 1024 * 1024,
  maxPipelined: 64,
};

/**
 * The limits given, each one not given at its default. A limit that is no whole number of
 * at least 1 (`probeConnections`: 0) is a `RangeError`, as the `serve` flags refuse it:
 * NaN, 0 or a fraction would turn a bound off or shut every connection out.
 */
export function connectionLimits(limits: ConnectionLimits = {}): Required<ConnectionLimits> {
  const given = defined(limits);
  for (const [key, value] of Object.entries(given) as [keyof ConnectionLimits, unknown][]) {
    if (!(key in DEFAULT_CONNECTION_LIMITS)) continue;
    const least = key === 'probeConnections' ? 0 : 1;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least)
      throw new RangeError(
        `connections.${key} must be a whole number of at least ${least}, not ${String(value)}`,
      );
  }
  return { ...DEFAULT_CONNECTION_LIMITS, ...given };
}

/** What the server needs to drain and to tell whether a socket is busy. */
export interface ConnectionGuard {
  /**
   * Call first in the request handler: counts the request, and asks for `Connection:
   * close` while draining. Returns true when it answered the request itself (a request
   * other than a probe on a probe-reserve connection: 503).
   */
  onRequest(req: IncomingMessage, res: ServerResponse): boolean;
  /** Starts draining: every later response closes its connection; idle connections are closed now. */
  drain(): void;
  /** Open connections now. */
  readonly open: number;
  /** Open connections of the probe reserve now. */
  readonly reserve: number;
  /** Requests in progress now (received, not yet answered whole). */
  readonly requests: number;
}

/** Why the guard closed or refused a connection (`strata_connections_shed_total{reason}`). */
export type ShedReason = 'idle' | 'slow_body' | 'slow_headers' | 'refused' | 'not_probe' | 'pipelined';

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
 * Caps the server's connections, so a flood of sockets cannot lock out a health probe. A
 * new connection over the cap closes, in this order: the oldest idle keep-alive
 * connection (its requests answered, none in progress); else the oldest whose request's
 * body is still arriving (a slow body, answered 503 before it is closed); else the oldest
 * that has sent no request yet (slow headers; a probe that just connected is the newest,
 * so it stays); else, while the probe reserve has room, the new one is kept for probes
 * only (`/healthz`, `/readyz`: any other request on it is answered 503); else it is
 * answered 503 `TOO_MANY_CONNECTIONS`. A kubelet's probe is answered however the
 * connections are held: idle, sending slowly, or busy (open event streams).
 *
 * @example
 * const server = createServer(serverOptions(limits), handler);
 * const guard = guardConnections(server, limits); // handler: if (guard.onRequest(req, res)) return;
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits = {},
  onShed: (reason: ShedReason) => void = () => {},
): ConnectionGuard {
  const checked = connectionLimits(limits);
  const max = checked.maxConnections;
  const reserveMax = checked.probeConnections;
  const maxPipelined = checked.maxPipelined;
  const active = new Map<Socket, Held>(); // insertion order = age
  const inFlight = new Set<ServerResponse>();
  let reserved = 0;
  let draining = false;
  const forget = (socket: Socket) => {
    const held = active.get(socket);
    if (!held) return;
    active.delete(socket);
    if (held.reserve) reserved--;
  };
  server.on('connection', (socket: Socket) => {
    const held: Held = { busy: 0, seen: 0, reserve: false, request: undefined, responses: new Set() };
    active.set(socket, held);
    socket.once('close', () => {
      forget(socket);
      // Node emits no 'close' for the answers of pipelined requests still queued behind
      // one the client was not reading when its connection went: they are let go here
      // (each kept its request, answer and socket for good: a client pipelining a
      // thousand requests and leaving grew the heap by megabytes each time).
      for (const res of held.responses) inFlight.delete(res);
      held.responses.clear();
    });
    if (active.size - reserved <= max) return;
    // Over the cap: the oldest idle keep-alive connection goes first, then the oldest
    // slow body, then the oldest connection that has sent no request yet (slow headers).
    const victim =
      oldest(active, socket, (h) => h.busy === 0 && h.seen > 0 && !h.reserve) ??
      oldest(active, socket, (h) => h.busy > 0 && h.request !== undefined && !h.request.complete) ??
      oldest(active, socket, (h) => h.busy === 0 && h.seen === 0 && !h.reserve);
    if (victim) {
      const [old, why] = victim;
      forget(old);
      if (why === 'slow_body') old.end(SLOW_BODY, () => old.destroy());
      else old.destroy();
      return onShed(why);
    }
    if (reserved < reserveMax) {
      active.get(socket)!.reserve = true;
      reserved++;
      return;
    }
    forget(socket);
    socket.end(TOO_MANY);
    onShed('refused');
  });
  // A response closed (sent whole, or its connection gone): one function for every response.
  function answered(this: ServerResponse) {
    inFlight.delete(this);
    const req = this.req;
    const h = active.get(req.socket);
    if (h) {
      h.responses.delete(this);
      h.busy = Math.max(0, h.busy - 1);
      if (h.request === req) h.request = undefined;
    }
  }
  return {
    onRequest(req, res) {
      const socket = req.socket;
      // A request Node parsed from a connection already closed (below, or by the client):
      // nobody will read its answer, so no work is done for it.
      if (socket.destroyed) return true;
      const held = active.get(socket);
      if (held && held.busy >= maxPipelined) {
        onShed('pipelined');
        socket.destroy();
        return true;
      }
      if (held) {
        held.busy++;
        held.seen++;
        held.request = req;
        held.responses.add(res);
      }
      inFlight.add(res);
      res.on('close', answered);
      if (draining) res.setHeader('Connection', 'close');
      if (held?.reserve && !isProbe(req)) {
        onShed('not_probe');
        res.writeHead(503, TOO_MANY_HEADERS);
        res.end(TOO_MANY_BODY);
        return true;
      }
      return false;
    },
    drain() {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      server.closeIdleConnections();
    },
    get open() {
      return active.size;
    },
    get reserve() {
      return reserved;
    },
    get requests() {
      return inFlight.size;
    },
  };
}

// --- internal ---

/** What the guard knows of an open connection. */
interface Held {
  /** Requests in progress on it. */
  busy: number;
  /** Requests it has sent. */
  seen: number;
  /** Kept beyond the cap for probes only. */
  reserve: boolean;
  /** Its latest request, while in progress. */
  request: IncomingMessage | undefined;
  /** The answers of its requests in progress (let go when the connection closes). */
  responses: Set<ServerResponse>;
}

/**
 * The oldest connection (but `except`) of those `which` picks, with why it goes: the first
 * test is an idle keep-alive, the second a slow body, the third slow headers.
 */
function oldest(
  active: Map<Socket, Held>,
  except: Socket,
  which: (held: Held) => boolean,
): [Socket, ShedReason] | undefined {
  for (const [socket, held] of active) {
    if (socket === except || !which(held)) continue;
    const why: ShedReason = held.busy > 0 ? 'slow_body' : held.seen > 0 ? 'idle' : 'slow_headers';
    return [socket, why];
  }
  return undefined;
}

/** A liveness or readiness probe: the requests a probe-reserve connection may make. */
function isProbe(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url ?? '';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path === '/healthz' || path === '/readyz';
}

const TOO_MANY_BODY = JSON.stringify({
  error: { code: 'TOO_MANY_CONNECTIONS', message: 'too many open connections; try again' },
});
const TOO_MANY_HEADERS = {
  'Content-Type': 'application/json',
  Connection: 'close',
  'Retry-After': '1',
  'Content-Length': String(Buffer.byteLength(TOO_MANY_BODY)),
};
const TOO_MANY = rawAnswer(TOO_MANY_BODY);
const SLOW_BODY = rawAnswer(
  JSON.stringify({
    error: {
      code: 'TOO_MANY_CONNECTIONS',
      message:
        "the connection cap was reached while this request's body was still arriving, the oldest such: its connection was closed to make room; try again",
    },
  }),
);

function rawAnswer(body: string): string {
  return (
    'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n' +
    `Retry-After: 1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
