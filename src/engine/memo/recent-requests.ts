// A memo hit of a request with settings or vars, without its canonical key. The general
// key (`requestKey`) costs about as much as the rest of a hit: every field named, quoted
// and sorted, then the fresh string hashed by the map. The memo also keeps, under a short
// key (the request's names and values as written, no field names, no quoting, no sort),
// the last few requests it answered with that key: a plain copy of each with its full
// key. A request equal, field by field, to one of them has that full key, whose hash the
// map keeps.

/** A request the memo answered, copied, with its outcome. */
import { setOwn } from '../../core/text/own.js';
export interface RecentRequest {
  /** The request's defined fields, deeply copied (plain objects and arrays, primitives). */
  readonly copy: Readonly<Record<string, unknown>>;
  /** How many defined fields the request has. */
  readonly fields: number;
  /** The outcome composed for it (also kept under its full key). */
  readonly outcome: object;
  /** An upper bound of the memory the outcome holds. */
  readonly bytes: number;
}

/** How many requests are kept under one short key (most have one): the newest first. */
export const RECENT_PER_NAMES = 8;

/**
 * The short key of a request: its names and the values of its settings and vars (and of
 * any other field) in the order they are written, each followed by U+0000, then U+0002,
 * so it never meets a full key (names keys end with U+0000 or U+0001, general ones with
 * `;`). It needs to tell requests apart only mostly: the requests kept under it are
 * compared field by field. Undefined for a request with a name that is not a string, a
 * value nested deeper than one object, or a key longer than {@link MAX_RECENT_KEY}: that
 * one is looked up by its full key.
 */
export function recentKey(request: object): string | undefined {
  const { role, team, agent } = request as { role?: unknown; team?: unknown; agent?: unknown };
  if (role !== undefined && typeof role !== 'string') return undefined;
  if (team !== undefined && typeof team !== 'string') return undefined;
  if (agent !== undefined && typeof agent !== 'string') return undefined;
  let key = `${role ?? ''}\u0000${team ?? ''}\u0000${agent ?? ''}\u0000`;
  for (const name in request) {
    if (name === 'role' || name === 'team' || name === 'agent') continue;
    const value = (request as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const field in value) {
        const v = (value as Record<string, unknown>)[field];
        if (typeof v === 'string') key += `${v}\u0000`;
        else if (typeof v === 'number' || typeof v === 'boolean') key += `${v}\u0000`;
        else if (v !== undefined) return undefined;
      }
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      key += `${value}\u0000`;
    else return undefined;
    if (key.length > MAX_RECENT_KEY) return undefined;
  }
  return `${key}\u0002`;
}

/** The longest short key: a request with longer values is looked up by its full key. */
export const MAX_RECENT_KEY = 1024;

/** The outcome of the kept request equal to `request`, if one is. */
export function findRecent(recent: readonly RecentRequest[], request: object): object | undefined {
  for (const r of recent) if (sameRequest(request, r)) return r.outcome;
  return undefined;
}

/**
 * `recent` with `request` and its outcome first, and at most {@link RECENT_PER_NAMES}
 * entries; the bytes the list holds (an upper bound: the outcomes' own, counted again
 * here, and the copies, none larger than the request's canonical key).
 */
export function withRecent(
  recent: readonly RecentRequest[] | undefined,
  request: object,
  outcome: object,
  outcomeBytes: number,
): { recent: RecentRequest[]; bytes: number } {
  // Plain objects (V8 keeps objects without a prototype as dictionaries, slower to read
  // on every hit), a field named `__proto__` set as an own key like any other.
  const copy: Record<string, unknown> = {};
  let fields = 0;
  let bytes = 64;
  // `for…in` also sees inherited fields, as compose and the full key do.
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    if (value === undefined) continue;
    setOwn(copy, name, plainCopy(value));
    bytes += copiedBytes(name, value);
    fields++;
  }
  const next: RecentRequest[] = [{ copy, fields, outcome, bytes: bytes + outcomeBytes }];
  for (const r of recent ?? []) {
    if (next.length >= RECENT_PER_NAMES) break;
    if (r.outcome !== outcome) next.push(r);
  }
  let total = 64;
  for (const r of next) total += r.bytes;
  return { recent: next, bytes: total };
}

// --- internal ---

/**
 * Whether a request has the same defined fields as a kept one, with equal values: equal
 * primitives, arrays of equal items, plain objects with the same defined keys. Stricter
 * than the full key (NaN is never equal; an object that is not plain never is), so two
 * requests found equal here always have the same full key.
 */
function sameRequest(request: object, kept: RecentRequest): boolean {
  let fields = 0;
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (!Object.hasOwn(kept.copy, name) || !sameValue(value, kept.copy[name], 0)) return false;
    fields++;
  }
  return fields === kept.fields;
}

/** How deep two values are compared; deeper ones are not equal (the full key decides). */
const MAX_DEPTH = 32;

function sameValue(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a !== 'object' || a === null) return a === b && typeof a !== 'function';
  if (typeof b !== 'object' || b === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (i in a !== i in b || !sameValue(a[i], b[i], depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const proto = Object.getPrototypeOf(a);
  if (proto !== Object.prototype && proto !== null) return false;
  let keys = 0;
  for (const name of Object.keys(a)) {
    const value = (a as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (!Object.hasOwn(b, name) || !sameValue(value, (b as Record<string, unknown>)[name], depth + 1))
      return false;
    keys++;
  }
  return keys === (b as Counted)[KEYS];
}

/** A copied object's number of keys, kept on it (a symbol: no key sees it). */
const KEYS = Symbol('keys');
type Counted = { [KEYS]: number };

/** An upper bound of the bytes a field's copy holds: its name and value, 64 per object or value. */
function copiedBytes(name: string, value: unknown): number {
  if (typeof value === 'string') return 2 * (name.length + value.length) + 64;
  if (typeof value !== 'object' || value === null) return 2 * name.length + 64;
  let bytes = 2 * name.length + 64;
  for (const key of Object.keys(value)) bytes += copiedBytes(key, (value as Record<string, unknown>)[key]);
  return bytes;
}

/** A deep copy of a value the full key took: plain objects and arrays copied, the rest as it is. */
function plainCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) copy[i] = plainCopy(value[i]);
    return copy;
  }
  const copy: Record<string, unknown> = {};
  let keys = 0;
  for (const name of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[name];
    if (v === undefined) continue;
    setOwn(copy, name, plainCopy(v));
    keys++;
  }
  (copy as Counted)[KEYS] = keys;
  return copy;
}
