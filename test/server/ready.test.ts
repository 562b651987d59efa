import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../src/reload/store.js';
import { createApp } from '../../src/server/app.js';
import { startService } from '../../src/server/node.js';
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
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer }\n  - { id: c1, role: critic }\n',
};

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

  it.each([
    [
      'a member that composes to the fallback text',
      { ...GOOD, 'base.md': '', 'roles/critic.md': '' },
      [['FALLBACK_USED', 'c1: ']],
    ],
    [
      'a fleet that disagrees with an identity file',
      { ...GOOD, 'identities/w1.md': '---\nrole: critic\n---\nI am w1.' },
      [['FLEET_CONFLICT', '']],
    ],
  ])('is not ready with %s (503 with the reasons); ready without --strict', async (_name, files, reasons) => {
    const strict = await readyz(files, true);
    expect(strict.status).toBe(503);
    expect(strict.body.ready).toBe(false);
    expect(
      strict.body.reasons!.map((r) => [r.code, reasons.find(([c]) => c === r.code)?.[1] ?? '?']),
    ).toEqual(reasons);
    for (const [code, prefix] of reasons)
      expect(strict.body.reasons!.find((r) => r.code === code)!.message.startsWith(prefix!)).toBe(true);
    expect((await readyz(files, false)).status).toBe(200);
  });

  it('serve --strict on a pack with a member warning listens, is live, and is not ready', async () => {
    const dir = tempDir('strata-ready-');
    writeFiles(dir, { ...GOOD, 'roles/critic.md': '', 'base.md': '' });
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
});
