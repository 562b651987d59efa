import type { Snapshot } from '../build/snapshot.js';
import { runSteps, runStepsSliced, type Yielder } from '../build/yielder.js';
import type { Diagnostic } from '../text/diagnostics.js';
import { tryCompose } from './compose.js';
import { composeMember, type MemberCompose, memberLabel, packMembers } from './members.js';

/**
 * Why a pack is not fit to serve strictly: its load warnings, then every warning or
 * error of composing each member (fleet agents; with no fleet, roles) with the pack's own
 * settings — a missing layer file, an unknown role or team, the fallback text — each
 * message prefixed with the member. Empty when every member composes cleanly. Pure; an
 * engine remembers it per snapshot.
 *
 * @example
 * const reasons = packProblems(snapshot);
 * if (reasons.length > 0) console.error(reasons.map(formatDiagnostic).join('\n'));
 */
export function packProblems(snapshot: Snapshot, compose: MemberCompose = tryCompose): Diagnostic[] {
  return runSteps(problemSteps(snapshot, compose));
}

/**
 * {@link packProblems}, composing the members in steps that give the event loop a turn
 * whenever `yielder` is due (a service works them out this way after a reload, so its
 * readiness answer finds them done).
 */
export function packProblemsSliced(
  snapshot: Snapshot,
  yielder: Yielder,
  compose: MemberCompose = tryCompose,
): Promise<Diagnostic[]> {
  return runStepsSliced(problemSteps(snapshot, compose), yielder);
}

// --- internal ---

function* problemSteps(snapshot: Snapshot, compose: MemberCompose): Generator<void, Diagnostic[]> {
  const found = [...snapshot.warnings];
  const members = packMembers(snapshot);
  for (const member of members) {
    const outcome = composeMember(snapshot, member, undefined, undefined, compose);
    const diagnostics = outcome.ok ? outcome.result.diagnostics : outcome.diagnostics;
    // A pack with no fleet and no roles has one member that is expected to be bare.
    for (const d of diagnostics)
      found.push({
        ...d,
        message: `${members.length > 1 || member.key !== '(default)' ? `${memberLabel(member)}: ` : ''}${d.message}`,
      });
    yield;
  }
  return found;
}
