import { cp, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../src/server/node/start.js';
import { createBundle } from '../../src/source/bundle.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { cli, EXAMPLES } from '../helpers.js';
import { eventStream, waitFor } from './helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-bundle-serve-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(dir: string) {
  const started = await startService({
    dir,
    env: {},
    port: 0,
    debounceMs: 50,
    pollMs: 0,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  cleanups.push(() => started.service.close());
  return started.service;
}

/** An agent's prompt; waits out 503s (token counting warming up on a loaded machine). */
function prompt(url: string, agent: string): Promise<{ version: string; text: string; status: number }> {
  return waitFor(
    async () => {
      const res = await fetch(`${url}/api/agents/${agent}/prompt`, { headers: { accept: 'text/plain' } });
      if (res.status === 503) return undefined;
      return {
        status: res.status,
        version: res.headers.get('x-strata-version') ?? '',
        text: await res.text(),
      };
    },
    60_000,
    `the prompt of ${agent}`,
  );
}

describe('serving a pack bundle', () => {
  it('serves examples/roboco from its bundle byte for byte as from the folder', async () => {
    const dir = await temp();
    const file = join(dir, 'pack.tgz');
    expect((await cli(['bundle', '--dir', join(EXAMPLES, 'roboco'), '--out', file])).code).toBe(0);
    const fromDir = await serve(join(EXAMPLES, 'roboco'));
    const fromBundle = await serve(file);
    expect(fromBundle.store.state!.snapshot.version).toBe(fromDir.store.state!.snapshot.version);
    const fleet = fromDir.store.state!.snapshot.fleet.map((a) => a.id);
    expect(fleet).toHaveLength(8);
    for (const agent of fleet) {
      const a = await prompt(fromDir.url, agent);
      const b = await prompt(fromBundle.url, agent);
      expect(a.status, agent).toBe(200);
      expect(b, agent).toEqual(a);
    }
    const status = await (await fetch(`${fromBundle.url}/api/status`)).json();
    expect(status).toMatchObject({ counts: { files: 42, agents: 8 }, service: { watching: true } });
  });

  it('reloads a bundle swapped ConfigMap-style (..data) while serving, never answering a mix', async () => {
    // v1 and v2 of the pack: v2 rewords base.md and ada's identity (text only: served, not held).
    const work = await temp();
    const v2dir = join(work, 'v2');
    await cp(join(EXAMPLES, 'roboco'), v2dir, { recursive: true });
    await writeFile(join(v2dir, 'base.md'), 'Base rules, second edition.\n');
    await writeFile(join(v2dir, 'identities/ada.md'), 'I am Ada, second edition.\n');
    const v1 = createBundle((await readPackDir(join(EXAMPLES, 'roboco'))).files);
    const v2 = createBundle((await readPackDir(v2dir)).files);

    // The kubelet's layout: pack.tgz -> ..data/pack.tgz, ..data -> ..<timestamp>/.
    const volume = join(work, 'volume');
    await mkdir(join(volume, '..2026_01_01_00_00_00.1'), { recursive: true });
    await writeFile(join(volume, '..2026_01_01_00_00_00.1', 'pack.tgz'), v1);
    await symlink('..2026_01_01_00_00_00.1', join(volume, '..data'));
    await symlink('..data/pack.tgz', join(volume, 'pack.tgz'));
    const service = await serve(join(volume, 'pack.tgz'));
    const events = eventStream(await fetch(`${service.url}/api/events`));
    cleanups.push(() => events.close());
    const first = await prompt(service.url, 'ada');
    const expected = new Map([[first.version, first.text]]);
    const fromV2 = await serve(v2dir);
    const second = await prompt(fromV2.url, 'ada');
    expected.set(second.version, second.text);
    expect(expected.size).toBe(2);

    // Clients read while the ConfigMap is updated: every answer is v1 or v2, whole.
    let reading = true;
    const answers: Array<{ version: string; text: string; status: number }> = [];
    const readers = [1, 2, 3].map(async () => {
      while (reading) answers.push(await prompt(service.url, 'ada'));
    });
    await mkdir(join(volume, '..2026_01_01_00_01_00.2'));
    await writeFile(join(volume, '..2026_01_01_00_01_00.2', 'pack.tgz'), v2);
    await symlink('..2026_01_01_00_01_00.2', join(volume, '..data_tmp'));
    await rename(join(volume, '..data_tmp'), join(volume, '..data'));
    await rm(join(volume, '..2026_01_01_00_00_00.1'), { recursive: true });

    await waitFor(
      () => (answers.some((a) => a.version === second.version) ? true : undefined),
      15_000,
      'the swapped bundle to be served',
    );
    reading = false;
    await Promise.all(readers);
    expect(answers.length).toBeGreaterThan(0);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.text).toBe(expected.get(a.version));
    }
    const seen = [];
    for (;;) {
      const [e] = await events.next(1, 15_000);
      seen.push(e!.event);
      if (e!.event === 'reload') break;
    }
    expect(seen).toEqual(['hello', 'reload']);
  });

  it('keeps the last good version when the bundle is replaced by a hostile one', async () => {
    const dir = await temp();
    const file = join(dir, 'pack.tgz');
    await writeFile(file, createBundle((await readPackDir(join(EXAMPLES, 'roboco'))).files));
    const service = await serve(file);
    const good = await prompt(service.url, 'ada');
    const { gzipSync } = await import('node:zlib');
    const { writeTar } = await import('../../src/source/tar.js');
    const evil = Buffer.from(writeTar([{ path: 'xx/base.md', bytes: new TextEncoder().encode('Evil.') }]));
    evil.write('../', 0); // rename the entry to ../base.md, then fix the checksum
    evil.fill(0x20, 148, 156);
    const sum = evil.subarray(0, 512).reduce((a, b) => a + b, 0);
    evil.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    await writeFile(`${file}.tmp`, gzipSync(evil));
    await rename(`${file}.tmp`, file);
    const status = await waitFor(
      async () => {
        const s = await (await fetch(`${service.url}/api/status`)).json();
        return s.lastError ? s : undefined;
      },
      15_000,
      'the failed reload',
    );
    expect(status.lastError.diagnostics.map((d: { code: string }) => d.code)).toEqual(['BUNDLE_BAD_PATH']);
    expect(await prompt(service.url, 'ada')).toEqual(good);
  });
});
