import type { Diagnostic, DiagnosticCode } from '../core/text/diagnostics.js';

/** Codes of the MCP server's own errors, beside the diagnostic codes of the core. */
export const MCP_ERROR_CODES = ['UNKNOWN_PROMPT', 'UNKNOWN_TOOL', 'BAD_CURSOR', 'NOT_READY'] as const;
export type McpErrorCode = DiagnosticCode | (typeof MCP_ERROR_CODES)[number];

/** JSON-RPC error codes (the spec's, and MCP's). */
export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** The `data` of every strata JSON-RPC error: its code, and the diagnostics behind it. */
export interface McpErrorData {
  code: McpErrorCode;
  /** The closest known names, for an unknown prompt, role, team, agent, setting or input. */
  suggestions?: string[];
  diagnostics?: Diagnostic[];
}

/**
 * An error a request handler throws: the SDK answers it as a JSON-RPC error with this
 * `code`, `message` and `data` (the message as it is, without the SDK's `MCP error`
 * prefix).
 */
export class McpFailure extends Error {
  override name = 'McpFailure';
  constructor(
    readonly code: number,
    message: string,
    readonly data: McpErrorData,
  ) {
    super(message);
  }
}

/**
 * The JSON-RPC error for a compose that failed: `-32602` (invalid params) for what the
 * request got wrong (a bad or unknown name, setting or input, a missing input; the HTTP
 * API's 400 and 404), `-32603` for what the pack cannot give (a required layer missing;
 * in strict mode a missing layer or the fallback: the HTTP API's 422 and 500). The message
 * is the first error's code and words; `data` carries every diagnostic.
 */
export function composeFailure(diagnostics: Diagnostic[]): McpFailure {
  const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  if (!first)
    return new McpFailure(JSONRPC.INTERNAL_ERROR, 'compose failed without a diagnostic', {
      code: 'BAD_REQUEST',
    });
  const data: McpErrorData = { code: first.code, diagnostics };
  if (first.suggestions) data.suggestions = first.suggestions;
  const code = REQUEST_CODES.has(first.code) ? JSONRPC.INVALID_PARAMS : JSONRPC.INTERNAL_ERROR;
  return new McpFailure(code, `${first.code}: ${first.message}`, data);
}

/** An invalid-params error of the MCP server's own (`BAD_REQUEST`, `UNKNOWN_PROMPT`, …). */
export function invalidParams(code: McpErrorCode, message: string, suggestions?: string[]): McpFailure {
  const data: McpErrorData = { code };
  if (suggestions && suggestions.length > 0) data.suggestions = suggestions;
  return new McpFailure(JSONRPC.INVALID_PARAMS, `${code}: ${message}`, data);
}

/** The error of a request made before any pack version is loaded. */
export function notReady(): McpFailure {
  return new McpFailure(JSONRPC.INTERNAL_ERROR, 'NOT_READY: no pack version is loaded yet', {
    code: 'NOT_READY',
  });
}

// --- internal ---

/** The codes of a request's own mistakes (answered 400 or 404 by the HTTP API). */
const REQUEST_CODES = new Set<DiagnosticCode>([
  'BAD_NAME',
  'BAD_REQUEST',
  'UNKNOWN_SETTING',
  'INVALID_SETTING',
  'PATH_SETTING_IN_REQUEST',
  'UNKNOWN_INPUT',
  'INVALID_INPUT',
  'MISSING_INPUT',
  'PATH_OUTSIDE_PACK',
  'NO_ROLE',
  'AMBIENT_UNUSED',
  'UNKNOWN_ROLE',
  'UNKNOWN_TEAM',
  'UNKNOWN_AGENT',
]);
