import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import type { Snapshot } from '../core/build/snapshot.js';
import { type ComposeOutcome, type ComposeRequest, strictOutcome } from '../core/compose/compose.js';
import { withLayerWording } from '../core/compose/explain.js';
import { type Diagnostic, formatDiagnostic } from '../core/text/diagnostics.js';
import { closestNames, didYouMean } from '../core/text/suggest.js';
import { tryCompose } from '../engine/default-engine.js';
import type { SnapshotStore, StoreEvent } from '../reload/store.js';
import { type PromptArgument, promptArguments, promptRequest } from './arguments.js';
import { findPrompt, type PromptCatalog, promptCatalog } from './catalog.js';
import { CheckedServer } from './checked-server.js';
import { completeArgument } from './completion.js';
import { composeFailure, invalidParams, McpFailure, notReady } from './errors.js';
import { DEFAULT_BOUNDS, DEFAULT_PAGE_SIZE, type RequestBounds } from './limits.js';
import { TOOL_NAMES, type ToolName, toolDefinitions, toolRequest } from './tools.js';

/** Where the prompts come from: the service's store, or `SnapshotStore.of(snapshot)`. */
export type SnapshotSource = Pick<SnapshotStore, 'state' | 'subscribe'>;

export interface PromptServerOptions {
  source: SnapshotSource;
  /** strata's version, for the `serverInfo` of `initialize`. */
  version: string;
  /** Request bounds (default: the HTTP API's: names of 200 characters, `ambient` of 32 KiB). */
  bounds?: Partial<RequestBounds>;
  /** Prompts of one `prompts/list` page, at most (default {@link DEFAULT_PAGE_SIZE}). */
  pageSize?: number;
  /** Every compose with warnings is an error (`--strict`). */
  strict?: boolean;
  /** The role of a `compose` or `explain` call that names neither a role nor an agent. */
  defaultRole?: string;
  /**
   * Told of every compose answered (`prompts/get`, the tools): `ok` or the error code, and
   * the warnings of an answered one (the service counts them in its metrics).
   */
  onCompose?: (what: 'prompts/get' | ToolName, outcome: string, warnings: readonly Diagnostic[]) => void;
}

/** The strata MCP server: one SDK `Server` per session, all fed from one snapshot source. */
export interface PromptServer {
  /** A new session: an SDK `Server` with strata's handlers, to connect to a transport. */
  session(): Server;
  /**
   * Tells a session whose stream of server messages has just opened (Streamable HTTP's
   * GET) what it missed meanwhile: `list_changed`, when a version it has not listed is
   * served now (a notification sent while no stream was open is lost).
   */
  streamOpened(session: Server): void;
  /** Sessions initialized and not closed. */
  readonly sessions: number;
  /** Closes every session and stops following the source. */
  close(): Promise<void>;
}

/**
 * Builds the MCP server over a snapshot source. Every request reads one snapshot; when
 * the source serves a new version, every initialized session is sent
 * `notifications/prompts/list_changed` and a log message, and a failed or held reload is
 * logged to every session (`notifications/message`, filtered by `logging/setLevel`).
 *
 * @example
 * const prompts = createPromptServer({ source: SnapshotStore.of(snapshot), version: '1.0.0' });
 * await prompts.session().connect(transport);
 */
export function createPromptServer(options: PromptServerOptions): PromptServer {
  const live = new Set<Server>();
  const context = serverContext(options);
  const { told, current } = context;
  const unsubscribe = options.source.subscribe((event) => {
    const message = eventMessage(event);
    if (!message) return;
    for (const server of live) {
      if (event.type === 'reload') void server.sendPromptListChanged().catch(() => undefined);
      void log(server, message.level, message.data);
    }
  });

  return {
    session() {
      const server = new CheckedServer(
        { name: 'strata', title: 'strata', version: options.version },
        { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_VALIDATION },
      );
      server.oninitialized = () => {
        live.add(server);
        told.set(server, current());
      };
      server.onclose = () => live.delete(server);
      addPromptHandlers(server, context);
      addToolHandlers(server, context);
      return server;
    },
    streamOpened(server) {
      if (!live.has(server) || told.get(server) === current()) return;
      told.set(server, current());
      void server.sendPromptListChanged().catch(() => undefined);
    },
    get sessions() {
      return live.size;
    },
    async close() {
      unsubscribe();
      await Promise.all([...live].map((server) => server.close().catch(() => undefined)));
      live.clear();
    },
  };
}

// --- internal ---

