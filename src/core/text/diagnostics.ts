import { byteOrder } from './text.js';

// Diagnostics: the one error shape of strata. Loading and composing collect these instead
// of throwing; the public edges (CLI, server) format them with `formatDiagnostic`.

/** The closed set of diagnostic codes. */
export const DIAGNOSTIC_CODES = [
  // reading files
  'PACK_NOT_FOUND',
  'READ_ERROR',
  'INVALID_UTF8',
  'FILE_TOO_LARGE',
  'PATH_OUTSIDE_PACK',
  'PACK_TOO_LARGE',
  'TOO_MANY_FILES',
  'SPECIAL_FILE',
  'READ_TIMEOUT',
  'PACK_UNSTABLE',
  // pack bundles (one gzip'd tar file)
  'BUNDLE_BAD_PATH',
  'BUNDLE_LINK',
  'BUNDLE_BAD_ENTRY',
  'BUNDLE_CORRUPT',
  'BUNDLE_TRUNCATED',
  'CONFIGMAP_TOO_LARGE',
  // YAML and frontmatter
  'YAML_SYNTAX',
  'YAML_ALIASES',
  'BAD_FRONTMATTER',
  // manifest
  'UNKNOWN_KEY',
  'BAD_MANIFEST',
  'UNKNOWN_PRESET',
  'EXTENDS_CYCLE',
  'UNKNOWN_PLACEHOLDER',
  'NO_LAYERS',
  // settings
  'UNKNOWN_SETTING',
  'INVALID_SETTING',
  'PATH_SETTING_IN_REQUEST',
  // role registry and fleet
  'BAD_ROLE',
  'DUPLICATE_ROLE',
  'ROLE_EXTENDS_CYCLE',
  'UNKNOWN_ROLE',
  'BAD_FLEET',
  'DUPLICATE_AGENT',
  'FLEET_CONFLICT',
  // request inputs
  'UNKNOWN_INPUT',
  'INVALID_INPUT',
  'MISSING_INPUT',
  // composing
  'TRUNCATED',
  'BAD_NAME',
  'BAD_REQUEST',
  'UNKNOWN_AGENT',
  'UNKNOWN_TEAM',
  'NO_ROLE',
  'REQUIRED_MISSING',
  'LAYER_MISSING',
  'FALLBACK_USED',
  'AMBIENT_UNUSED',
  'NO_SYSTEM_MESSAGE',
  'PLACEHOLDER_KEPT',
  'PROMPT_TOO_LARGE',
  // reloading (a new version that would take something away from a member is held)
  'LAYER_LOST',
  'MEMBER_FALLBACK',
  'MEMBER_FAILS',
  'MEMBER_REMOVED',
  'STRICT_REFUSED',
  // pack linting (strata validate)
  'JSON_BLOCK',
  'BAD_UCXL',
  'ORPHAN_FILE',
  'UNREACHABLE_LAYER',
  'COMPOSE_FAILED',
  'INPUTS_NEEDED',
  // tokens and budgets
  'OVER_BUDGET',
  'NEAR_BUDGET',
  'CACHE_ORDER',
  'TOKEN_BUDGET_EXCEEDED',
  'TOKENIZER_MISSING',
  // the service
  'EVENTS_CLIENT_TOO_SLOW',
  'PIPELINE_TOO_DEEP',
  'MCP_SESSION_EVICTED',
  'PORT_IN_USE',
  'LISTEN_FAILED',
  // tooling
  'BAD_REGISTRY',
  'GIT_ERROR',
  'BAD_LOCK',
  'WRITE_ERROR',
] as const;

export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];
/** `info` is a note that is no problem (what a compose of the pack needs); only `strata validate` gives one. */
export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One problem found while loading, composing or linting a pack. */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  /** Pack-relative path of the file the problem is in, when there is one. */
  file?: string;
  /** 1-based line in the file's own text (frontmatter included). */
  line?: number;
  /** 1-based column. */
  col?: number;
  /** The closest known names, for an unknown one ("did you mean …"). */
  suggestions?: string[];
}

/** The error thrown by strict entry points; carries every diagnostic that caused it. */
export class PromptError extends Error {
  readonly code: DiagnosticCode;
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly diagnostics: Diagnostic[];

  constructor(diagnostics: Diagnostic[]) {
    const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
    if (!first) throw new TypeError('PromptError needs at least one diagnostic');
    super(formatDiagnostic(first));
    this.name = 'PromptError';
    this.code = first.code;
    this.file = first.file;
    this.line = first.line;
    this.col = first.col;
    this.diagnostics = diagnostics;
  }
}

export function error(code: DiagnosticCode, message: string, where: Where = {}): Diagnostic {
  return { code, severity: 'error', message, ...compactWhere(where) };
}

export function warning(code: DiagnosticCode, message: string, where: Where = {}): Diagnostic {
  return { code, severity: 'warning', message, ...compactWhere(where) };
}

export function info(code: DiagnosticCode, message: string, where: Where = {}): Diagnostic {
  return { code, severity: 'info', message, ...compactWhere(where) };
}

export interface Where {
  file?: string;
  line?: number;
  col?: number;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** `path:line:col` (as much of it as is known), or '' when the diagnostic has no file. */
export function formatLocation(d: Where): string {
  if (!d.file) return '';
  // A file named with a newline (or another control character) is written with escapes:
  // a name in the pack cannot split a diagnostic line or forge the next one. So is one
  // holding an invisible or direction-changing character (U+200B, U+202E): it cannot hide
  // what is wrong with the name, nor turn the rest of the line around.
  const file = d.file.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu,
    (ch) => {
      const code = ch.codePointAt(0)!;
      if (code < 0x20) return JSON.stringify(ch).slice(1, -1);
      return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
    },
  );
  if (d.line === undefined) return file;
  return d.col === undefined ? `${file}:${d.line}` : `${file}:${d.line}:${d.col}`;
}

/** The one-line form used by the CLI: `error CODE: path:line:col: message`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = formatLocation(d);
  // Names quoted in the message are written so too (as JSON, their control characters are escaped already).
  const message = d.message.replace(/[\u007f-\u009f\u2028\u2029\p{Cf}]/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `${d.severity} ${d.code}: ${where ? `${where}: ` : ''}${message}`;
}

/** Orders diagnostics by file, position, then code, so output is stable. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      byteOrder(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.col ?? 0) - (b.col ?? 0) ||
      byteOrder(a.code, b.code),
  );
}

// --- internal ---

function compactWhere(where: Where): Where {
  const out: Where = {};
  if (where.file !== undefined) out.file = where.file;
  if (where.line !== undefined) out.line = where.line;
  if (where.col !== undefined) out.col = where.col;
  return out;
}
