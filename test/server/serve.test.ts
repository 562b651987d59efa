import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { copyFixture, MINI, ROOT, serveInProcess, waitFor } from './helpers.js';

// In process, stopped through its stop signal; serve-process.slow.test.ts runs the bin as
// a process (SIGTERM and SIGINT wiring, exit statuses).

const WRITER_V2 = 'Base.\n\n---\n\nWriter v2.';

describe('strata serve', () => {
  it('binds loopback, serves, reloads on a file change, and stops gracefully on its stop signal (exit 0)', async () => {
    const { dir, cleanup } = await copyFixture();
    const service = await serveInProcess(['--dir', dir, '--port', '0', '--debounce', '20'], {
      STRATA_ADMIN_TOKEN: 'tok',
    });
    try {
      expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      await writeFile(join(dir, 'roles/writer.md'), 'Writer v2.\n');
      const text = await waitFor(
        async () => {
          const body = await (
            await fetch(`${service.url}/api/prompts/writer`, { headers: { accept: 'text/plain' } })
          ).text();
          return body.endsWith('Writer v2.') ? body : undefined;
        },
        30_000,
        'the edit to be served',
      );
      expect(text).toBe(WRITER_V2);
      const reload = await fetch(`${service.url}/api/prompts/reload`, {
        method: 'POST',
        headers: { authorization: 'Bearer tok' },
      });
      expect(reload.status).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
      await cleanup();
    }
    const logs = service.logs().map((l) => JSON.parse(l));
    expect(logs.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['pack loaded', 'listening', 'request', 'shutting down', 'stopped']),
    );
    expect(logs.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    expect(logs.find((l) => l.msg === 'request')).toMatchObject({
      reqId: expect.any(String),
      method: 'GET',
      status: 200,
    });
  });

  it('refuses to start on a pack with errors (exit 1, diagnostics on stderr)', async () => {
    const { dir, cleanup } = await copyFixture();
    await writeFile(join(dir, 'fleet.yaml'), 'agents:\n  - { id: w1, role: nobody }\n');
    const out = await runServe(['--dir', dir, '--port', '0']);
    await cleanup();
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/^error UNKNOWN_ROLE: fleet\.yaml:2:\d+: /m);
  });

  it('refuses to start on an invalid setting from the environment', async () => {
    const out = await runServe(['--dir', MINI, '--port', '0'], { ROBOCO_PONYTAIL_INTENSITY: 'max' });
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/^error INVALID_SETTING: /m);
  });

  it.each([
    [['serve', '--dir', MINI, '--port', 'abc']],
    [['serve', '--dir', MINI, '--port', '70000']],
    [['serve', '--dir', MINI, '--log-level', 'loud']],
    [['serve']],
  ])('exits 2 on a usage error: %j', async (argv) => {
    let stderr = '';
    const code = await run(argv, { stdout: () => {}, stderr: (s) => (stderr += s), env: {}, cwd: ROOT });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error USAGE: /);
  });
});

// --- internal ---

/** `strata serve` in this process, for start-ups that fail (they return without a stop). */
async function runServe(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number; stderr: string }> {
  let stderr = '';
  const status = await run(['serve', ...args], {
    stdout: () => {},
    stderr: (s) => (stderr += s),
    env,
    cwd: ROOT,
    signal: new AbortController().signal,
  });
  return { status, stderr };
}
