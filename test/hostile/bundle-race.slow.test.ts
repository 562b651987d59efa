import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createBundle } from '../../src/source/bundle.js';
import { tempDir } from '../helpers.js';
import { spawnServe, waitFor } from '../server/helpers.js';

const TOKEN = 'race-token';
const enc = new TextEncoder();

/** A bundle of a one-role pack whose prompt is `Version <n>.` */
function bundle(n: number): Uint8Array {
  return createBundle(
    new Map([
      ['base.md', enc.encode(`Version ${n}.\n`)],
      ['roles/writer.md', enc.encode('Writer.\n')],
    ]),
  );
}

/**
 * `pack.tgz` flipped between a FIFO and a good bundle while the service reloads it (its
 * watcher, and manual reloads in between): no thread ever waits in open() on the FIFO, so
 * reloads go on, every answer is one whole version, the last bundle is served, and
 * SIGTERM stops the service.
 */
describe('a FIFO raced over a served bundle', () => {
  it('never blocks a reload; the last version is served and SIGTERM stops the service', async () => {
    const dir = tempDir('strata-race-');
    const spare = tempDir('strata-race-spare-');
    const file = join(dir, 'pack.tgz');
    writeFileSync(file, bundle(0));
    const served = await spawnServe(['--dir', file, '--port', '0', '--debounce', '20'], {
      STRATA_ADMIN_TOKEN: TOKEN,
    });
    // Whatever happens to the test, the service does not outlive it.
    onTestFinished(() => {
      served.child.kill('SIGKILL');
    });
    const prompt = async () => {
      const res = await fetch(`${served.url}/api/prompts/writer`, {
        headers: { accept: 'text/plain' },
        signal: AbortSignal.timeout(30_000),
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    const reload = async () => {
      const res = await fetch(`${served.url}/api/prompts/reload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const rounds = 30;
    const statuses = new Set<number>();
    try {
      for (let i = 1; i <= rounds; i++) {
        const fifo = join(spare, `fifo-${i}`);
        execFileSync('mkfifo', [fifo]);
        renameSync(fifo, file);
        statuses.add(await reload());
        expect(await prompt()).toMatch(/^Version \d+\.\n\n---\n\nWriter\.$/);
        const good = join(spare, `pack-${i}.tgz`);
        writeFileSync(good, bundle(i));
        renameSync(good, file);
        statuses.add(await reload());
      }
      // 422 when the reload read the FIFO (SPECIAL_FILE), 200 when it read a bundle.
      expect([...statuses].every((s) => s === 200 || s === 422)).toBe(true);
      await waitFor(async () => ((await prompt()).startsWith(`Version ${rounds}.`) ? true : undefined));
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    } finally {
      const stopped = await Promise.race([
        served.stop('SIGTERM'),
        new Promise<'hung'>((done) => setTimeout(() => done('hung'), 30_000)),
      ]);
      if (stopped === 'hung') await served.stop('SIGKILL');
      expect(stopped).toBe(0);
    }
  });
});
