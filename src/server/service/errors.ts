import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Diagnostic, DiagnosticCode } from '../../core/text/diagnostics.js';
import { type Answer, jsonAnswer, sendAnswer } from './answer.js';

/** Codes of the service's own errors, beside the diagnostic codes of the core. */
export const HTTP_ERROR_CODES = [
  'NOT_READY',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'PRECONDITION_FAILED',
  'UNKNOWN_VERSION',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'RELOAD_FAILED',
  'RELOAD_HELD',
  'TOO_MANY_CONNECTIONS',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'EXPECTATION_FAILED',
  'NOT_IMPLEMENTED',
  'HOST_NOT_ALLOWED',
  'ORIGIN_NOT_ALLOWED',
  'INTERNAL',
] as const;

export type HttpErrorCode = DiagnosticCode | (typeof HTTP_ERROR_CODES)[number];

/** The body of every error answer: `{ error: { code, message, diagnostics? } }`. */
export interface ErrorBody {
  error: { code: HttpErrorCode; message: string; diagnostics?: Diagnostic[] };
}

/** Answers an error as JSON (hono). */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  code: HttpErrorCode,
  message: string,
  diagnostics?: Diagnostic[],
): Response {
  return sendAnswer(c, errorAnswer(status, code, message, diagnostics));
}

/**
 * An error answer: `{ error: { code, message, diagnostics? } }` as JSON, with any extra
 * headers of the answer (`Vary`, `Connection: close`, …).
 */
export function errorAnswer(
  status: number,
  code: HttpErrorCode,
  message: string,
  diagnostics?: Diagnostic[],
  headers?: Record<string, string>,
): Answer {
  const body: ErrorBody = { error: { code, message } };
  if (diagnostics && diagnostics.length > 0) body.error.diagnostics = diagnostics;
  return jsonAnswer(body, status, headers);
}

/**
 * Answers the errors of a compose: 400 for a bad request (bad name, bad or unknown
 * setting, a path setting, an unknown, invalid or missing input, a path input leaving the
 * pack, no role in strict mode), 404 for an unknown role, team or
 * agent, 422 for a degraded prompt refused in strict mode (a missing layer, the
 * fallback, a role its framework sends no system message, a placeholder kept), 500 when the pack cannot satisfy a valid request.
 */
export function diagnosticsAnswer(diagnostics: Diagnostic[]): Answer {
  const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  if (!first) return errorAnswer(500, 'INTERNAL', 'compose failed without a diagnostic');
  return errorAnswer(statusOf(first.code), first.code, first.message, diagnostics);
}

/** {@link diagnosticsAnswer} as a hono Response. */
export function diagnosticsResponse(c: Context, diagnostics: Diagnostic[]): Response {
  return sendAnswer(c, diagnosticsAnswer(diagnostics));
}

/** The HTTP status for a diagnostic code. */
export function statusOf(code: DiagnosticCode): ContentfulStatusCode {
  switch (code) {
    case 'BAD_NAME':
    case 'BAD_REQUEST':
    case 'UNKNOWN_SETTING':
    case 'INVALID_SETTING':
    case 'PATH_SETTING_IN_REQUEST':
    case 'UNKNOWN_INPUT':
    case 'INVALID_INPUT':
    case 'MISSING_INPUT':
    case 'PATH_OUTSIDE_PACK':
    case 'NO_ROLE':
    case 'DUPLICATE_ROLE':
    case 'AMBIENT_UNUSED':
      return 400;
    case 'UNKNOWN_ROLE':
    case 'UNKNOWN_TEAM':
    case 'UNKNOWN_AGENT':
      return 404;
    case 'LAYER_MISSING':
    case 'FALLBACK_USED':
    case 'NO_SYSTEM_MESSAGE':
    case 'PLACEHOLDER_KEPT':
    case 'PROMPT_TOO_LARGE':
      return 422;
    default:
      return 500;
  }
}
