import { describe, expect, it } from 'vitest';
import { openPack } from '../../src/source/open.js';
import { cli } from '../helpers.js';
import { largeFleetPack } from './fleet.js';

/**
 * A fleet ten times the fast tier's, 100,000 agents in one 5.5 MB fleet.yaml: a load
 * linear in the agents reads it in seconds; one quadratic in them (each agent's position
 * worked out from the whole file) would not finish in an hour, let alone in the test's
 * time.
 */
describe('a 100,000-agent fleet', () => {
  const maxFileBytes = 8 * 1024 * 1024;

  it('loads, every agent located on its own line', async () => {
    const read = await openPack({ kind: 'dir', dir: largeFleetPack(100_000) }, { env: {}, maxFileBytes });
    expect(read.diagnostics).toEqual([]);
    expect(read.snapshot!.fleet.length).toBe(100_008);
    expect(read.snapshot!.fleet[99_999]!.at).toEqual({ file: 'fleet.yaml', line: 2 + 3 * 99_999, col: 5 });
  });

  it('strata fleet lists it and exits 0', async () => {
    const dir = largeFleetPack(100_000);
    const { code, stdout } = await cli([
      'fleet',
      '--dir',
      dir,
      '--json',
      '--max-file-bytes',
      String(maxFileBytes),
    ]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { agents: unknown[] }).agents.length).toBe(100_008);
  });
});
