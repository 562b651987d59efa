import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { Snapshot } from '../../core/build/snapshot.js';
import type { PackState, SnapshotStore } from '../../reload/store.js';
import type { Cors } from '../middleware/cors.js';
import type { HostPolicy } from '../middleware/host.js';
import { errorResponse } from './errors.js';
import type { EventHub } from './events.js';
import type { ServiceMetrics } from './metrics.js';

/** Variables a request carries through the app. */
export interface AppEnv {
  Variables: { requestId: string /** `performance.now()` when the request came in. */; startedAt: number };
}

/** What every route reads: the store, and the service's logger, metrics and events. */
export interface Service {
  store: SnapshotStore;
  metrics: ServiceMetrics;
  events: EventHub;
  logger: Logger;
  adminToken?: string;
  /** Whether a watcher reloads the pack on change (reported in /api/status). */
  watching: boolean;
  /** The role of a compose request that names neither a role nor an agent. */
  defaultRole?: string;
  /** Cross-origin policy (off unless origins are given). */
  cors: Cors;
  /** Which Host (and Origin, for unsafe methods) headers are accepted (DNS rebinding). */
  hosts: HostPolicy;
  /**
   * Every compose is strict: a result with warnings is answered as an error; and the
   * service is ready only when the pack loads without warnings and every member composes
   * without one (`serve --strict`).
   */
  strict: boolean;
  startedAt: Date;
  /** Time budget for one request's token counts (they run off the event loop). */
  tokenBudgetMs?: number;
  /** A longer `?ambient=` (characters) is 400 BAD_REQUEST (`serve --max-query-ambient`). */
  maxQueryAmbient: number;
  /** A team compose with more members is 400 BAD_REQUEST (`serve --max-team-members`). */
  maxTeamMembers: number;
  /** True while start-up still loads the token counter (`/readyz` answers 503 until then). */
  warming?: boolean;
}

/**
 * The snapshot a request reads: taken once from the store, so the whole request uses one
 * version. `version` picks `current` (default), `previous`, or a version id; the answer
 * is an error Response when nothing is loaded yet (503) or the version is not held (404).
 */
export function pickSnapshot(c: Context, service: Service, version?: string): Snapshot | Response {
  const state: PackState | undefined = service.store.state;
  if (!state) return errorResponse(c, 503, 'NOT_READY', 'no pack version is loaded yet');
  if (version === undefined || version === 'current' || version === state.snapshot.version)
    return state.snapshot;
  if (state.previous && (version === 'previous' || version === state.previous.version)) return state.previous;
  const held = [state.snapshot.version, state.previous?.version].filter(Boolean).join(', ');
  return errorResponse(
    c,
    404,
    'UNKNOWN_VERSION',
    `version ${JSON.stringify(version)} is not held; held versions: ${held} (or current, previous)`,
  );
}
