import { afterEach, describe, it } from 'vitest';
import {
  type Cleanups,
  checkConsistency,
  configMap,
  inPlaceWrites,
  type Load,
  renameSaves,
} from './consistency.js';

// The soak: many rewrites under several clients, the service in its own process as in
// production (clients and writer run here).
const LOAD: Load = { rewrites: 200, clients: 4, answersPerClient: 60, service: 'process' };

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('consistency under load', () => {
  // The watcher alone (poll off): swaps 1-3 ms apart, the last of which must still be read.
  it(`a ConfigMap volume swapped ${LOAD.rewrites} times, watcher only: the service catches up`, async () => {
    await checkConsistency(configMap, LOAD, cleanups);
  });

  it.each([['a plain folder rename-saved file by file', renameSaves]] as const)(
    `%s ${LOAD.rewrites} times: every answer is one whole version, never a mix`,
    async (_name, setup) => {
      await checkConsistency(setup, LOAD, cleanups);
    },
  );

  it.each([
    ['a plain folder written in place file by file', inPlaceWrites],
    ['a plain folder rename-saved file by file', renameSaves],
    ['a ConfigMap volume swapped', configMap],
  ] as const)(
    `manual reloads (--no-watch) while %s ${LOAD.rewrites} times: every answer is one whole version`,
    async (_name, setup) => {
      await checkConsistency(setup, { ...LOAD, reload: 'manual' }, cleanups);
    },
  );
});
