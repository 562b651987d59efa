import { afterEach, describe, it } from 'vitest';
import {
  type Cleanups,
  checkConsistency,
  configMap,
  inPlaceWrites,
  type Load,
  renameSaves,
} from './consistency.js';

// A short run of the consistency check; consistency.slow.test.ts is the soak.
const LOAD: Load = { rewrites: 14, clients: 2, answersPerClient: 20, service: 'inline' };

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('consistency while the pack is rewritten', () => {
  // The watcher alone (poll off): swaps 1-3 ms apart, the last of which must still be read.
  it(`a ConfigMap volume swapped ${LOAD.rewrites} times, watcher only: the service catches up`, async () => {
    await checkConsistency(configMap, LOAD, cleanups);
  });

  it(`manual reloads (--no-watch) while a ConfigMap volume is swapped ${LOAD.rewrites} times: every answer is one whole version`, async () => {
    await checkConsistency(configMap, { ...LOAD, reload: 'manual' }, cleanups);
  });

  it.each([['a plain folder rename-saved file by file', renameSaves]] as const)(
    `%s ${LOAD.rewrites} times: every answer is one whole version, never a mix`,
    async (_name, setup) => {
      await checkConsistency(setup, LOAD, cleanups);
    },
  );

  it(`manual reloads (--no-watch) while a plain folder is rename-saved file by file ${LOAD.rewrites} times: every answer is one whole version`, async () => {
    await checkConsistency(renameSaves, { ...LOAD, reload: 'manual' }, cleanups);
  });

  it(`manual reloads (--no-watch) while a plain folder is written in place file by file ${LOAD.rewrites} times: every answer is one whole version`, async () => {
    await checkConsistency(inPlaceWrites, { ...LOAD, reload: 'manual' }, cleanups);
  });
});
