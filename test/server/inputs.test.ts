import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { checked } from './contract.js';
import { appFor, memoryStore, ROOT } from './helpers.js';

// Request inputs are the caller's to give: an unknown, invalid or missing one, or a
// working directory outside the pack, is a bad request (400), never a server error.

const post = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('input errors over the API', () => {
  it.each([
    ['crewai', { role: 'market_analyst', vars: { sector: 'Fintech' } }, 'MISSING_INPUT'],
    ['agents-md', { vars: { cdw: 'backend' } }, 'UNKNOWN_INPUT'],
    ['agents-md', { vars: { cwd: '../outside' } }, 'PATH_OUTSIDE_PACK'],
    ['agents-md', { vars: { cwd: '/srv/repo/backend' } }, 'PATH_OUTSIDE_PACK'],
  ])('%s %j → 400 %s', async (example, body, code) => {
    const { app } = await appFor(join(ROOT, 'examples', example));
    const res = await app.request('/api/compose', post(body));
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(code);
  });

  it('an input value of the wrong type → 400 INVALID_INPUT', async () => {
    const { store } = memoryStore({
      'strata.yaml':
        'inputs:\n  level: { type: integer, min: 1, max: 3 }\nlayers:\n  - id: a\n    text: "Level {{level}}."\n',
    });
    await store.reload('initial');
    const { app } = checked(createApp({ store, heartbeatMs: 0 }));
    const res = await app.request('/api/compose', post({ vars: { level: '9' } }));
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('INVALID_INPUT');
    const ok = await app.request('/api/compose', post({ vars: { level: '2' } }));
    expect(await ok.text()).toContain('Level 2.');
  });
});
