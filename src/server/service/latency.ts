import { Histogram, type Registry } from 'prom-client';

/** A request-latency histogram by route and method (see {@link latencyHistogram}). */
export interface LatencyHistogram {
  observe(route: string, method: string, seconds: number): void;
}

/**
 * A prom-client histogram by route and method whose observations cost a map look-up and
 * three additions: prom-client's own `observe` validates the labels, hashes them and
 * makes closures on every call, a noticeable part of a cached answer's cost. The series
 * are kept in the shape prom-client keeps them and handed to the histogram when it is
 * collected, so the exposition is prom-client's own, byte for byte (tested against an
 * `observe`d histogram).
 *
 * @example
 * const latency = latencyHistogram({ name: 'x_seconds', help: 'X', buckets: [0.001, 0.01], registers: [registry] });
 * latency.observe('/healthz', 'GET', 0.0004);
 */
export function latencyHistogram(config: {
  name: string;
  help: string;
  buckets: readonly number[];
  registers: Registry[];
}): LatencyHistogram {
  const buckets = [...config.buckets];
  const zero: Record<string, number> = {};
  for (const b of buckets) zero[b] = 0;
  // prom-client's `hashMap`: one entry a label set, in the order first seen.
  const series: Record<string, Series> = {};
  new Histogram({
    name: config.name,
    help: config.help,
    labelNames: ['route', 'method'] as const,
    buckets,
    registers: config.registers,
    collect() {
      (this as unknown as { hashMap: Record<string, Series> }).hashMap = series;
    },
  });
  return {
    observe(route, method, seconds) {
      const key = `${route}\t${method}`;
      let s = series[key];
      if (!s) {
        s = { labels: { route, method }, bucketValues: { ...zero }, sum: 0, count: 0 };
        series[key] = s;
      }
      s.sum += seconds;
      s.count += 1;
      for (const b of buckets) {
        if (seconds <= b) {
          s.bucketValues[b]! += 1;
          break;
        }
      }
    },
  };
}

// --- internal ---

/** One label set's values, as prom-client's histogram keeps them. */
interface Series {
  labels: { route: string; method: string };
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}
