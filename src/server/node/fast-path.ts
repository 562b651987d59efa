import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import type { RouteTable, TableRoute } from '../routes/route-table.js';
import type { Service } from '../service/context.js';
import { type AccessLine, requestId, writeAccessLines } from '../service/logging.js';

/**
 * The node server's direct path: a `GET` or `HEAD` whose route in the app's routing table
 * has a direct handler (cached prompts, liveness) is answered by that handler — the same
 * status, headers, body, metrics and access log as the app — without hono's routing,
 * middleware and validation. Anything else, or a request the handler leaves (a cache
 * miss, an unusual query, a Host not allowed), returns false and goes to the app. The
 * routes, their patterns and their handlers are the app's own ({@link RouteTable}).
 *
 * @example
 * const fast = createFastPath(strataApp.service, routeTable(strataApp.app));
 * createServer((req, res) => fast(req, res) || appListener(req, res));
 */
export function createFastPath(service: Service, table: RouteTable): FastPath {
  // Metrics and access-log lines are recorded after the answer is sent and written out
  // together once the current batch of socket events is handled (setImmediate): the
  // same lines and counts, at a fraction of the per-request cost.
  const pending: AccessRecord[] = [];
  const flush = () => {
    const lines: AccessLine[] = [];
    for (const r of pending) {
      if (r.composed) {
        service.metrics.compose(r.route.path, 'ok', r.seconds);
        if (r.composed.length > 0) service.metrics.warnings(r.route.path, r.composed);
      }
      service.metrics.request(r.route.label, r.method, r.status, r.seconds);
      lines.push({
        reqId: r.id,
        method: r.method,
        path: r.path,
        route: r.route.label,
        status: r.status,
        ms: r.seconds * 1000,
      });
    }
    writeAccessLines(service.logger, lines);
    pending.length = 0;
  };
  const fast = (req: IncomingMessage, res: ServerResponse): boolean => {
    const started = performance.now();
    const { method, url } = req;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined) return false;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const found = table.direct(method, path);
    if (!found) return false;
    if (!service.hosts.allowsHost(req.headers.host)) return false; // the app answers 403
    const answer = found.route.direct!({
      method,
      params: found.params,
      query: q === -1 ? '' : url.slice(q + 1),
      headers: req.headers,
      service,
    });
    if (!answer) return false;

    const id = requestId(header(req.headers['x-request-id']));
    const raw = [...answer.headers, 'x-request-id', id];
    if (service.cors.enabled) for (const pair of service.cors.headers(req.headers.origin)) raw.push(...pair);
    res.writeHead(answer.status, raw);
    // HEAD: the same headers (Content-Length included), no body.
    res.end(method === 'HEAD' ? undefined : answer.body);

    if (pending.length === 0) setImmediate(flush);
    pending.push({
      route: found.route,
      path,
      method,
      status: answer.status,
      seconds: (performance.now() - started) / 1000,
      id,
      composed: answer.composed,
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

/** One value of a request header (repeated headers joined as HTTP joins them). */
export function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

// --- internal ---

interface AccessRecord {
  route: TableRoute;
  path: string;
  method: 'GET' | 'HEAD';
  status: number;
  seconds: number;
  id: string;
  composed?: readonly Diagnostic[];
}
