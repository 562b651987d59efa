import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import type { SnapshotStore } from '../../reload/store.js';
import { VERSION } from '../../source/version.js';
import { latencyHistogram } from './latency.js';

/** The service's Prometheus metrics, in a registry of their own. */
export interface ServiceMetrics {
  registry: Registry;
  /** Records one HTTP request (route pattern, method, status, seconds). */
  request(route: string, method: string, status: number, seconds: number): void;
  /** Records one compose answered by a route (`ok` or the error code). */
  compose(route: string, outcome: string, seconds?: number): void;
  /** Counts the warnings of an answered compose, by code. */
  warnings(route: string, diagnostics: readonly Diagnostic[]): void;
  /** Sets the number of open event streams. */
  sseClients(n: number): void;
  /** Counts one `/api/events` client cut off because it stopped reading. */
  sseDropped(): void;
  /** Sets the number of open MCP sessions on `/mcp`. */
  mcpSessions(n: number): void;
  /** Counts one MCP session closed to make room for a new one (`serve --max-mcp-sessions`). */
  mcpEvicted(): void;
  /** Counts one connection the connection guard closed or refused, by why (idle, slow_body, refused, not_probe). */
  connectionShed(reason: string): void;
  /** Where the open connections and those of the probe reserve are read at scrape time. */
  watchConnections(read: () => { open: number; reserve: number; requests: number }): void;
}

export interface MetricsOptions {
  /** Also collect Node's process metrics (memory, CPU, event loop lag). */
  processMetrics?: boolean;
}

/**
 * Creates the metrics of one service and follows the store's reloads:
 * `strata_http_requests_total`, `strata_http_request_duration_seconds`,
 * `strata_compose_total` (by route and outcome), `strata_compose_warnings_total` (by
 * route and code: unknown names, missing layers, the fallback, in answered prompts),
 * `strata_reloads_total` (by outcome), `strata_reload_duration_seconds`,
 * `strata_pack_info` (version as a label), `strata_pack_loaded_timestamp_seconds`,
 * `strata_last_reload_timestamp_seconds`, `strata_reload_error` (1 while the last
 * reload failed and an older version is served), `strata_reload_holds_total` (new
 * versions held back because they would degrade members), `strata_reload_held` (1 while
 * a version is held), `strata_sse_clients`, `strata_sse_clients_dropped_total` (event
 * streams cut off because their client stopped reading).
 *
 * @example
 * const metrics = createMetrics(store);
 * const text = await metrics.registry.metrics();
 */
