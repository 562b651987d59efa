/**
 * `strata-prompts/server`: the prompt service, as a `(Request) => Response` app
 * (`createApp`) or on a socket (`startService`).
 *
 * @example
 * import { startService } from 'strata-prompts/server';
 * const started = await startService({ dir: '/etc/strata/prompts', port: 7411 });
 *
 * @packageDocumentation
 */

export { type InspectorAsset, inspectorAssets } from './inspector/assets.js';
export { type AppOptions, createApp, MAX_BODY_BYTES, type StrataApp } from './server/app.js';
export {
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type RunningService,
  type ServiceOptions,
  type StartOutcome,
  startService,
} from './server/node/start.js';
export { MAX_QUERY_AMBIENT, MAX_TEAM_MEMBERS } from './server/schemas/requests.js';
export { MAX_PENDING_BYTES, MAX_PENDING_EVENTS } from './server/service/events.js';
