import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { promptSpanAttributes } from '../client/span-attributes.js';
import type { ComposeRequest, ComposeResult } from '../core/compose/compose.js';

// OpenTelemetry spans of strata's composes, through @opentelemetry/api only: without an
// SDK registered by the application every call here is the API's no-op (a span that
// records nothing), so a process that does not trace pays next to nothing.

/** The tracer's name (the instrumentation scope of every strata span). */
export const TRACER_NAME = 'strata-prompts';

/**
 * Runs `fn` inside a span `name` (a child of the active span, and the active span while
 * `fn` runs). `fn` gets a `done(result, layout?)` to record the prompt it made; an
 * exception or an outcome `fn` marks failed ends the span with status ERROR.
 *
 * @example
 * const text = await tracedCompose('strata.compose', request, async (done) => {
 *   const result = compose(snapshot, request);
 *   done(result, snapshot.preset);
 *   return result.text;
 * });
 */
export function tracedCompose<T>(
  name: string,
  request: ComposeRequest,
  fn: (done: (result: ComposeResult, layout?: string, cached?: boolean) => void, span: Span) => T,
): T {
  return tracer.startActiveSpan(name, (span) => {
    if (span.isRecording()) span.setAttributes(requestAttributes(request));
    const done = (result: ComposeResult, layout?: string, cached?: boolean) => {
      if (!span.isRecording()) return;
      span.setAttributes(composedAttributes(result, layout));
      if (cached !== undefined) span.setAttribute('strata.cache_hit', cached);
    };
    const end = (value: T) => {
      span.end();
      return value;
    };
    try {
      const value = fn(done, span);
      if (value instanceof Promise)
        return value.then(end, (e: unknown) => {
          failed(span, e);
          throw e;
        }) as T;
      return end(value);
    } catch (e) {
      failed(span, e);
      throw e;
    }
  });
}

/**
 * The span of a compose answered from a cache (`strata.cache_hit` true): started and
 * ended at once, with the attributes {@link tracedCompose} records. Nothing runs inside
 * it, so it is never made the active span.
 */
export function cachedComposeSpan(
  name: string,
  request: Pick<ComposeRequest, 'role' | 'team' | 'agent'>,
  result: ComposedIdentity,
  layout?: string,
): void {
  const span = tracer.startSpan(name);
  if (span.isRecording()) {
    span.setAttributes(requestAttributes(request));
    span.setAttributes(composedAttributes(result, layout));
    span.setAttribute('strata.cache_hit', true);
  }
  span.end();
}

/** Marks a span failed with the codes a compose gave instead of a prompt. */
export function spanRefused(span: Span, codes: readonly string[]): void {
  if (!span.isRecording()) return;
  span.setAttribute('strata.error_codes', [...codes]);
  span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(', ') });
}

/** What a span says of a composed prompt. */
export type ComposedIdentity = Pick<ComposeResult, 'version' | 'sha256' | 'role' | 'team' | 'agent'>;

/** The attributes of a composed prompt: version, sha256, role, team, agent and layout. */
export function composedAttributes(result: ComposedIdentity, layout?: string): Attributes {
  return promptSpanAttributes({
    version: result.version,
    sha256: result.sha256,
    role: result.role,
    team: result.team,
    agent: result.agent,
    layout,
  });
}

// --- internal ---

/**
 * The tracer, got once: until an application registers an SDK it is the API's proxy,
 * which hands its spans to the SDK's tracer from then on.
 */
const tracer = trace.getTracer(TRACER_NAME);

function requestAttributes(request: Pick<ComposeRequest, 'role' | 'team' | 'agent'>): Attributes {
  return promptSpanAttributes({ role: request.role, team: request.team, agent: request.agent });
}

function failed(span: Span, e: unknown): void {
  span.recordException(e instanceof Error ? e : String(e));
  span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
  span.end();
}
