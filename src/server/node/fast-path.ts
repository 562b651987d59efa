import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PackState } from '../../reload/store.js';
import { errorAnswerOf } from '../app.js';
import {
  type BodyText,
  jsonProblem,
  plainJsonBody,
  readIncomingText,
  stashBody,
} from '../middleware/body.js';
import { appendCommonHeaders } from '../middleware/headers.js';
import { hostParses, hostRefusal } from '../middleware/host.js';
import { parseQuery, queryProblem } from '../middleware/query.js';
import { isAnswer } from '../middleware/snapshot.js';
import { type Answer, rawHeaders } from '../service/answer.js';
import type { Service } from '../service/context.js';
import { type AccessLine, type RequestId, requestId, writeAccessLines } from '../service/logging.js';
import type { RouteTable, TableRoute } from '../service/route-table.js';
import { AnswerMemo, type Kept } from './answer-memo.js';

/**
 * The node server's direct path: a request whose route in the app's routing table has a
 * direct handler (the prompt routes, `POST /api/compose`, liveness and readiness) goes
 * through the app's own steps — the Host check, the query parsed once and checked
 * against the route, a POST's body read within the limit — as plain functions, then the
 * route's handler, which answers through the same function as the app's handler, and the
 * answer is written with the headers every answer carries (`commonHeaders`). Metrics and
 * the access-log line are the app's too. What the direct path does not take — another
 * route, a refused Host, a query or path the app refuses, a body that is not plain JSON —
 * returns false before anything is read, and the app answers it; a handler that leaves
 * a request it was given (none does now) hands it to `fallback`, with its body.
 *
 * @example
 * const fast = createFastPath(strataApp.service, routeTable(strataApp.app), appListener);
 * createServer((req, res) => fast(req, res) || appListener(req, res));
 */
