import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { RequestError } from '@hono/node-server';
import { commonHeaders } from '../middleware/headers.js';
import type { ErrorBody, HttpErrorCode } from '../service/errors.js';

/**
 * Answers for requests the app never sees, as coded JSON errors with the security headers
 * instead of a bare status line: what Node's HTTP parser refuses (a malformed request
 * line or header, headers over Node's limit, a request that took too long) and what the
 * adapter cannot turn into a `Request` (an HTTP/1.1 request without `Host`, a `Host` with
 * a bad port, a backslash in the path, a target that is not a path).
 *
 * @example
 * server.on('clientError', answerClientError);
 * getRequestListener(app.fetch, { errorHandler: unreadableRequest });
 */
export function answerClientError(
  err: Error & { code?: string },
  socket: Duplex,
  maxHeaderBytes = 16 * 1024,
): void {
  // As Node's own handler: nothing to answer on a socket that is gone or has begun an answer.
  const busy = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  const [status, code, message] = clientErrorAnswer(err, maxHeaderBytes);
  socket.end(rawAnswer(status, code, message));
}

/**
 * The answer to a `CONNECT` request (the server's `connect` event, which Node otherwise
 * answers by closing the socket without a word): 405 `METHOD_NOT_ALLOWED`, as every
 * other method no route takes.
 */
export function refuseConnect(req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => {});
  socket.end(
    rawAnswer(405, 'METHOD_NOT_ALLOWED', `CONNECT is not allowed on ${req.url ?? ''}: strata is no proxy`),
  );
}

/**
 * The answer to a request the adapter could not build (`RequestError`: 400
 * `BAD_REQUEST` saying why), or to a handler that threw (500 `INTERNAL`).
 */
export function unreadableRequest(err: unknown): Response {
  const [status, code, message]: [number, HttpErrorCode, string] =
    err instanceof RequestError
      ? [400, 'BAD_REQUEST', `the request cannot be read: ${err.message}`]
      : [500, 'INTERNAL', 'the request failed inside the service'];
  const headers = new Headers({ 'Content-Type': 'application/json', Connection: 'close' });
  for (const [name, value] of commonHeaders()) headers.set(name, value);
  return new Response(JSON.stringify({ error: { code, message } } satisfies ErrorBody), { status, headers });
}

/**
 * HTTP/1.1 requires one `Host` header (RFC 9112 §3.2): a request without one is answered
 * 400 `BAD_REQUEST` here (the server is created with `requireHostHeader: false`, so that
 * Node does not answer it with a bare status line). HTTP/1.0 requests may leave it out
 * (old health checkers do): the app then judges the address the service is bound to.
 * Returns true when it answered.
 */
export function refuseMissingHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.host !== undefined || req.httpVersionMajor !== 1 || req.httpVersionMinor === 0)
    return false;
  writeError(res, 400, 'BAD_REQUEST', 'an HTTP/1.1 request must have a Host header');
  return true;
}

/**
 * A request with more than one `Host` (RFC 9112 §3.2) or `Content-Type` (a field of one
 * value, RFC 9110 §5.3) is answered 400 `BAD_REQUEST` naming the field. Node keeps the
 * first of each in `headers` and the Fetch adapter joins them all, so the node server's
 * direct path and the app judged different values: a second Host could pass the Host
 * check on one path and not the other, and a body sent as `application/json` then
 * `text/plain` was composed on one and refused 415 on the other.
 * Returns true when it answered.
 */
export function refuseRepeatedFields(req: IncomingMessage, res: ServerResponse): boolean {
  let hosts = 0;
  let types = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
    else if (name.length === 12 && name.toLowerCase() === 'content-type') types++;
  }
  if (hosts <= 1 && types <= 1) return false;
  const [field, count] = hosts > 1 ? ['Host', hosts] : ['Content-Type', types];
  writeError(res, 400, 'BAD_REQUEST', `a request must have one ${field} header, not ${count}`);
  return true;
}