/** What every session's handlers share: the source, the catalogue, the bounds, one compose. */
interface ServerContext {
  options: PromptServerOptions;
  state: CatalogCache;
  bounds: RequestBounds;
  pageSize: number;
  /**
   * The version each session last knew the list of (at initialize, at prompts/list, or when
   * told on opening its stream): a reload's list_changed may be lost, so it is not counted.
   */
  told: WeakMap<Server, string>;
  /** The version served now ('' before any). */
  current(): string;
  /** The snapshot served now; NOT_READY before any. */
  snapshot(): Snapshot;
  /** Composes on the default engine, strict as asked or configured, and tells `onCompose`. */
  compose(what: 'prompts/get' | ToolName, request: ComposeRequest, strict: boolean): ComposeOutcome;
}

function serverContext(options: PromptServerOptions): ServerContext {
  const snapshot = (): Snapshot => {
    const served = options.source.state?.snapshot;
    if (!served) throw notReady();
    return served;
  };
  return {
    options,
    state: new CatalogCache(),
    bounds: { ...DEFAULT_BOUNDS, ...options.bounds },
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    told: new WeakMap(),
    current: () => options.source.state?.snapshot.version ?? '',
    snapshot,
    compose(what, request, strict) {
      let outcome: ComposeOutcome = tryCompose(snapshot(), request);
      if (strict || options.strict) outcome = strictOutcome(outcome);
      options.onCompose?.(
        what,
        outcome.ok ? 'ok' : (outcome.diagnostics[0]?.code ?? 'error'),
        outcome.ok ? outcome.result.diagnostics : [],
      );
      return outcome;
    },
  };
}

/** `prompts/list` (paged), `prompts/get` and `completion/complete`. */
function addPromptHandlers(server: Server, context: ServerContext): void {
  const { state, told, pageSize, bounds } = context;
  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    const catalog = state.catalog(context.snapshot());
    told.set(server, catalog.snapshot.version);
    const start = pageStart(catalog, request.params?.cursor);
    const page = catalog.entries.slice(start, start + pageSize);
    const prompts = page.map((entry) => {
      const prompt: { name: string; title?: string; description: string; arguments: PromptArgument[] } = {
        name: entry.name,
        description: entry.description,
        arguments: state.arguments(catalog, entry.name),
      };
      if (entry.title !== undefined) prompt.title = entry.title;
      return prompt;
    });
    const end = start + page.length;
    return {
      prompts,
      ...(end < catalog.entries.length && { nextCursor: cursorOf(catalog.snapshot.version, end) }),
      _meta: { 'strata/version': catalog.snapshot.version },
    };
  });

  server.setRequestHandler(GetPromptRequestSchema, (request): GetPromptResult => {
    const catalog = state.catalog(context.snapshot());
    const entry = findPrompt(catalog, request.params.name, bounds.maxNameChars);
    if (entry instanceof McpFailure) throw entry;
    const composeRequest = promptRequest(entry, request.params.arguments, bounds);
    if (composeRequest instanceof McpFailure) throw composeRequest;
    const outcome = context.compose('prompts/get', composeRequest, false);
    if (!outcome.ok) throw composeFailure(outcome.diagnostics);
    const { result } = outcome;
    for (const d of result.diagnostics) void log(server, 'warning', formatDiagnostic(d));
    return {
      description: entry.description,
      messages: [{ role: 'user', content: { type: 'text', text: result.text } }],
      _meta: resultMeta(result.version, result.sha256, result.diagnostics),
    };
  });

  server.setRequestHandler(CompleteRequestSchema, (request) => {
    const { ref, argument } = request.params;
    const served = context.options.source.state?.snapshot;
    if (ref.type !== 'ref/prompt' || !served) return { completion: { values: [], total: 0, hasMore: false } };
    return {
      completion: completeArgument(
        state.catalog(served),
        ref.name,
        argument.name,
        argument.value,
        bounds.maxNameChars,
      ),
    };
  });
}

/** `tools/list` and `tools/call` of `compose` and `explain`. */
function addToolHandlers(server: Server, context: ServerContext): void {
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolDefinitions() }));
  server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
    const name = request.params.name;
    if (!(TOOL_NAMES as readonly string[]).includes(name)) {
      const suggestions = closestNames(name, TOOL_NAMES);
      throw invalidParams(
        'UNKNOWN_TOOL',
        `unknown tool ${JSON.stringify(name)}${didYouMean(suggestions)}; tools: ${TOOL_NAMES.join(', ')}`,
        suggestions,
      );
    }
    const asked = toolRequest(request.params.arguments, context.bounds, context.options.defaultRole);
    if (asked instanceof McpFailure) return toolError(asked);
    const outcome = context.compose(name as ToolName, asked.request, asked.strict);
    if (!outcome.ok) return toolError(composeFailure(outcome.diagnostics));
    const { result } = outcome;
    const meta = resultMeta(result.version, result.sha256, result.diagnostics);
    if (name === 'compose') return { content: [{ type: 'text', text: result.text }], _meta: meta };
    // The provenance without the text, as plain data (a layer's sha256 is worked out when read).
    const { text: _, ...rest } = withLayerWording(result);
    const explained = JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
    return {
      content: [{ type: 'text', text: JSON.stringify(explained) }],
      structuredContent: explained,
      _meta: meta,
    };
  });
}

