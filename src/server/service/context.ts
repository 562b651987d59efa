import type { Logger } from 'pino';
import type { SnapshotStore } from '../../reload/store.js';
import type { Cors } from './cors.js';
import type { EventHub } from './events.js';
import type { HostPolicy } from './host-policy.js';
import type { ServiceMetrics } from './metrics.js';
import type { RenderSlots } from './render-slots.js';

/** Variables a request carries through the app. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** `performance.now()` when the request came in. */
    startedAt: number;
    /** The query's parameters, decoded once (middleware/query.ts). */
    query: ReadonlyArray<readonly [string, string]>;
    /** Set once the request passed the Host check and is no preflight: its answer gets the CORS headers. */
    cors: boolean;
    /** The metrics' and logs' route label of a request answered by no route: `inspector` for its files. */
    routeLabel: 'inspector';
  };
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
  /** How many answers the cache does not hold are made at once (`serve --max-renders`). */
  renders: RenderSlots;
  /** A longer `?ambient=` (characters) is 400 BAD_REQUEST (`serve --max-query-ambient`). */
  maxQueryAmbient: number;
  /** A team compose with more members is 400 BAD_REQUEST (`serve --max-team-members`). */
  maxTeamMembers: number;
  /** Request bodies over this many bytes are 413 BODY_TOO_LARGE (`serve --max-body-bytes`). */
  maxBodyBytes: number;
  /** What was logged once already (a warning that would otherwise repeat per request). */
  warned: Set<string>;
  /** True while start-up still loads the token counter (`/readyz` answers 503 until then). */
  warming?: boolean;
}