/**
 * `OPTIONS *` asks about the server, not a resource (RFC 9110 §9.3.7): answered 204 with
 * the methods some route takes in `Allow` (the adapter cannot build a URL from `*`, and
 * answered 400). Any other method with the target `*` is left to the adapter's 400.
 * Returns true when it answered.
 */
export function answerServerOptions(req: IncomingMessage, res: ServerResponse, allow: string): boolean {
  if (req.url !== '*' || req.method !== 'OPTIONS') return false;
  res.writeHead(204, ['Allow', allow, ...commonHeaders().flat()]);
  res.end();
  return true;
}

/**
 * The answer to an `Expect` header other than `100-continue` (the server's
 * `checkExpectation` event): 417 `EXPECTATION_FAILED`, as a coded JSON error.
 */
export function refuseExpectation(req: IncomingMessage, res: ServerResponse): void {
  const expect = String(req.headers.expect ?? '');
  writeError(
    res,
    417,
    'EXPECTATION_FAILED',
    `Expect: ${JSON.stringify(expect).slice(1, -1)} is not supported (only 100-continue)`,
  );
}

// --- internal ---

/** A whole HTTP/1.1 answer, for a socket no response object owns. */
function rawAnswer(status: number, code: HttpErrorCode, message: string): string {
  const body = JSON.stringify({ error: { code, message } } satisfies ErrorBody);
  const headers = [
    `HTTP/1.1 ${status} ${REASONS[status]}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...commonHeaders().map(([name, value]) => `${name}: ${value}`),
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

function writeError(res: ServerResponse, status: number, code: HttpErrorCode, message: string): void {
  const body = JSON.stringify({ error: { code, message } } satisfies ErrorBody);
  res.writeHead(status, [
    'Content-Type',
    'application/json',
    'Content-Length',
    String(Buffer.byteLength(body)),
    'Connection',
    'close',
    ...commonHeaders().flat(),
  ]);
  res.end(body);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
};

function clientErrorAnswer(
  err: Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown },
  maxHeaderBytes: number,
): [number, HttpErrorCode, string] {
  const { code } = err;
  if (code === 'HPE_INVALID_METHOD') {
    const method = unknownMethod(err.rawPacket, err.bytesParsed);
    if (method !== undefined)
      return [
        501,
        'NOT_IMPLEMENTED',
        `the method ${method} is not one strata implements (methods are case-sensitive); OPTIONS * lists those some route takes`,
      ];
  }
  if (code === 'HPE_HEADER_OVERFLOW')
    return [
      431,
      'HEADERS_TOO_LARGE',
      `the request line and headers are over ${maxHeaderBytes} bytes (serve --max-header-bytes); a long URL counts: send long ambient text with POST /api/compose`,
    ];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    // Node says the same for both deadlines: name each with its flag.
    return [
      408,
      'REQUEST_TIMEOUT',
      'the request was not received in time: its line and headers within serve --headers-timeout, all of it within serve --request-timeout',
    ];
  return [400, 'BAD_REQUEST', `the request is not valid HTTP/1.1 (${code ?? 'parse error'})`];
}

/**
 * The method of a request line Node's parser refused as no method it knows (`FOO`, `get`;
 * Node's parser knows a fixed list): RFC 9110 §9.1 answers a method the server does not
 * recognise 501, where a request line that is no `token SP …` is malformed (400). The
 * line begins after the last line feed before where the parser stopped (a request
 * pipelined behind another begins there); a method longer than 32 characters is shown
 * cut.
 */
function unknownMethod(packet: unknown, parsed: unknown): string | undefined {
  if (!Buffer.isBuffer(packet) || typeof parsed !== 'number') return undefined;
  const start = packet.lastIndexOf(0x0a, Math.max(parsed - 1, 0)) + 1;
  const line = packet.subarray(start, start + 256).toString('latin1');
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) /.exec(line);
  if (!match) return undefined;
  const method = match[1]!;
  return method.length > 32 ? `${method.slice(0, 32)}…` : method;
}