export function createFastPath(
  service: Service,
  table: RouteTable,
  fallback: (req: IncomingMessage, res: ServerResponse) => unknown,
): FastPath {
  // Metrics and access-log lines are recorded after the answer is sent and written out
  // together once the current batch of socket events is handled (setImmediate): the
  // same lines and counts, at a fraction of the per-request cost.
  const pending: Taken[] = [];
  const flush = () => {
    const logging = service.logger.isLevelEnabled('info');
    const lines: AccessLine[] = [];
    for (const r of pending) {
      service.metrics.request(r.route.label, r.method, r.status, r.seconds);
      if (logging)
        lines.push({
          reqId: r.id,
          method: r.method,
          path: r.path,
          route: r.route.label,
          status: r.status,
          ms: r.seconds * 1000,
        });
    }
    if (logging) writeAccessLines(service.logger, lines);
    pending.length = 0;
  };
  const send = (req: IncomingMessage, res: ServerResponse, took: Taken, answer: Answer) => {
    const raw = appendCommonHeaders(rawHeaders(answer).slice(), {
      id: took.id,
      cors: service.cors,
      origin: one(req.headers.origin),
    });
    res.writeHead(answer.status, raw);
    // HEAD: the same headers (Content-Length included), no body.
    res.end(took.method === 'HEAD' ? undefined : answer.body);
    took.status = answer.status;
    took.seconds = (performance.now() - took.startedAt) / 1000;
    if (pending.length === 0) setImmediate(flush);
    pending.push(took);
  };
  // A handler that throws is answered as the app answers it (logged, 500 INTERNAL).
  const failed = (took: Taken, e: unknown): Answer => errorAnswerOf(e, service, took.id);
  const memo = new AnswerMemo();
  /** Answers with a kept answer, recording what its handler recorded. */
  const again = (
    req: IncomingMessage,
    res: ServerResponse,
    kept: Kept,
    method: string,
    path: string,
    startedAt: number,
  ) => {
    kept.answer.again!();
    const id = requestId(one(req.headers['x-request-id']));
    const took: Taken = {
      route: kept.route,
      params: NO_PARAMS,
      query: NO_PAIRS,
      method,
      path,
      startedAt,
      id,
      status: 0,
      seconds: 0,
    };
    send(req, res, took, kept.answer);
  };
  /** Answers through the route's handler; an answer it may give again is offered to the memo. */
  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    took: Taken,
    state: PackState | undefined,
    key: string | undefined,
    body?: BodyText,
  ) => {
    const keep = (a: Answer) => {
      if (key !== undefined && a.again) memo.offer(key, state!, took.route, a);
      send(req, res, took, a);
    };
    let answered: Answer | Promise<Answer> | undefined;
    try {
      answered = took.route.direct!({
        method: took.method,
        params: took.params,
        query: took.query,
        headers: req.headers,
        body: body?.text,
        service,
        startedAt: took.startedAt,
      });
    } catch (e) {
      answered = failed(took, e);
    }
    if (answered === undefined) {
      if (body) stashBody(req, body);
      return void fallback(req, res);
    }
    if (isAnswer(answered)) return keep(answered);
    answered.then(keep, (e) => send(req, res, took, failed(took, e)));
  };

  const fast = (req: IncomingMessage, res: ServerResponse): boolean => {
    const startedAt = performance.now();
    const { method, url } = req;
    if (url === undefined || method === undefined) return false;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    // The app's Host step (a Host left out by HTTP/1.0 is the app's: it judges the bound address).
    const host = req.headers.host;
    if (host === undefined) return false;
    const refused = hostRefusal(service, {
      method,
      host,
      target: hostParses(host) ? host : undefined,
      origin: one(req.headers.origin),
      path,
    });
    if (refused) return false; // the app answers it, as it answers every refusal
    // A request asked before in the same state of the store: its answer, at once.
    const state = service.store.state;
    const key = method === 'POST' ? undefined : memo.key(method, url, req.headers, state);
    const kept = key === undefined ? undefined : memo.get(key, state!);
    if (kept) {
      again(req, res, kept, method, path, startedAt);
      return true;
    }
    const found = table.direct(method, path);
    if (!found) return false;
    // The app's query step; a query it refuses (or with a fragment) is the app's to answer.
    let query: ReadonlyArray<readonly [string, string]> = NO_PAIRS;
    if (q !== -1) {
      const raw = url.slice(q + 1);
      const parsed = raw.includes('#') ? undefined : parseQuery(raw);
      if (parsed === undefined || 'bad' in parsed || queryProblem(table, method, path, parsed)) return false;
      query = parsed;
    }
    // The request as taken: made once a request is answered by its handler (a POST's
    // kept answer is given again with a record of its own).
    const take = (): Taken => ({
      route: found.route,
      params: found.params,
      query,
      method,
      path,
      startedAt,
      id: requestId(one(req.headers['x-request-id'])),
      status: 0,
      seconds: 0,
    });
    if (method !== 'POST') {
      answer(req, res, take(), state, key);
      return true;
    }
    // The app's body step, for a plain JSON body (anything else: the app, unread).
    const header = (name: string) => one(req.headers[name]);
    if (!plainJsonBody(header)) return false;
    readIncomingText(req, res, header, service.maxBodyBytes, (read) => {
      let took: Taken | undefined;
      try {
        if ('status' in read) {
          took = take();
          return send(req, res, took, read);
        }
        // A body answered before passed the JSON check then (the same text, the same verdict).
        const key = memo.key(method, url, req.headers, state, read.text);
        const kept = key === undefined ? undefined : memo.get(key, state!);
        if (kept) return again(req, res, kept, method, path, startedAt);
        took = take();
        const problem = jsonProblem(read);
        if (problem) return send(req, res, took, problem);
        answer(req, res, took, state, key, read);
      } catch (e) {
        // Called from the request's own events: a fault is answered, never thrown into them.
        took ??= take();
        if (!res.headersSent) send(req, res, took, failed(took, e));
        else res.destroy();
      }
    });
    return true;
  };
  return Object.assign(fast, { flush });
}

/** The fast path: answers and returns true, or returns false for the app to answer. */
export interface FastPath {
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** Writes out the metrics and log lines of answered requests now (on shutdown). */
  flush(): void;
}

// --- internal ---

const NO_PAIRS: ReadonlyArray<readonly [string, string]> = [];
const NO_PARAMS: Record<string, string> = {};

/** A request the direct path took: its route, parameters and query, as read; then its answer's record. */
interface Taken {
  route: TableRoute;
  params: Record<string, string>;
  query: ReadonlyArray<readonly [string, string]>;
  method: string;
  path: string;
  startedAt: number;
  /** The request's id (the caller's `X-Request-Id` when it is sane). */
  id: RequestId;
  /** Once answered: the status, and the seconds it took (for the metrics and access log). */
  status: number;
  seconds: number;
}

/** One value of a request header (repeated headers joined as HTTP joins them). */
function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
