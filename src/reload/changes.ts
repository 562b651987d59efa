import { tryCompose } from '../core/compose.js';
import type { Snapshot } from '../core/snapshot.js';
import { byteOrder } from '../core/text.js';

/** Which fleet members and roles got a different prompt between two pack versions. */
export interface PromptChanges {
  /** Fleet agents whose composed prompt differs (added and removed agents included). */
  agents: string[];
  /** Roles whose composed prompt differs (added and removed roles included). */
  roles: string[];
}

/**
 * Compares the prompts of every fleet member and every role (composed with the pack's
 * own settings) between two snapshots. Pure. With no previous snapshot, everything is new.
 *
 * @example
 * const { agents, roles } = changedPrompts(before, after);
 */
export function changedPrompts(previous: Snapshot | undefined, next: Snapshot): PromptChanges {
  const after = fingerprints(next);
  const before = previous ? fingerprints(previous) : { agents: new Map(), roles: new Map() };
  return { agents: differing(before.agents, after.agents), roles: differing(before.roles, after.roles) };
}

// --- internal ---

interface Fingerprints {
  agents: Map<string, string>;
  roles: Map<string, string>;
}

const cache = new WeakMap<Snapshot, Fingerprints>();

/** sha256 of each member's and each role's prompt (or of its error codes). */
function fingerprints(snapshot: Snapshot): Fingerprints {
  let found = cache.get(snapshot);
  if (found) return found;
  const of = (request: { agent?: string; role?: string }): string => {
    const outcome = tryCompose(snapshot, request);
    return outcome.ok ? outcome.result.sha256 : `error:${outcome.diagnostics.map((d) => d.code).join(',')}`;
  };
  found = { agents: new Map(), roles: new Map() };
  for (const agent of snapshot.fleet) found.agents.set(agent.id, of({ agent: agent.id }));
  for (const role of snapshot.roles.keys()) found.roles.set(role, of({ role }));
  cache.set(snapshot, found);
  return found;
}

function differing(before: Map<string, string>, after: Map<string, string>): string[] {
  const ids = new Set([...before.keys(), ...after.keys()]);
  return [...ids].filter((id) => before.get(id) !== after.get(id)).sort(byteOrder);
}
