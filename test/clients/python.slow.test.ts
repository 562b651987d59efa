import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { loadPack } from '../../src/source/load.js';

// The Python client (clients/python) against the real service on loopback, with Debian's
// python3 and nothing but the standard library.

const ROOT = resolve(import.meta.dirname, '../..');
const CLIENT = join(ROOT, 'clients', 'python');

let base: string;
let service: RunningService;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'strata-python-'));
  const pack = join(base, 'pack');
  await cp(join(ROOT, 'examples', 'roboco'), pack, { recursive: true });
  const { snapshot } = await loadPack(pack, { env: {} });
  if (!snapshot) throw new Error('example pack does not load');
  // The exact bytes the client must hand its agent.
  await writeFile(join(base, 'ada.txt'), compose(snapshot, { agent: 'ada' }).text);
  await writeFile(
    join(base, 'ada-ambient.txt'),
    compose(snapshot, { agent: 'ada', ambient: 'Ship it.' }).text,
  );
  const started = await startService({
    dir: pack,
    env: {},
    port: 0,
    debounceMs: 50,
    pollMs: 0,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  service = started.service;
});

afterAll(async () => {
  await service?.close();
  await rm(base, { recursive: true, force: true });
});

describe('the Python client', () => {
  it('passes its unittest suite against the running service', async () => {
    const { code, output } = await python(['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      STRATA_TEST_URL: service.url,
      STRATA_TEST_PACK: join(base, 'pack'),
      STRATA_TEST_EXPECT: base,
    });
    expect(output).toMatch(/\nOK\n/); // every test ran: none skipped
    expect(output).toMatch(/Ran 12 tests/);
    // No thread died on the way (its traceback is printed, the test still passes).
    expect(output).not.toContain('Traceback');
    expect(code, output).toBe(0);
  });
});

function python(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    // Asynchronous on purpose: the service answers from this same process.
    const child = spawn('python3', args, { cwd: CLIENT, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (b) => {
      output += b;
    });
    child.stderr.on('data', (b) => {
      output += b;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}
