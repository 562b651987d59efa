import type { Diagnostic } from './diagnostics.js';
import { composeMember, memberLabel, packMembers } from './members.js';
import type { Snapshot } from './snapshot.js';

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
  let found = memo.get(snapshot);
  if (found) return found;
  found = [...snapshot.warnings];
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
  }
  memo.set(snapshot, found);
  return found;
}

// --- internal ---

const memo = new WeakMap<Snapshot, Diagnostic[]>();
