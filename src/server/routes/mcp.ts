import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { DiagnosticCode } from '../../core/text/diagnostics.js';
import type { McpSessions } from '../../mcp/http.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_PAGE_SIZE } from '../../mcp/limits.js';
import type { PromptServer } from '../../mcp/prompt-server.js';
import { VERSION } from '../../source/version.js';
import { readBodies } from '../middleware/body.js';
import { ErrorSchema } from '../schemas/common.js';
import { sendAnswer } from '../service/answer.js';
import type { AppEnv, Service } from '../service/context.js';
import { errorAnswer } from '../service/errors.js';
import { addRoute, json, routeTable } from './route.js';

export interface McpRouteOptions {
  /** MCP sessions open at once, at most (default `DEFAULT_MAX_SESSIONS`, 64). */
  maxSessions?: number;
  /** Prompts of one `prompts/list` page (default `DEFAULT_PAGE_SIZE`, 100). */
  pageSize?: number;
}

/**
 * `/mcp`: the MCP Streamable HTTP endpoint (docs/mcp.md) on the service's own store —
 * the same snapshot, reloads, `--strict`, default role and request bounds as the API. It
 * sits behind the service's Host check like every route; an `Origin` (on any method) must
 * be the request's own host, an allowed host or a CORS origin, else 403
 * `ORIGIN_NOT_ALLOWED` (the MCP spec's rule against DNS rebinding). Counted in the
 * service's metrics: `strata_compose_total` (routes `mcp prompts/get`, `mcp compose`,
 * `mcp explain`), `strata_mcp_sessions`, `strata_mcp_sessions_evicted_total`.
 */
export function addMcpRoutes(
  app: OpenAPIHono<AppEnv>,
  service: Service,
  options: McpRouteOptions = {},
): { close(): Promise<void> } {
  const endpoint = lazyEndpoint(service, options);
  const bodies = readBodies(service.maxBodyBytes);
  app.use('/mcp', async (c, next) => originDenial(c, service) ?? bodies(c, next));
  const handler = async (c: Context<AppEnv>) => {
    // The GET opens the session's stream: there is no HEAD of it to answer.
    if (c.req.method === 'HEAD') return headRefused(c, routeTable(app).methods('/mcp'));
    let body: unknown;
    if (c.req.method === 'POST') {
      try {
        body = await c.req.json();
      } catch (e) {
        const error = { code: -32700, message: `Parse error: ${(e as Error).message}` };
        return c.json({ jsonrpc: '2.0', id: null, error }, 400);
      }
    }
    return (await endpoint.sessions()).handle(c.req.raw, body);
  };
  for (const method of ['post', 'get', 'delete'] as const)
    addRoute(
      app,
      {
        method,
        path: '/mcp',
        operationId: `mcp${method[0]!.toUpperCase()}${method.slice(1)}`,
        tags: ['mcp'],
        summary: SUMMARY[method],
        description:
          'The Model Context Protocol, Streamable HTTP transport (docs/mcp.md): JSON-RPC messages, answered as JSON-RPC. A session begins with `initialize`; its id comes in the `Mcp-Session-Id` answer header and goes with every later request.',
        responses: responses(method),
      },
      handler,
    );
  routeTable(app).withoutHead('/mcp');
  return { close: () => endpoint.close() };
}

// --- internal ---

/**
 * The MCP server and its sessions, over the service's store, with their metrics; the MCP
 * code (and the SDK) is loaded by the first request to /mcp, not at start-up.
 */
function lazyEndpoint(
  service: Service,
  options: McpRouteOptions,
): { sessions(): Promise<McpSessions>; close(): Promise<void> } {
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  let loaded: Promise<{ prompts: PromptServer; sessions: McpSessions }> | undefined;
  const load = async () => {
    const [{ createPromptServer }, { McpSessions }] = await Promise.all([
      import('../../mcp/prompt-server.js'),
      import('../../mcp/http.js'),
    ]);
    const prompts = createPromptServer({
      source: service.store,
      version: VERSION,
      bounds: { maxAmbientChars: service.maxQueryAmbient },
      pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
      strict: service.strict,
      defaultRole: service.defaultRole,
      onCompose: (what, outcome, warnings) => {
        service.metrics.compose(`mcp ${what}`, outcome);
        service.metrics.warnings(`mcp ${what}`, warnings);
      },
    });
    const sessions = new McpSessions(prompts, {
      maxSessions,
      onCount: (n) => service.metrics.mcpSessions(n),
      onEvict: (sessionId) => {
        service.metrics.mcpEvicted();
        service.logger.warn(
          { code: 'MCP_SESSION_EVICTED' satisfies DiagnosticCode, sessionId, maxSessions },
          'the MCP session unused the longest was closed to open a new one (serve --max-mcp-sessions)',
        );
      },
    });
    return { prompts, sessions };
  };
  return {
    sessions: async () => {
      loaded ??= load();
      return (await loaded).sessions;
    },
    close: async () => {
      if (!loaded) return;
      const { sessions, prompts } = await loaded;
      await sessions.close();
      await prompts.close();
    },
  };
}

