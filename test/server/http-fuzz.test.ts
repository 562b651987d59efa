import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StrataApp } from '../../src/server/app.js';
import { appFor, MINI } from './helpers.js';

// Request fuzzing of every route through the in-process app: paths, query parameters,
// bodies and headers drawn at random around the real shapes. Whatever a client sends,
// the service never answers 5xx, and every error answer is a JSON `{error: {code, message}}`.
// Bounded: a fixed number of runs with a fixed seed, so the suite is fast and repeatable.

let service: StrataApp;
beforeAll(async () => {
  service = await appFor(MINI, { adminToken: 'tok' });
});

const NAMES = [
  'writer',
  'critic',
  'w1',
  'c1',
  'blue',
  'nobody',
  '',
  '..',
  '%2e%2e',
  '__proto__',
  'constructor',
];
const text = fc.oneof(
  fc.constantFrom(...NAMES),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('x'.repeat(3000), '中'.repeat(1000), '%', '%zz', '\u0000', 'a/b', 'a b'),
);
const segment = text.map((s) => encodeURIComponent(s));
const PATHS = [
  '/',
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/api/status',
  '/api/roles',
  '/api/fleet',
  '/api/settings',
  '/api/compose',
  '/api/teams/compose',
  '/api/prompts/reload',
  '/api/prompts/{}',
  '/api/agents/{}/prompt',
  '/api/agents/{}/config',
  '/api/{}',
  '/{}',
];
const path = fc
  .tuple(fc.constantFrom(...PATHS), segment)
  .map(([template, seg]) => template.replace('{}', seg));
const queryKey = fc.oneof(
  fc.constantFrom(
    'team',
    'agent',
    'role',
    'ambient',
    'version',
    'format',
    'accept',
    'set.fable_mode_enabled',
  ),
  fc.constantFrom('set.__proto__', 'set.', 'set.constructor', '__proto__', 'set.ponytail'),
  text.map((s) => `set.${s}`),
  text,
);
const queryValue = fc.oneof(
  text,
  fc.constantFrom('current', 'previous', 'openai', 'anthropic', 'on', 'off', 'true', '1'),
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ''));
const settings = fc.dictionary(
  fc.oneof(fc.constantFrom('fable_mode_enabled', 'ponytail', '__proto__'), fc.string({ maxLength: 8 })),
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.object()),
  { maxKeys: 3 },
);
const composeBody = fc.record(
  {
    role: text,
    team: text,
    agent: text,
    ambient: text,
    version: fc.constantFrom('current', 'previous', 'nope'),
    format: fc.constantFrom('openai', 'anthropic', 'xml'),
    settings,
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const teamBody = fc.record(
  {
    team: text,
    settings,
    members: fc.array(fc.record({ agent: text, role: text, settings }, { requiredKeys: [] }), {
      maxLength: 4,
    }),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  composeBody.map((b) => JSON.stringify(b)),
  teamBody.map((b) => JSON.stringify(b)),
  fc.json(),
  fc.string({ maxLength: 50 }),
  fc.constantFrom(
    '',
    '{',
    'null',
    '[]',
    '{"__proto__":{"a":1}}',
    '{"settings":{"__proto__":"x"},"role":"writer"}',
  ),
);
const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/json; charset=utf-8',
      'x/y',
      '',
    ),
    accept: fc.constantFrom(
      'text/plain',
      'application/json',
      '*/*',
      'text/event-stream',
      'text/plain, application/json',
    ),
    'if-none-match': fc.oneof(fc.constant('*'), fc.string({ maxLength: 20 }), fc.constant('W/"x", "y"')),
    authorization: fc.constantFrom('Bearer tok', 'Bearer nope', 'Basic x', ''),
    origin: fc.constantFrom('http://localhost:7411', 'https://evil.example', 'null'),
    'x-request-id': fc.string({ maxLength: 40 }),
  },
  { requiredKeys: [] },
);
const method = fc.constantFrom(
  'GET',
  'GET',
  'GET',
  'POST',
  'POST',
  'HEAD',
  'OPTIONS',
  'PUT',
  'DELETE',
  'PATCH',
);

describe('HTTP fuzz', () => {
  it('no request makes the service answer 5xx or an error that is not JSON', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, query, body, headers, async (m, p, q, b, h) => {
        const init: RequestInit = { method: m, headers: clean(h) };
        if (m === 'POST' || m === 'PUT' || m === 'PATCH') init.body = b;
        const res = await service.app.request(`${p}${q}`, init);
        const type = res.headers.get('content-type') ?? '';
        if (type.startsWith('text/event-stream')) {
          await res.body?.cancel();
          return;
        }
        const raw = await res.text();
        expect(res.status, `${m} ${p}${q} ${b}`).toBeLessThan(500);
        if (res.status >= 400 && m !== 'HEAD') {
          expect(type, `${m} ${p}${q}`).toContain('application/json');
          const parsed = JSON.parse(raw) as { error?: { code?: unknown; message?: unknown } };
          expect(typeof parsed.error?.code, `${m} ${p}${q}: ${raw}`).toBe('string');
          expect(typeof parsed.error?.message).toBe('string');
        }
      }),
      { numRuns: 400, seed: 11, endOnFailure: true },
    );
  });
});

// --- helpers ---

function clean(h: Record<string, string>): Record<string, string> {
  // Header values must be ISO-8859-1 without control characters to be sent at all.
  return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== '' && /^[\x20-\x7e]*$/.test(v)));
}