const CAPABILITIES = {
  prompts: { listChanged: true },
  tools: {},
  completions: {},
  logging: {},
};

const INSTRUCTIONS =
  "strata serves the composed system prompt of every role and fleet agent of a prompt pack. Each prompt's text is the system prompt, exactly as `strata compose` writes it; the version and sha256 are in its _meta. The compose and explain tools take any request.";

/** The server never validates JSON Schemas (it sends no elicitation): no validator to build per session. */
const NO_VALIDATION = {
  getValidator: () => (input: unknown) => ({
    valid: true as const,
    data: input as never,
    errorMessage: undefined,
  }),
};

/**
 * The snapshot's catalogue and the prompts' arguments, worked out once per version and
 * kept for the version served now only (a prompt's arguments compose it: worked out when
 * a page first lists it).
 */
class CatalogCache {
  #catalog: PromptCatalog | undefined;
  #arguments = new Map<string, PromptArgument[]>();

  catalog(snapshot: Snapshot): PromptCatalog {
    if (this.#catalog?.snapshot !== snapshot) {
      this.#catalog = promptCatalog(snapshot);
      this.#arguments.clear();
    }
    return this.#catalog;
  }

  arguments(catalog: PromptCatalog, name: string): PromptArgument[] {
    if (this.#catalog !== catalog) return promptArguments(catalog.snapshot, catalog.byName.get(name)!);
    let args = this.#arguments.get(name);
    if (!args) {
      args = promptArguments(catalog.snapshot, catalog.byName.get(name)!);
      this.#arguments.set(name, args);
    }
    return args;
  }
}

function resultMeta(
  version: string,
  sha256: string,
  diagnostics: readonly Diagnostic[],
): Record<string, unknown> {
  const meta: Record<string, unknown> = { 'strata/version': version, 'strata/sha256': sha256 };
  if (diagnostics.length > 0) meta['strata/diagnostics'] = diagnostics;
  return meta;
}

/** A tool call that failed, as the tool's result (`isError`): the model reads what went wrong. */
function toolError(failure: McpFailure): CallToolResult {
  return {
    content: [{ type: 'text', text: failure.message }],
    isError: true,
    _meta: { 'strata/error': failure.data },
  };
}

function cursorOf(version: string, offset: number): string {
  return Buffer.from(JSON.stringify({ v: version, o: offset })).toString('base64url');
}

/** Where a page starts: 0 without a cursor; a cursor of another version or not strata's is BAD_CURSOR. */
function pageStart(catalog: PromptCatalog, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { v, o } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
    v?: unknown;
    o?: unknown;
  };
  if (typeof v !== 'string' || typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0)
    throw invalidParams(
      'BAD_CURSOR',
      `cursor ${JSON.stringify(cursor.slice(0, 100))} is not one prompts/list gave`,
    );
  if (v !== catalog.snapshot.version)
    throw invalidParams(
      'BAD_CURSOR',
      `the prompts changed since this cursor (version ${v}, now ${catalog.snapshot.version}); list them again from the start`,
    );
  return Math.min(o, catalog.entries.length);
}

/** What a store event tells the sessions' logs, if anything. */
function eventMessage(event: StoreEvent): { level: LoggingLevel; data: unknown } | undefined {
  switch (event.type) {
    case 'reload':
      return {
        level: 'info',
        data: {
          event: 'reload',
          version: event.version,
          previous: event.previous ?? null,
          changed: event.changed,
        },
      };
    case 'error':
      return {
        level: 'error',
        data: {
          event: 'reload-failed',
          version: event.version ?? null,
          diagnostics: event.diagnostics.map(formatDiagnostic),
        },
      };
    case 'held':
      return {
        level: 'warning',
        data: {
          event: 'held',
          version: event.version,
          held: event.held.version,
          diagnostics: event.held.diagnostics.map(formatDiagnostic),
        },
      };
    case 'recovered':
      return { level: 'info', data: { event: 'recovered', version: event.version } };
    default:
      return undefined;
  }
}

function log(server: Server, level: LoggingLevel, data: unknown): Promise<void> {
  return server
    .sendLoggingMessage({ level, logger: 'strata', data }, server.transport?.sessionId)
    .catch(() => undefined);
}
