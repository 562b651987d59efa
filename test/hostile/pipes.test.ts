import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, ROOT } from '../helpers.js';
import { spawnServe } from '../server/helpers.js';

const ROBOCO = join(EXAMPLES, 'roboco');

/**
 * Output to a reader that went away (`strata roles | head -1`, a log collector that
 * restarted): the write fails with EPIPE. It must neither crash the process with a stack
 * trace nor change its exit status, and `serve` must keep serving.
 */
describe.concurrent('output to a closed pipe', () => {
  it.each([
    [['compose', '--dir', ROBOCO, '--agent', 'ada'], 0],
    [['compose', '--dir', ROBOCO, '--role', 'nobody'], 1],
    [['compose', '--dir', ROBOCO, '--role'], 2],
  ])('%j exits %i with its own status, no stack trace', async (args, status) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/strata.ts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Both read ends closed before the command writes: every write fails with EPIPE.
    child.stdout!.destroy();
    child.stderr!.destroy();
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(status);
  });

  it('serve keeps answering once its log pipe is closed, and stops cleanly', async () => {
    const served = await spawnServe(['--dir', ROBOCO, '--port', '0', '--no-watch']);
    served.child.stdout!.destroy();
    let stderr = '';
    served.child.stderr!.on('data', (d) => {
      stderr += d;
    });
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${served.url}/api/agents/ada/prompt`, { headers: { accept: 'text/plain' } });
      expect(res.status).toBe(200);
      await res.text();
      // Let the buffered log lines be written (and fail) between requests.
      await new Promise((r) => setTimeout(r, 150));
    }
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    expect(await served.stop()).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  });
});
