import type { Context } from 'hono';
import type { Snapshot } from '../../core/build/snapshot.js';
import { type Answer, sendAnswer } from '../service/answer.js';
import type { Service } from '../service/context.js';
import { errorAnswer } from '../service/errors.js';

/**
 * The snapshot a request reads: taken once from the store, so the whole request uses one
 * version. `version` picks `current` (default), `previous`, or a version id; the answer
 * is an error when nothing is loaded yet (503 `NOT_READY`) or the version is not held
 * (404 `UNKNOWN_VERSION`). A route calls it once it has read the version it asks for
 * (from the query or the body).
 *
 * @example
 * const picked = pickSnapshot(service, 'previous');
 * if (isAnswer(picked)) return picked; // 404 when there is no previous version
 */
export function pickSnapshot(service: Service, version?: string): Snapshot | Answer {
  const state = service.store.state;
  if (!state) return errorAnswer(503, 'NOT_READY', 'no pack version is loaded yet');
  if (version === undefined || version === 'current' || version === state.snapshot.version)
    return state.snapshot;
  if (state.previous && (version === 'previous' || version === state.previous.version)) return state.previous;
  const held = [state.snapshot.version, state.previous?.version].filter(Boolean).join(', ');
  return errorAnswer(
    404,
    'UNKNOWN_VERSION',
    `version ${JSON.stringify(version)} is not held; held versions: ${held} (or current, previous)`,
  );
}

/** {@link pickSnapshot} for a hono route: the snapshot, or the error as a Response. */
export function snapshotOf(c: Context, service: Service, version?: string): Snapshot | Response {
  const picked = pickSnapshot(service, version);
  return isAnswer(picked) ? sendAnswer(c, picked) : picked;
}

/** Whether a value is an {@link Answer} (rather than what a step gives when it lets the request through). */
export function isAnswer(value: object): value is Answer {
  return 'status' in value && 'headers' in value;
}
