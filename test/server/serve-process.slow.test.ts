import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFixture, MINI, ROOT, spawnServe } from './helpers.js';

// `strata serve` as its own process through the bin: exit statuses and signal wiring.
// The fast tier runs the same behaviours in process (serve.test.ts).

function serveProcess(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/strata.ts'), 'serve', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
    timeout: 300_000,
  });
}

describe('strata serve (a process)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops gracefully on %s with exit status 0', async (signal) => {
    const service = await spawnServe(['--dir', MINI, '--port', '0']);
    expect((await fetch(`${service.url}/api/prompts/writer`)).status).toBe(200);
    expect(await service.stop(signal)).toBe(0);
    const logs = service.logs().map((l) => JSON.parse(l));
    expect(logs.find((l) => l.msg === 'shutting down')).toMatchObject({ signal });
    expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['listening', 'request', 'stopped']));
  });

  it('refuses to start on a pack with errors (exit 1, diagnostics on stderr)', async () => {
    const { dir, cleanup } = await copyFixture();
    await writeFile(join(dir, 'fleet.yaml'), 'agents:\n  - { id: w1, role: nobody }\n');
    const out = serveProcess(['--dir', dir, '--port', '0']);
    await cleanup();
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/^error UNKNOWN_ROLE: fleet\.yaml:2:\d+: /m);
  });

  it('refuses to start on an invalid setting from the environment', () => {
    const out = serveProcess(['--dir', MINI, '--port', '0'], { ROBOCO_PONYTAIL_INTENSITY: 'max' });
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/^error INVALID_SETTING: /m);
  });
});