/**
 * The 405 of a HEAD, as the endpoint refuses a method it does not take (a JSON-RPC error),
 * with the `Allow` an OPTIONS of /mcp gives.
 */
function headRefused(c: Context<AppEnv>, allow: readonly string[]): Response {
  const message = `Method not allowed: HEAD; allowed: ${allow.join(', ')}`;
  return c.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }, 405, {
    Allow: allow.join(', '),
  });
}

/** The documented answers of one method of /mcp. */
function responses(method: 'post' | 'get' | 'delete') {
  return {
    200: OK[method],
    ...(method === 'post' && { 202: { description: 'Notifications or responses, accepted' } }),
    400: json(
      z.union([RpcError, ErrorSchema]),
      'No session, a body that is not JSON-RPC, or an initialize whose params do not fit (JSON-RPC error), or a body that does not read (Error)',
    ),
    404: json(RpcError, 'The session ended or was closed: initialize a new one'),
    405: json(RpcError, 'A method the endpoint does not take'),
    406: json(RpcError, 'The Accept header does not take both application/json and text/event-stream'),
    ...(method === 'get' && { 409: json(RpcError, 'The session has its stream open already') }),
    ...(method === 'post' && {
      413: json(ErrorSchema, 'BODY_TOO_LARGE: the body is over the limit (serve --max-body-bytes)'),
      415: json(z.union([RpcError, ErrorSchema]), 'The body is not JSON'),
    }),
    503: json(RpcError, 'The service is shutting down'),
  };
}

/** A JSON-RPC 2.0 message (an answer, or a batch's answers). */
const RpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') }).openapi('JsonRpcMessage');
/**
 * A JSON-RPC error answer of the transport: `id` is the refused message's where it has a
 * usable one, else null.
 */
const RpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.looseObject({ code: z.number().int(), message: z.string() }),
  })
  .openapi('JsonRpcError');

/** The 200 answer of each method. */
const OK = {
  post: {
    description: 'The JSON-RPC answer',
    content: { 'application/json': { schema: z.union([RpcMessage, z.array(RpcMessage)]) } },
  },
  get: {
    description: 'The stream of the server’s own messages (server-sent events)',
    content: { 'text/event-stream': { schema: z.string() } },
  },
  delete: { description: 'The session ended' },
};

const SUMMARY = {
  post: 'MCP: send JSON-RPC messages (initialize, prompts/list, prompts/get, tools/call, …)',
  get: 'MCP: the stream of the server’s own messages (prompts/list_changed, log messages)',
  delete: 'MCP: end the session',
};

/**
 * A 403 for an `Origin` that is neither the request's own host, an allowed host nor a
 * CORS origin — on every method, as the MCP spec asks of its endpoint (the service checks
 * only unsafe methods' Origin elsewhere), and even when `--allowed-host *` accepts any Host.
 */
function originDenial(c: Context<AppEnv>, service: Service): Response | undefined {
  const origin = c.req.header('origin');
  if (origin === undefined) return undefined;
  const own = (() => {
    try {
      return new URL(origin).host === new URL(c.req.url).host;
    } catch {
      return false;
    }
  })();
  if (own) return undefined;
  if (service.hosts.enabled && service.hosts.allowsOrigin(origin)) return undefined;
  if (service.cors.allows(origin)) return undefined;
  return sendAnswer(
    c,
    errorAnswer(
      403,
      'ORIGIN_NOT_ALLOWED',
      `Origin ${JSON.stringify(origin)} may not use /mcp; allow it with --cors ORIGIN or --allowed-host NAME`,
    ),
  );
}
