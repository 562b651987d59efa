import type { Snapshot } from '../core/build/snapshot.js';
import { byteOrder } from '../core/text/text.js';
import { tryCompose } from '../engine/default-engine.js';
import { type PromptChanges, promptFingerprint } from '../engine/incremental/pack-compare.js';

export type { PromptChanges };

/**
 * Compares the prompts of every fleet member and every role (composed with the pack's
 * own settings) between two snapshots, composing all of them. Pure. With no previous
 * snapshot, everything is new. A reload uses `comparePacks`, which gives the same answer
 * composing only the members an edit can reach.
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
  const of = (request: { agent?: string; role?: string }): string =>
    promptFingerprint(tryCompose(snapshot, request));
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
