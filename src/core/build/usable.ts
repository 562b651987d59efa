import type { Diagnostic } from '../text/diagnostics.js';
import { composeMember, memberLabel, packMembers } from './members.js';
import type { Snapshot } from './snapshot.js';
import { runSteps, runStepsSliced, type Yielder } from './yielder.js';

/**
 * Why a pack is not fit to serve strictly: its load warnings, then every warning or
 * error of composing each member (fleet agents; with no fleet, roles) with the pack's own
 * settings — a missing layer file, an unknown role or team, the fallback text — each
 * message prefixed with the member. Empty when every member composes cleanly. Pure;
 * memoised per snapshot.
 *
 * @example
 * const reasons = packProblems(snapshot);
 * if (reasons.length > 0) console.error(reasons.map(formatDiagnostic).join('\n'));
 */
export function packProblems(snapshot: Snapshot): Diagnostic[] {
  return memo.get(snapshot) ?? remember(snapshot, runSteps(problemSteps(snapshot)));
}

/**
 * {@link packProblems}, composing the members in steps that give the event loop a turn
 * whenever `yielder` is due (a service works them out this way after a reload, so its
 * readiness answer finds them done). Shares the same memo.
 */
export async function packProblemsSliced(snapshot: Snapshot, yielder: Yielder): Promise<Diagnostic[]> {
  return memo.get(snapshot) ?? remember(snapshot, await runStepsSliced(problemSteps(snapshot), yielder));
}

// --- internal ---

const memo = new WeakMap<Snapshot, Diagnostic[]>();

function remember(snapshot: Snapshot, found: Diagnostic[]): Diagnostic[] {
  memo.set(snapshot, found);
  return found;
}

function* problemSteps(snapshot: Snapshot): Generator<void, Diagnostic[]> {
  const found = [...snapshot.warnings];
  const members = packMembers(snapshot);
  for (const member of members) {
    const outcome = composeMember(snapshot, member);
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
