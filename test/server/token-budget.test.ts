import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { stopCountWorker } from '../../src/tokens/count-off-thread.js';
import { memoryStore, waitFor } from './helpers.js';

// Token counts are auxiliary: when counting takes longer than the request's budget the
// prompt is still answered (200), without `tokens`, with a TOKEN_BUDGET_EXCEEDED warning.

/** Prose long enough to be counted in the worker thread (over 2,048 characters). */
const LONG = Array.from({ length: 3000 }, (_, i) => `word${i % 97} and more`).join(' ');
const PACK = {
  'base.md': LONG,
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
};

afterAll(() => stopCountWorker());

async function appWithBudget(tokenBudgetMs: number, strict = false, pack: Record<string, string> = PACK) {
  const mem = memoryStore(pack);
  await mem.store.reload('initial');
  return createApp({ store: mem.store, heartbeatMs: 0, tokenBudgetMs, strict });
}

function compose(app: ReturnType<typeof createApp>, body: object) {
  return app.app.request('/api/compose', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('token budget', () => {
  it('answers the prompt without counts, with a TOKEN_BUDGET_EXCEEDED warning, past the budget', async () => {
    const app = await appWithBudget(0);
    const res = await compose(app, { role: 'writer', ambient: `Now: ${LONG}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-strata-warnings')).toBe('TOKEN_BUDGET_EXCEEDED');
    const body = await res.json();
    expect(body.text).toBe(`${LONG}\n\n---\n\nWriter.\n\n---\n\nNow: ${LONG}`);
    expect(body.tokens).toBeUndefined();
    expect(body.layers.every((l: { tokens?: number }) => l.tokens === undefined)).toBe(true);
    expect(body.diagnostics).toEqual([
      expect.objectContaining({ code: 'TOKEN_BUDGET_EXCEEDED', severity: 'warning' }),
    ]);
  });

  it('does not fail a strict request: the prompt the agent gets is whole', async () => {
    const app = await appWithBudget(0, true);
    const res = await compose(app, { role: 'critic', ambient: `Later: ${LONG}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-strata-warnings')).toBe('TOKEN_BUDGET_EXCEEDED');
  });

  it('does not cache an uncounted answer; the late count serves the next request', async () => {
    // A base text of its own: the late counts of the tests before (the worker's answers
    // are kept once they arrive) must not have counted it already.
    const app = await appWithBudget(0, false, { ...PACK, 'base.md': `${LONG} Uncached.` });
    const first = await app.app.request('/api/prompts/writer');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-strata-warnings')).toBe('TOKEN_BUDGET_EXCEEDED');
    // The worker's answer, arriving after the budget, is kept: a later request finds it.
    const counted = await waitFor(async () => {
      const res = await app.app.request('/api/prompts/writer');
      const body = await res.json();
      return body.tokens ? { res, body } : undefined;
    }, 60_000);
    expect(counted.res.headers.get('x-strata-warnings')).toBeNull();
    expect(counted.body.tokens.total).toBeGreaterThan(1000);
    expect(counted.body.diagnostics).toEqual([]);
  });

  it('counts within a generous budget', async () => {
    const app = await appWithBudget(120_000);
    const res = await compose(app, { role: 'writer', ambient: `Again: ${LONG}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-strata-warnings')).toBeNull();
    const body = await res.json();
    const base = body.layers.find((l: { source?: string }) => l.source === 'base.md');
    expect(body.tokens.total).toBeGreaterThan(base.tokens);
  });

  it('is not ready while start-up warms the token counter', async () => {
    const app = await appWithBudget(5000);
    app.service.warming = true;
    const res = await app.app.request('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ready: false, starting: true });
    app.service.warming = false;
    expect((await app.app.request('/readyz')).status).toBe(200);
  });
});
