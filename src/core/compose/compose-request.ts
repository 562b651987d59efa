import { type Diagnostic, error } from '../text/diagnostics.js';

/**
 * The BAD_REQUEST errors of a compose request given by a caller without types (plain
 * JavaScript, a parsed JSON body): the request and the snapshot must be objects, `role`,
 * `team`, `agent` and `ambient` strings, `settings` and `vars` plain objects. Values
 * inside `settings` and `vars` are checked by their definitions (INVALID_SETTING,
 * INVALID_INPUT). Empty when the request has the right shape.
 */
export function requestShapeProblems(snapshot: unknown, request: unknown): readonly Diagnostic[] {
  // Every compose asks, most of them memo hits: the right shape is told without allocating.
  if (rightShape(snapshot, request)) return NONE;
  if (!isRecord(snapshot) || !isRecord((snapshot as { manifest?: unknown }).manifest))
    return [error('BAD_REQUEST', `the snapshot is ${kindOf(snapshot)}, not a loaded pack snapshot`)];
  if (!isRecord(request) || Array.isArray(request))
    return [error('BAD_REQUEST', `the compose request is ${kindOf(request)}, not an object`)];
  const problems: Diagnostic[] = [];
  for (const field of STRING_FIELDS) {
    const value = request[field];
    if (value !== undefined && typeof value !== 'string')
      problems.push(error('BAD_REQUEST', `request field ${field} is ${kindOf(value)}, not a string`));
  }
  for (const field of RECORD_FIELDS) {
    const value = request[field];
    if (value !== undefined && (!isRecord(value) || Array.isArray(value)))
      problems.push(
        error('BAD_REQUEST', `request field ${field} is ${kindOf(value)}, not an object of values`),
      );
  }
  return problems;
}

/** What a value is, as a message says it: `undefined`, `null`, `an array`, `a number`, … */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// --- internal ---

const NONE: readonly Diagnostic[] = Object.freeze([]);

function rightShape(snapshot: unknown, request: unknown): boolean {
  if (!isRecord(snapshot) || !isRecord((snapshot as { manifest?: unknown }).manifest)) return false;
  if (!isRecord(request) || Array.isArray(request)) return false;
  const { role, team, agent, ambient, settings, vars } = request as Record<string, unknown>;
  return (
    (role === undefined || typeof role === 'string') &&
    (team === undefined || typeof team === 'string') &&
    (agent === undefined || typeof agent === 'string') &&
    (ambient === undefined || typeof ambient === 'string') &&
    (settings === undefined || (isRecord(settings) && !Array.isArray(settings))) &&
    (vars === undefined || (isRecord(vars) && !Array.isArray(vars)))
  );
}

const STRING_FIELDS = ['role', 'team', 'agent', 'ambient'] as const;
const RECORD_FIELDS = ['settings', 'vars'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
