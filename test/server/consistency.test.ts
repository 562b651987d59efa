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
  it.each([
    ['a ConfigMap volume swapped', configMap],
    ['a plain folder rename-saved file by file', renameSaves],
  ] as const)(
    `%s ${LOAD.rewrites} times: every answer is one whole version, never a mix`,
    async (_name, setup) => {
      await checkConsistency(setup, LOAD, cleanups);
    },
    120_000,
  );

  it(`manual reloads (--no-watch) while a plain folder is written in place file by file ${LOAD.rewrites} times: every answer is one whole version`, async () => {
    await checkConsistency(inPlaceWrites, { ...LOAD, reload: 'manual' }, cleanups);
  }, 120_000);
});
