import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { type Browser, chromium } from 'playwright-core';
import { type ServiceOptions, startService } from '../../src/server/node/start.js';
import { EXAMPLES } from '../helpers.js';

/** A running strata service over a temp copy of an example pack, on 127.0.0.1. */
export interface TestService {
  url: string;
  dir: string;
  close(): Promise<void>;
}

/** Starts the real service (`strata serve`'s own start-up) over a copy of `examples/<pack>`, on a free port. */
export async function startPackService(
  pack = 'roboco',
  options: Partial<ServiceOptions> = {},
): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-inspector-'));
  cpSync(join(EXAMPLES, pack), dir, { recursive: true });
  const started = await startService({
    dir,
    env: {},
    host: '127.0.0.1',
    port: 0,
    debounceMs: 50,
    pollMs: 1000,
    shutdownTimeoutMs: 500,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  if (!started.ok)
    throw new Error(`the example pack ${pack} does not load: ${JSON.stringify(started.diagnostics)}`);
  const { service } = started;
  return {
    url: service.url,
    dir,
    async close() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium (or `CHROMIUM_PATH`), headless, as every browser test launches it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

// --- internal ---

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
