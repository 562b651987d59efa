import type { Snapshot } from '../../core/build/snapshot.js';
import { type ComposeRequest, strictOutcome } from '../../core/compose/compose.js';
import type { ProviderFormat } from '../../formats/registry.js';
import { cachedComposeSpan } from '../../telemetry/spans.js';
import { isAnswer, pickSnapshot } from '../middleware/snapshot.js';
import type { Answer } from '../service/answer.js';
import type { Service } from '../service/context.js';
import { diagnosticsAnswer, errorAnswer } from '../service/errors.js';
import { negotiate } from './accept.js';
import { composeRendered, peekRendered, type RenderOutcome } from './compose-cache.js';
import { formatAnswer, PROMPT_TYPES, type Preconditions, promptAnswer } from './prompt-response.js';

/** A prompt request, read and validated: what every prompt route answers. */
export interface PromptCall {
  /** The route's documented path, the compose metrics' label (`/api/prompts/{role}`). */
  route: string;
  request: ComposeRequest;
  /** `current` (default), `previous` or a version id. */
  version?: string;
  /** Answer a provider request body (src/formats/) instead of the result. */
  format?: ProviderFormat;
  /** Fail on warnings (the request's flag; `serve --strict` makes every call strict). */
  strict?: boolean;
  accept?: string;
  /** The request's `If-Match`, `If-None-Match` and method (a POST's If-None-Match that matches is 412, not 304). */
  conditions?: Preconditions;
  /** `performance.now()` when the request came in: the token budget runs from it. */
  startedAt: number;
}

/**
 * Composes one request and answers JSON or text (as `Accept` prefers), with ETag and
 * its preconditions (If-Match, If-None-Match); with a provider `format`, that provider's body. Warnings travel in the
 * result and in `X-Strata-Warnings`; in strict mode they are the error answer instead. A
 * request the render cache holds is answered at once (no promise); any other is composed
 * within the service's token budget. The hono routes and the node server's direct path
 * both answer with it.
 *
 * @example
 * const answer = await answerPrompt(service, { route: '/api/compose', request: { role: 'developer' }, startedAt: performance.now() });
 */
export function answerPrompt(service: Service, call: PromptCall): Answer | Promise<Answer> {
  const snapshot = pickSnapshot(service, call.version);
  if (isAnswer(snapshot)) return snapshot;
  const started = performance.now();
  const cached = peekRendered(snapshot, call.request);
  if (cached) return finish(service, call, snapshot, { ok: true, rendered: cached }, started, true);
  // An answer without the result's JSON (text, a provider body) needs no token counts.
  const counts = call.format === undefined && negotiate(call.accept, PROMPT_TYPES) === 'application/json';
  const made = composeRendered(snapshot, call.request, {
    slots: service.renders,
    tokenBudgetMs: service.tokenBudgetMs,
    startedAt: call.startedAt,
    counts,
  });
  const answer = (rendered: RenderOutcome) =>
    // An answer without the token counts it should hold is not given again: the next request counts.
    finish(service, call, snapshot, rendered, started, rendered.ok && (rendered.rendered.counted || !counts));
  // A one-off prompt composed at once is answered at once.
  return made instanceof Promise ? made.then(answer) : answer(made);
}

/**
 * A rendered outcome in strict mode: warnings fail it (see {@link strictOutcome}), except
 * `TOKEN_BUDGET_EXCEEDED`, which says nothing about the prompt the agent gets.
 */
export function strictRendered(outcome: RenderOutcome): RenderOutcome {
  if (!outcome.ok) return outcome;
  const { result } = outcome.rendered;
  if (result.diagnostics.length === 0) return outcome;
  const diagnostics = result.diagnostics.filter((d) => d.code !== 'TOKEN_BUDGET_EXCEEDED');
  const strict = strictOutcome({ ok: true, result: { ...result, diagnostics } });
  return strict.ok ? outcome : strict;
}

/** Seconds since `started` (a `performance.now()`). */
export function seconds(started: number): number {
  return (performance.now() - started) / 1000;
}

// --- internal ---

function finish(
  service: Service,
  call: PromptCall,
  snapshot: Snapshot,
  rendered: RenderOutcome,
  started: number,
  repeatable: boolean,
): Answer {
  const outcome = service.strict || call.strict ? strictRendered(rendered) : rendered;
  service.metrics.compose(
    call.route,
    outcome.ok ? 'ok' : (outcome.diagnostics[0]?.code ?? 'error'),
    seconds(started),
  );
  if (!outcome.ok) return diagnosticsAnswer(outcome.diagnostics);
  service.metrics.warnings(call.route, outcome.rendered.result.diagnostics);
  const answered = call.format
    ? formatAnswer(outcome.rendered, snapshot, call.request, call.format, call.conditions)
    : promptAnswer(outcome.rendered, call.accept, call.conditions);
  if (answered) {
    // A 412 is an error: never given again from the memo.
    if (!repeatable || answered.status === 412) return answered;
    // The same request gets this answer while the snapshot is served; given again, it
    // records what this answer recorded. It holds only what it records: not the
    // prompt, not the request's own texts.
    const { result } = outcome.rendered;
    const { route, request } = call;
    const asked = { role: request.role, team: request.team, agent: request.agent };
    const made = {
      version: result.version,
      sha256: result.sha256,
      role: result.role,
      team: result.team,
      agent: result.agent,
    };
    const { diagnostics } = result;
    const layout = snapshot.preset;
    const again = () => {
      const at = performance.now();
      cachedComposeSpan('strata.compose', asked, made, layout);
      service.metrics.compose(route, 'ok', seconds(at));
      service.metrics.warnings(route, diagnostics);
    };
    return { ...answered, again };
  }
  return errorAnswer(
    406,
    'NOT_ACCEPTABLE',
    `Accept ${JSON.stringify(call.accept?.slice(0, 200))} accepts none of the prompt's representations: ${PROMPT_TYPES.join(', ')}`,
    undefined,
    { vary: 'Accept' },
  );
}
