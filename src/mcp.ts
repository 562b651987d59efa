/**
 * `strata-prompts/mcp`: strata as a Model Context Protocol server (docs/mcp.md), over any
 * snapshot source — a running service's store, or `SnapshotStore.of(snapshot)` for a
 * loaded pack — on stdio (`serveStdio`) or Streamable HTTP (`McpSessions`, a
 * `(Request, body) => Response` endpoint), or any transport of the official SDK.
 *
 * @example
 * import { loadPackStrict } from 'strata-prompts';
 * import { SnapshotStore } from 'strata-prompts/tooling';
 * import { createPromptServer, serveStdio } from 'strata-prompts/mcp';
 * const prompts = createPromptServer({ source: SnapshotStore.of(await loadPackStrict('./prompts')), version: '1.0.0' });
 * await serveStdio(prompts, { input: process.stdin, write: (t) => process.stdout.write(t), maxMessageBytes: 65536 });
 *
 * @packageDocumentation
 */

export { type PromptArgument, promptArguments, promptRequest } from './mcp/arguments.js';
export { findPrompt, type PromptCatalog, type PromptEntry, promptCatalog } from './mcp/catalog.js';
export { type Completion, completeArgument, MAX_COMPLETION_VALUES } from './mcp/completion.js';
export { MCP_ERROR_CODES, type McpErrorCode, type McpErrorData, McpFailure } from './mcp/errors.js';
export { McpSessions, type McpSessionsOptions } from './mcp/http.js';
export {
  DEFAULT_BOUNDS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_PAGE_SIZE,
  type RequestBounds,
} from './mcp/limits.js';
export {
  createPromptServer,
  type PromptServer,
  type PromptServerOptions,
  type SnapshotSource,
} from './mcp/prompt-server.js';
export { type StdioOptions, serveStdio } from './mcp/stdio.js';
export { TOOL_NAMES, type ToolName, toolDefinitions } from './mcp/tools.js';
