// The MCP server's limits and their defaults, apart from the SDK, so the CLI's help and
// the service read them without loading it.

/** What a request may carry, as the HTTP API bounds it. */
export interface RequestBounds {
  /** A role, team or agent name, in characters (the API's 200). */
  maxNameChars: number;
  /** A prompt's `ambient` argument, in characters (`serve --max-query-ambient`). */
  maxAmbientChars: number;
}

/** The HTTP API's bounds: a name of 200 characters; `?ambient=` of 32 KiB. */
export const DEFAULT_BOUNDS: RequestBounds = { maxNameChars: 200, maxAmbientChars: 32 * 1024 };

/** A message (a stdio line), in bytes, by default: the HTTP API's body limit (`--max-body-bytes`). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

/** Prompts of one `prompts/list` page, by default (`--mcp-page-size`). */
export const DEFAULT_PAGE_SIZE = 100;

/** Open MCP sessions at once, by default (`serve --max-mcp-sessions`). */
export const DEFAULT_MAX_SESSIONS = 64;
