import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/server/service/metrics.js';
import { appFor, MINI } from './helpers.js';

/** `/metrics` (with Node's process metrics, as `strata serve` has them) passes `promtool check metrics`. */
const promtool = spawnSync('promtool', ['--version']).status === 0;

describe('promtool check metrics', () => {
  it.skipIf(!promtool)('accepts the exposition (promtool is Debian’s prometheus package)', async () => {
    const service = await appFor(MINI, {});
    const metrics = createMetrics(service.store, { processMetrics: true });
    metrics.request('/api/prompts/:role', 'GET', 200, 0.001);
    metrics.compose('/api/prompts/{role}', 'ok');
    const text = await metrics.registry.metrics();
    service.close();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });
  if (!promtool)
    it('is skipped: promtool is not installed (apt-get install prometheus; .ci/run does)', () => {});
});
