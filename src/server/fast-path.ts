import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ComposeRequest } from '../core/compose.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { peekRendered } from './compose-cache.js';
import type { Service } from './context.js';
import { type AccessLine, requestId, writeAccessLines } from './logging.js';
import { type PromptAnswer, promptAnswer } from './prompt-response.js';

/**
 * A node:http fast path for the hottest requests: `GET` (or `HEAD`) `/api/prompts/{role}`
 * and `/api/agents/{agent}/prompt` whose answer is already in the render cache. It
 * answers exactly what the app would (same status, headers, body, metrics and access
 * log) without going through routing and validation; anything else — a cache miss, an
 * error, an unusual query — returns false and goes to the app, which stays the one
 * source of truth (and fills the cache).
 *
 * @example
 * const fast = createFastPath(strataApp.service);
 * createServer((req, res) => fast(req, res) || appListener(req, res));
 */
export function createFastPath(service: Service): FastPath {
  // Metrics and access-log lines are recorded after the answer is sent and written out
  // together once the current batch of socket events is handled (setImmediate): the
  // same lines and counts, at a fraction of the per-request cost.
  const pending: AccessRecord[] = [];
  const flush = () => {
    const lines: AccessLine[] = [];
    for (const r of pending) {
      service.metrics.compose(r.match.composeRoute, 'ok', r.seconds);
      if (r.warnings) service.metrics.warnings(r.match.composeRoute, r.warnings);
      service.metrics.request(r.match.route, r.method, r.status, r.seconds);
      lines.push({
        reqId: r.id,
        method: r.method,
        path: r.match.path,
        route: r.match.route,
        status: r.status,
        ms: r.seconds * 1000,
      });
    }
    writeAccessLines(service.logger, lines);
    pending.length = 0;
  };
  const fast = (req: IncomingMessage, res: ServerResponse): boolean => {
    const started = performance.now();
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || req.url === undefined) return false;
    if (!service.hosts.allowsHost(req.headers.host)) return false; // the app answers 403
    const match = parse(req.url);
    if (!match) return false;
    const snapshot = service.store.state?.snapshot;
    if (!snapshot) return false;
    if (
      match.agentRoute &&
      match.request.role === undefined &&
      !snapshot.fleet.some((a) => a.id === match.request.agent)
    ) {
      return false;
    }
    const rendered = peekRendered(snapshot, match.request);
    if (!rendered) return false;
    const { diagnostics } = rendered.result;
    // In strict mode a result with warnings is an error answer: the app gives it.
    if (service.strict && diagnostics.length > 0) return false;

    const answer = promptAnswer(rendered, req.headers.accept, header(req.headers['if-none-match']));
    const id = requestId(header(req.headers['x-request-id']));
    const raw = [...rawHeaders(answer), 'x-request-id', id];
    if (service.cors.enabled) for (const pair of service.cors.headers(req.headers.origin)) raw.push(...pair);
    res.writeHead(answer.status, raw);
    // HEAD: the same headers (Content-Length included), no body.
    res.end(method === 'HEAD' ? undefined : answer.body);

    if (pending.length === 0) setImmediate(flush);
    const record: AccessRecord = {
      match,
      method,
      status: answer.status,
      seconds: (performance.now() - started) / 1000,
      id,
    };
    if (diagnostics.length > 0) record.warnings = diagnostics;
    pending.push(record);
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

const raws = new WeakMap<PromptAnswer, string[]>();

/** An answer's headers as node's flat [name, value, …] list, with content-length; built once. */
function rawHeaders(answer: PromptAnswer): string[] {
  let raw = raws.get(answer);
  if (!raw) {
    raw = Object.entries(answer.headers).flat();
    if (answer.body !== undefined) raw.push('content-length', String(answer.body.byteLength));
    raws.set(answer, raw);
  }
  return raw;
}

interface AccessRecord {
  match: Match;
  method: 'GET' | 'HEAD';
  status: number;
  seconds: number;
  id: string;
  warnings?: readonly Diagnostic[];
}

interface Match {
  path: string;
  /** The route pattern, as the app labels it in metrics and logs. */
  route: string;
  composeRoute: string;
  agentRoute: boolean;
  request: ComposeRequest;
}

const PROMPT = /^\/api\/prompts\/([A-Za-z0-9._-]{1,200})$/;
const AGENT = /^\/api\/agents\/([A-Za-z0-9._-]{1,200})\/prompt$/;

/** The compose request of a plain prompt URL, or undefined for anything the app must judge. */
function parse(url: string): Match | undefined {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  let m = PROMPT.exec(path);
  const agentRoute = !m;
  if (!m) m = AGENT.exec(path);
  if (!m) return undefined;
  const request: ComposeRequest = agentRoute ? { agent: m[1]! } : { role: m[1]! };
  const allowed = agentRoute ? ['role', 'team'] : ['team', 'agent'];
  if (q !== -1) {
    const settings: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(url.slice(q + 1))) {
      if (key.startsWith('set.') && key.length > 4) {
        if (Object.hasOwn(settings, key.slice(4))) return undefined;
        settings[key.slice(4)] = value;
      } else if (allowed.includes(key) && value !== '' && value.length <= 200) {
        const k = key as 'role' | 'team' | 'agent';
        if (request[k] !== undefined) return undefined;
        request[k] = value;
      } else return undefined;
    }
    if (Object.keys(settings).length > 0) request.settings = settings;
  }
  return agentRoute
    ? {
        path,
        route: '/api/agents/:agent/prompt',
        composeRoute: '/api/agents/{agent}/prompt',
        agentRoute,
        request,
      }
    : { path, route: '/api/prompts/:role', composeRoute: '/api/prompts/{role}', agentRoute, request };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
