import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../src/server/node/start.js';
import { appFor, ROOT, serveInProcess, waitFor } from './helpers.js';

const roboco = join(ROOT, 'examples', 'roboco');
const chorus = join(ROOT, 'examples', 'chorus');
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const post = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('unknown names over the API', () => {
  it('POST /api/compose and GET /api/agents/:agent/prompt agree: 404 UNKNOWN_AGENT with suggestions', async () => {
    const { app } = await appFor(roboco);
    for (const res of [
      await app.request('/api/compose', post({ agent: 'adaa' })),
      await app.request('/api/agents/adaa/prompt'),
    ]) {
      expect(res.status).toBe(404);
      const { error } = await res.json();
      expect(error.code).toBe('UNKNOWN_AGENT');
      expect(error.message).toContain('did you mean "ada"?');
      expect(error.diagnostics[0].suggestions).toEqual(['ada']);
    }
  });

  it.each([
    [
      'GET /api/prompts/qa?team=paymnets',
      '/api/prompts/qa?team=paymnets',
      undefined,
      'UNKNOWN_TEAM',
      ['payments'],
    ],
    [
      'GET /api/agents/grayce/prompt?role=qa',
      '/api/agents/grayce/prompt?role=qa',
      undefined,
      'UNKNOWN_AGENT',
      ['grace'],
    ],
    ['POST /api/compose {}', '/api/compose', {}, 'NO_ROLE', undefined],
    [
      'POST /api/compose {role, team}',
      '/api/compose',
      { role: 'qa', team: 'paymnets' },
      'UNKNOWN_TEAM',
      ['payments'],
    ],
  ])(
    '%s: 200 with the warning in the result and X-Strata-Warnings',
    async (_, path, body, code, suggestions) => {
      const { app } = await appFor(roboco);
      const res = await app.request(path, body === undefined ? {} : post(body));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-strata-warnings')).toBe(code);
      const result = await res.json();
      expect(result.diagnostics).toEqual([expect.objectContaining({ code, severity: 'warning' })]);
      expect(result.diagnostics[0].suggestions).toEqual(suggestions);
    },
  );

  it.each([
    ['query strict=1', '/api/prompts/qa?team=paymnets&strict=1', undefined, 404, 'UNKNOWN_TEAM'],
    ['query strict=true', '/api/agents/grayce/prompt?role=qa&strict=true', undefined, 404, 'UNKNOWN_AGENT'],
    ['body strict', '/api/compose', { strict: true }, 400, 'NO_ROLE'],
    [
      'body strict, team',
      '/api/compose',
      { role: 'qa', team: 'paymnets', strict: true },
      404,
      'UNKNOWN_TEAM',
    ],
  ])('the strict request flag (%s) makes the warning the error', async (_, path, body, status, code) => {
    const { app } = await appFor(roboco);
    const res = await app.request(path, body === undefined ? {} : post(body));
    expect(res.status).toBe(status);
    expect((await res.json()).error.code).toBe(code);
  });

  it('a strict service answers every warning as an error; clean prompts as before', async () => {
    const { app } = await appFor(roboco, { strict: true });
    const res = await app.request('/api/prompts/qa?team=paymnets');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('UNKNOWN_TEAM');
    expect((await app.request('/api/agents/ada/prompt')).status).toBe(200);
  });

  it('metrics count warnings by code', async () => {
    const { app } = await appFor(roboco);
    await app.request('/api/prompts/qa?team=paymnets');
    await app.request('/api/prompts/qa?team=paymnets');
    await app.request('/api/compose', post({}));
    const text = await (await app.request('/metrics')).text();
    expect(text).toContain(
      'strata_compose_warnings_total{route="/api/prompts/{role}",code="UNKNOWN_TEAM"} 2',
    );
    expect(text).toContain('strata_compose_warnings_total{route="/api/compose",code="NO_ROLE"} 1');
  });

  it('a request never sets a path setting: 400 PATH_SETTING_IN_REQUEST', async () => {
    const { app } = await appFor(chorus);
    const res = await app.request('/api/prompts/arbiter?set.default_instructions_path=site-roles.yaml');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('PATH_SETTING_IN_REQUEST');
    const body = await app.request(
      '/api/compose',
      post({ role: 'arbiter', settings: { default_instructions_path: '/etc/passwd' } }),
    );
    expect(body.status).toBe(400);
    expect((await body.json()).error.code).toBe('PATH_SETTING_IN_REQUEST');
  });
});

describe('a running service (real socket, real files, real watcher)', () => {
  async function temp(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'strata-names-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  it('the warning header survives the fast path (cached answers)', async () => {
    const started = await startService({ dir: roboco, env: {}, port: 0, watch: false, logger: silent() });
    if (!started.ok) throw new Error('start failed');
    cleanups.push(() => started.service.close());
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${started.service.url}/api/prompts/qa?team=paymnets`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-strata-warnings')).toBe('UNKNOWN_TEAM');
      await res.arrayBuffer();
    }
  });

  it('CHORUS defaults outside the pack: composed, in provenance with its absolute path, reloaded on change', async () => {
    const base = await temp();
    const pack = join(base, 'pack');
    await cp(chorus, pack, { recursive: true });
    const orgDir = join(base, 'org');
    const defaults = join(orgDir, 'defaults.md');
    await cp(join(ROOT, 'test', 'fixtures', 'org-defaults'), orgDir, { recursive: true });
    const started = await startService({
      dir: pack,
      env: { CHORUS_DEFAULT_INSTRUCTIONS_PATH: defaults },
      port: 0,
      debounceMs: 50,
      pollMs: 0,
      logger: silent(),
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    cleanups.push(() => started.service.close());
    const url = `${started.service.url}/api/prompts/arbiter`;
    const first = await (await fetch(url)).json();
    const d = first.layers.find((l: { id: string }) => l.id === 'D');
    expect(d).toMatchObject({ included: true, source: defaults });
    expect(first.text.endsWith((await readFile(defaults, 'utf8')).trim())).toBe(true);

    await writeFile(defaults, 'Organisation-wide defaults, revised: cite the ticket.\n');
    const text = await waitFor(
      async () => {
        const res = await fetch(url, { headers: { accept: 'text/plain' } });
        const body = await res.text();
        return body.endsWith('Organisation-wide defaults, revised: cite the ticket.') ? body : undefined;
      },
      30_000,
      'the revised defaults to be served',
    );
    expect(text.startsWith(first.text.slice(0, 40))).toBe(true);
    expect(started.service.store.state!.snapshot.version).not.toBe(first.version);
  });

  it('serve --set names the outside file (operator) and serve --strict refuses warnings', async () => {
    const defaults = join(ROOT, 'test', 'fixtures', 'org-defaults', 'defaults.md');
    const run = await serveInProcess([
      '--dir',
      chorus,
      '--port',
      '0',
      '--no-watch',
      '--set',
      `default_instructions_path=${defaults}`,
      '--strict',
    ]);
    cleanups.push(() => run.stop());
    const ok = await (await fetch(`${run.url}/api/prompts/arbiter`)).json();
    expect(ok.layers.find((l: { id: string }) => l.id === 'D').source).toBe(defaults);
    const strict = await fetch(`${run.url}/api/prompts/arbiter?team=blue`);
    expect(strict.status).toBe(404);
    expect((await strict.json()).error.code).toBe('UNKNOWN_TEAM');
  });
});

function silent() {
  return pino({ level: 'silent' });
}