export function createMetrics(store: SnapshotStore, options: MetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.processMetrics) {
    // The event-loop lag is sampled every 100 ms (prom-client's 10 ms wakes an idle
    // service 100 times a second: 0.6% of a core doing nothing else).
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    // Node's default gauges named `*_total` break the exposition rules (`promtool check
    // metrics`: only counters end in _total); the same counts stay, by type, in
    // nodejs_active_handles / _requests / _resources.
    for (const name of [
      'nodejs_active_handles_total',
      'nodejs_active_requests_total',
      'nodejs_active_resources_total',
    ])
      registry.removeSingleMetric(name);
  }
  const registers = [registry];

  // Hot-path counts are kept in plain maps and handed to prom-client at scrape time.
  const requestCounts = new Map<string, number>();
  const composeCounts = new Map<string, number>();
  new Counter({
    name: 'strata_http_requests_total',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const [key, n] of requestCounts) {
        const [route, method, status] = key.split('\t') as [string, string, string];
        this.inc({ route, method, status }, n);
      }
    },
  });
  const requestSeconds = latencyHistogram({
    name: 'strata_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  });
  new Counter({
    name: 'strata_compose_total',
    help: 'Prompts answered by route and outcome (ok or the error code); latency is in strata_http_request_duration_seconds',
    labelNames: ['route', 'outcome'] as const,
    registers,
    collect() {
      this.reset();
      for (const [key, n] of composeCounts) {
        const [route, outcome] = key.split('\t') as [string, string];
        this.inc({ route, outcome }, n);
      }
    },
  });
  const warningCounts = new Map<string, number>();
  new Counter({
    name: 'strata_compose_warnings_total',
    help: 'Warnings in answered prompts by route and code (UNKNOWN_TEAM, LAYER_MISSING, FALLBACK_USED, …)',
    labelNames: ['route', 'code'] as const,
    registers,
    collect() {
      this.reset();
      for (const [key, n] of warningCounts) {
        const [route, code] = key.split('\t') as [string, string];
        this.inc({ route, code }, n);
      }
    },
  });
  const reloads = new Counter({
    name: 'strata_reloads_total',
    help: 'Pack reloads by outcome (swapped, unchanged, failed, held, superseded) and trigger',
    labelNames: ['outcome', 'trigger'] as const,
    registers,
  });
  const reloadReads = new Counter({
    name: 'strata_reload_reads_total',
    help: 'How reloads read the pack: hinted (only the paths file events named) or full',
    labelNames: ['read'] as const,
    registers,
  });
  const reloadSeconds = new Histogram({
    name: 'strata_reload_duration_seconds',
    help: 'Time to read and validate the pack',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  const lastReload = new Gauge({
    name: 'strata_last_reload_timestamp_seconds',
    help: 'When the last reload finished (good or not), Unix seconds',
    registers,
  });
  new Gauge({
    name: 'strata_pack_info',
    help: 'The pack version being served (always 1)',
    labelNames: ['version', 'preset', 'service_version'] as const,
    registers,
    collect() {
      this.reset();
      const snapshot = store.state?.snapshot;
      if (snapshot)
        this.set(
          { version: snapshot.version, preset: snapshot.preset ?? 'manifest', service_version: VERSION },
          1,
        );
    },
  });
  new Gauge({
    name: 'strata_cache_bytes',
    help: 'Bytes held by the caches of composed prompts and token counts (all versions, one budget)',
    registers,
    collect() {
      this.set(store.engine.cacheUsage().bytes);
    },
  });
  new Gauge({
    name: 'strata_cache_budget_bytes',
    help: 'The byte budget of the caches of composed prompts and token counts (serve --cache-bytes)',
    registers,
    collect() {
      this.set(store.engine.cacheUsage().maxBytes);
    },
  });
  new Gauge({
    name: 'strata_pack_loaded_timestamp_seconds',
    help: 'When the version being served was swapped in, Unix seconds',
    registers,
    collect() {
      const at = store.state?.loadedAt;
      if (at) this.set(at.getTime() / 1000);
    },
  });
  new Gauge({
    name: 'strata_reload_error',
    help: '1 while the last reload failed validation and the previous good version is served',
    registers,
    collect() {
      this.set(store.lastError ? 1 : 0);
    },
  });
  const holds = new Counter({
    name: 'strata_reload_holds_total',
    help: 'New pack versions held back (not served) because they would degrade members, by trigger',
    labelNames: ['trigger'] as const,
    registers,
  });
  new Gauge({
    name: 'strata_reload_held',
    help: '1 while a new version is held back and the previous version is served',
    registers,
    collect() {
      this.set(store.held ? 1 : 0);
    },
  });
  const sse = new Gauge({ name: 'strata_sse_clients', help: 'Open /api/events streams', registers });
  const mcpSessions = new Gauge({
    name: 'strata_mcp_sessions',
    help: 'Open MCP sessions on /mcp',
    registers,
  });
  const mcpEvicted = new Counter({
    name: 'strata_mcp_sessions_evicted_total',
    help: 'MCP sessions closed to make room for a new one (serve --max-mcp-sessions)',
    registers,
  });
  const sseDropped = new Counter({
    name: 'strata_sse_clients_dropped_total',
    help: '/api/events streams cut off because their client stopped reading (serve --max-event-backlog)',
    registers,
  });

  let connections: () => { open: number; reserve: number; requests: number } = () => ({
    open: 0,
    reserve: 0,
    requests: 0,
  });
  new Gauge({
    name: 'strata_http_requests_in_flight',
    help: 'HTTP requests received and not yet answered whole (event streams included)',
    registers,
    collect() {
      this.set(connections().requests);
    },
  });
  new Gauge({
    name: 'strata_connections_open',
    help: 'Open HTTP connections (serve --max-connections caps them, the probe reserve aside)',
    registers,
    collect() {
      this.set(connections().open);
    },
  });
  new Gauge({
    name: 'strata_connections_probe_reserve',
    help: 'Open connections kept beyond the cap for /healthz and /readyz (serve --probe-connections)',
    registers,
    collect() {
      this.set(connections().reserve);
    },
  });
  const shed = new Counter({
    name: 'strata_connections_shed_total',
    help: 'Connections closed or refused at the cap, by why: idle (the oldest idle keep-alive one), slow_body (the oldest whose body was still arriving), slow_headers (the oldest that had sent no request), refused (no room, the probe reserve full), not_probe (a request other than a probe on a reserve connection), pipelined (more requests in progress on one connection than serve --max-pipelined)',
    labelNames: ['reason'] as const,
    registers,
  });

  store.subscribe((event) => {
    if (event.type === 'held') holds.inc({ trigger: event.held.trigger });
    if (event.type !== 'attempt') return;
    const { outcome } = event;
    reloads.inc({ outcome: outcome.outcome, trigger: outcome.trigger });
    if (outcome.read) reloadReads.inc({ read: outcome.read });
    reloadSeconds.observe(outcome.durationMs / 1000);
    lastReload.set(Date.now() / 1000);
  });

  return {
    registry,
    request(route, method, status, seconds) {
      const key = `${route}\t${method}\t${status}`;
      requestCounts.set(key, (requestCounts.get(key) ?? 0) + 1);
      requestSeconds.observe(route, method, seconds);
    },
    compose(route, outcome) {
      const key = `${route}\t${outcome}`;
      composeCounts.set(key, (composeCounts.get(key) ?? 0) + 1);
    },
    warnings(route, diagnostics) {
      for (const d of diagnostics) {
        if (d.severity !== 'warning') continue;
        const key = `${route}\t${d.code}`;
        warningCounts.set(key, (warningCounts.get(key) ?? 0) + 1);
      }
    },
    sseClients(n) {
      sse.set(n);
    },
    sseDropped() {
      sseDropped.inc();
    },
    mcpSessions(n) {
      mcpSessions.set(n);
    },
    mcpEvicted() {
      mcpEvicted.inc();
    },
    connectionShed(reason) {
      shed.inc({ reason });
    },
    watchConnections(read) {
      connections = read;
    },
  };
}

/** How often the event-loop lag gauges sample the loop, in ms. */
const EVENT_LOOP_SAMPLE_MS = 100;
