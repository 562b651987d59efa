import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  InitializeRequestSchema,
  isInitializeRequest,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { paramsMisfit } from './checked-server.js';
import { JSONRPC } from './errors.js';
import type { PromptServer } from './prompt-server.js';

export interface McpSessionsOptions {
  /** Sessions open at once, at most: a new one past it closes the one unused the longest. */
  maxSessions: number;
  /** Told of a session closed to make room (its id), for the service's log and metrics. */
  onEvict?: (sessionId: string) => void;
  /** Told of the number of open sessions whenever it changes. */
  onCount?: (sessions: number) => void;
}

/**
 * The MCP Streamable HTTP endpoint as `(Request, parsed body) → Response`: `POST` carries
 * the client's messages (answered as JSON), `GET` opens the session's stream of the
 * server's own messages (`list_changed`, log messages), `DELETE` ends the session. A
 * session begins with `initialize` (its id is in the `Mcp-Session-Id` answer header);
 * sessions are bounded: past `maxSessions` the least recently used is closed, and its
 * client, answered 404, begins a new one. Host, Origin and body bounds are the caller's
 * (the service checks them before the request reaches here).
 *
 * @example
 * const sessions = new McpSessions(prompts, { maxSessions: 64 });
 * app.all('/mcp', async (c) => sessions.handle(c.req.raw, await c.req.json()));
 */
export class McpSessions {
  readonly #server: PromptServer;
  readonly #options: McpSessionsOptions;
  /** Open sessions, least recently used first. */
  readonly #sessions = new Map<string, Session>();
  #closed = false;

  constructor(server: PromptServer, options: McpSessionsOptions) {
    this.#server = server;
    this.#options = options;
  }

  /** Open sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Answers one request to the endpoint; `body` is a `POST`'s parsed JSON. A body that is
   * not a JSON-RPC message or a non-empty batch of them is -32600 (as a stdio line is);
   * an `initialize` whose params do not fit is -32602 `BAD_REQUEST` naming the misfits.
   */
  async handle(request: Request, body?: unknown): Promise<Response> {
    const refused = body === undefined ? undefined : bodyRefusal(body);
    if (refused) return refused;
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.#sessions.get(id);
      if (!session)
        return rpcError(404, -32001, 'Session not found: it ended or was closed; initialize a new one');
      this.#sessions.delete(id);
      this.#sessions.set(id, session);
      const response = await session.transport.handleRequest(
        request,
        body === undefined ? {} : { parsedBody: body },
      );
      // The stream of server messages is open (the transport keeps it from here on).
      if (request.method === 'GET' && response.status === 200) this.#server.streamOpened(session.server);
      return response;
    }
    if (request.method !== 'POST' || !startsSession(body))
      return rpcError(
        400,
        JSONRPC.INVALID_REQUEST,
        'Bad Request: no Mcp-Session-Id header; a session begins with an initialize request',
      );
    if (this.#closed) return rpcError(503, JSONRPC.INTERNAL_ERROR, 'the service is shutting down');
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (sessionId): void => this.#open(sessionId, { transport, server }),
      onsessionclosed: (sessionId) => this.#forget(sessionId),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#forget(transport.sessionId);
    };
    const server = this.#server.session();
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  /** Closes every session (their streams end). */
  async close(): Promise<void> {
    this.#closed = true;
    const open = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(open.map((s) => s.transport.close().catch(() => undefined)));
    this.#options.onCount?.(0);
  }

  // --- internal ---

  #open(sessionId: string, session: Session): void {
    if (this.#sessions.size >= this.#options.maxSessions) {
      const [oldest, evicted] = this.#sessions.entries().next().value!;
      this.#sessions.delete(oldest);
      void evicted.transport.close().catch(() => undefined);
      this.#options.onEvict?.(oldest);
    }
    this.#sessions.set(sessionId, session);
    this.#options.onCount?.(this.#sessions.size);
  }

  #forget(sessionId: string): void {
    if (this.#sessions.delete(sessionId)) this.#options.onCount?.(this.#sessions.size);
  }
}

/** An open session: its transport, and the SDK server connected to it. */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
}

function startsSession(body: unknown): boolean {
  return Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
}

/**
 * The answer to a POST body that cannot be served: not JSON-RPC (-32600, answering the
 * message's id where it has a usable one), an empty batch (-32600), or an `initialize`
 * whose params do not fit (-32602; the transport would take it for no initialize at all).
 */
function bodyRefusal(body: unknown): Response | undefined {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return rpcError(400, JSONRPC.INVALID_REQUEST, 'Invalid Request: an empty batch');
  for (const message of messages) {
    if (JSONRPCMessageSchema.safeParse(message).success) continue;
    return rpcError(
      400,
      JSONRPC.INVALID_REQUEST,
      'Invalid Request: not a JSON-RPC 2.0 message',
      idOf(message),
    );
  }
  for (const message of messages) {
    if ((message as { method?: unknown }).method !== 'initialize') continue;
    const misfit = paramsMisfit(InitializeRequestSchema, message);
    if (misfit) return rpcError(400, misfit.code, misfit.message, idOf(message), misfit.data);
  }
  return undefined;
}

/** A message's id, when it is one JSON-RPC allows (a string or a number). */
function idOf(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function rpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  data?: unknown,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return new Response(JSON.stringify({ jsonrpc: '2.0', error, id }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}
