import { describe, expect, it } from 'vitest';
import { runScaleOut } from '../../bench/scale-out.js';

// Three `strata serve` processes on one ConfigMap-style pack behind Debian's HAProxy on
// loopback; the pack is swapped while readers go through the balancer.
describe('three replicas behind HAProxy', () => {
  it('agree on every swap, with no failed or mixed answer, and events reach a client through the balancer', async () => {
    const report = await runScaleOut({ replicas: 3, swaps: 3, readers: 3, convergeTimeoutMs: 60_000 });
    expect(report.notConverged).toBe(0);
    expect(report.convergeMs).toHaveLength(3);
    expect(report.requests).toBeGreaterThan(0);
    expect(report.failed).toBe(0);
    expect(report.mixed).toBe(0);
    expect(report.eventsSeen).toBe(3);
    expect(new Set(report.versions).size).toBe(3);
    expect(report.finalVersions).toEqual([report.versions[2], report.versions[2], report.versions[2]]);
  });
});
