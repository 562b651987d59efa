import { join } from 'node:path';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { promptSpanAttributes } from '../../src/client/span-attributes.js';
import { systemPromptResult } from '../../src/runtime/system-prompt.js';
import { peekRendered } from '../../src/server/answers/compose-cache.js';
import { EXAMPLES } from '../helpers.js';
import { appFor } from '../server/helpers.js';

// With an OpenTelemetry SDK registered (a real one, exporting to memory), every compose of
// the service and of systemPromptResult() is a `strata.compose` span carrying which prompt
// it made, a child of the caller's active span; promptSpanAttributes() gives a caller the
// same attributes for its own LLM-call span. The SDK is registered for this file only.

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contexts = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contexts.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

const spans = (name = 'strata.compose') => exporter.getFinishedSpans().filter((s) => s.name === name);

const ADA = {
  'strata.prompt.role': 'developer',
  'strata.prompt.team': 'platform',
  'strata.prompt.agent': 'ada',
  'strata.prompt.layout': 'roboco',
};

describe('strata.compose spans', () => {
  it('one per request of the service, with the version, sha256, role, team, agent and layout', async () => {
    const app = await appFor(join(EXAMPLES, 'roboco'));
    const res = await app.app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'ada' }),
    });
    const body = (await res.json()) as { version: string; sha256: string };
    const [made] = spans();
    expect(spans()).toHaveLength(1);
    expect(made!.attributes).toEqual({
      ...ADA,
      'strata.prompt.version': body.version,
      'strata.prompt.sha256': body.sha256,
      'strata.cache_hit': false,
    });
    expect(made!.instrumentationScope.name).toBe('strata-prompts');

    // The same prompt again comes from the cache, and says so; so does the direct path's peek.
    await app.app.request('/api/agents/ada/prompt');
    peekRendered(app.store.state!.snapshot, { agent: 'ada' });
    expect(spans().map((s) => s.attributes['strata.cache_hit'])).toEqual([false, true, true]);
    expect(spans()[2]!.attributes['strata.prompt.sha256']).toBe(body.sha256);
  });

  it('a refused compose is a span with status ERROR and the codes', async () => {
    const app = await appFor(join(EXAMPLES, 'roboco'));
    expect((await app.app.request('/api/prompts/nobody')).status).toBe(404);
    const [refused] = spans();
    expect(refused!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'UNKNOWN_ROLE' });
    expect(refused!.attributes).toEqual({
      'strata.prompt.role': 'nobody',
      'strata.error_codes': ['UNKNOWN_ROLE'],
    });
  });

  it('systemPromptResult() is one, a child of the caller’s span, and gives the caller the same attributes', async () => {
    const tracer = trace.getTracer('agent');
    const prompt = await tracer.startActiveSpan('llm.call', async (span) => {
      const got = await systemPromptResult({ dir: join(EXAMPLES, 'roboco'), agent: 'ada', env: {} });
      span.setAttributes(promptSpanAttributes(got));
      span.end();
      return got;
    });
    expect(prompt).toMatchObject({ role: 'developer', team: 'platform', agent: 'ada', layout: 'roboco' });
    const [call] = spans('llm.call');
    const [made] = spans();
    expect(made!.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
    const expected = {
      ...ADA,
      'strata.prompt.version': prompt.version,
      'strata.prompt.sha256': prompt.sha256,
    };
    expect(made!.attributes).toEqual(expected);
    expect(call!.attributes).toEqual(expected);
  });

  it('a pack with errors fails the span with the exception', async () => {
    await expect(systemPromptResult({ dir: join(EXAMPLES, 'nowhere'), env: {} })).rejects.toThrow(
      /PACK_NOT_FOUND|cannot/,
    );
    const [failed] = spans();
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.events.map((e) => e.name)).toEqual(['exception']);
  });
});
