import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../src/reload/store.js';
import { createApp } from '../../src/server/app.js';
import { startService } from '../../src/server/node/start.js';
import { EXAMPLES, okPack, tempDir, writeFiles } from '../helpers.js';
import { snapshotOf } from './helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const GOOD = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
  'teams/blue.md': 'Blue.',
  'identities/w1.md': 'I am w1.',
  'identities/c1.md': 'I am c1.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer, team: blue }\n  - { id: c1, role: critic }\n',
};

function without(path: string): Record<string, string> {
  const out: Record<string, string> = { ...GOOD };
  delete out[path];
  return out;
}

async function readyz(files: Record<string, string>, strict: boolean) {
  const { app } = createApp({ store: SnapshotStore.of(okPack(files)), strict, heartbeatMs: 0 });
  const res = await app.request('/readyz');
  return {
    status: res.status,
    body: (await res.json()) as { ready: boolean; reasons?: Array<{ code: string; message: string }> },
  };
}

describe('readiness with --strict', () => {
  it('is ready on examples/roboco', async () => {
    const { app } = createApp({
      store: SnapshotStore.of(await snapshotOf(`${EXAMPLES}/roboco`)),
      strict: true,
      heartbeatMs: 0,
    });
    const res = await app.request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ready: true });
  });

  it('is ready on a pack whose members compose cleanly', async () => {
    expect(await readyz(GOOD, true)).toEqual({ status: 200, body: expect.objectContaining({ ready: true }) });
  });

  it.each([
    [
      'a member that composes to the fallback text',
      { ...GOOD, 'base.md': '', 'roles/critic.md': '', 'identities/c1.md': '' },
      'FALLBACK_USED',
      'c1: ',
    ],
    ['a fleet member whose team file is missing', without('teams/blue.md'), 'LAYER_MISSING', 'w1: '],
    [
      'a fleet that disagrees with an identity file',
      { ...GOOD, 'identities/w1.md': '---\nrole: critic\n---\nI am w1.' },
      'FLEET_CONFLICT',
      'agent w1',
    ],
  ])(
    'is not ready with %s (503 with the reasons); ready without --strict',
    async (_name, files, code, prefix) => {
      const strict = await readyz(files, true);
      expect(strict.status).toBe(503);
      expect(strict.body.ready).toBe(false);
      const reason = strict.body.reasons!.find((r) => r.code === code);
      expect(reason?.message.startsWith(prefix)).toBe(true);
      expect((await readyz(files, false)).status).toBe(200);
    },
  );

  it('serve --strict on a pack with a member warning listens, is live, and is not ready', async () => {
    const dir = tempDir('strata-ready-');
    writeFiles(dir, { ...GOOD, 'roles/critic.md': '', 'base.md': '', 'identities/c1.md': '' });
    const started = await startService({
      dir,
      env: {},
      port: 0,
      watch: false,
      strict: true,
      logger: pino({ level: 'silent' }),
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    cleanups.push(() => started.service.close());
    expect((await fetch(`${started.service.url}/healthz`)).status).toBe(200);
    const res = await fetch(`${started.service.url}/readyz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reasons: Array<{ code: string }> }).reasons.map((r) => r.code)).toContain(
      'FALLBACK_USED',
    );
  });

  it('serve --strict keeps a clean version when a reload brings a problem (STRICT_REFUSED, 422), and stays ready', async () => {
    const dir = tempDir('strata-ready-');
    writeFiles(dir, GOOD);
    const started = await startService({
      dir,
      env: {},
      port: 0,
      watch: false,
      strict: true,
      adminToken: 'admin-token-for-tests',
      logger: pino({ level: 'silent' }),
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    cleanups.push(() => started.service.close());
    const url = started.service.url;
    const version = async () =>
      ((await (await fetch(`${url}/api/status`)).json()) as { version: string }).version;
    const reload = () =>
      fetch(`${url}/api/prompts/reload`, {
        method: 'POST',
        headers: { authorization: 'Bearer admin-token-for-tests' },
      });
    const before = await version();

    // A new agent whose team file does not exist: no served member degrades, but it warns.
    const fleet =
      'agents:\n  - { id: w1, role: writer, team: blue }\n  - { id: c1, role: critic }\n  - { id: x1, role: writer, team: red }\n';
    writeFileSync(join(dir, 'identities/x1.md'), 'I am x1.');
    writeFileSync(join(dir, 'fleet.yaml'), fleet);
    const refused = await reload();
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { diagnostics: Array<{ code: string; message: string }> };
    expect(body.diagnostics.map((d) => d.code)).toEqual(['STRICT_REFUSED', 'LAYER_MISSING']);
    expect(body.diagnostics[0]!.message).toContain(`version ${before} stays`);
    expect(body.diagnostics[1]!.message.startsWith('x1: ')).toBe(true);
    expect(await version()).toBe(before);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    // Fixed: the next reload swaps it in.
    writeFileSync(join(dir, 'teams/red.md'), 'Red.');
    expect((await reload()).status).toBe(200);
    expect(await version()).not.toBe(before);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(
      await (await fetch(`${url}/api/agents/x1/prompt`, { headers: { accept: 'text/plain' } })).text(),
    ).toContain('Red.');
  });
});
