import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { latencyHistogram } from '../../src/server/service/latency.js';

describe('the request-latency histogram', () => {
  it("exposes exactly what prom-client's own observe would, byte for byte", async () => {
    const buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
    const ours = new Registry();
    const theirs = new Registry();
    const latency = latencyHistogram({ name: 'x_seconds', help: 'Latency', buckets, registers: [ours] });
    const reference = new Histogram({
      name: 'x_seconds',
      help: 'Latency',
      labelNames: ['route', 'method'] as const,
      buckets,
      registers: [theirs],
    });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    const values = [0, 0.0004, 0.0005, 0.00051, 0.003, 0.2, 0.99, 1, 1.5, 30, 1e-9];
    for (const [i, seconds] of values.entries()) {
      for (const [route, method] of [
        ['/healthz', 'GET'],
        ['/api/prompts/:role', i % 2 ? 'HEAD' : 'GET'],
        ['/api/compose', 'POST'],
      ] as const) {
        latency.observe(route, method, seconds);
        reference.observe({ route, method }, seconds);
      }
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain(
      'x_seconds_bucket{le="+Inf",route="/api/compose",method="POST"} 11',
    );
  });
});
