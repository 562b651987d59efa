import type { Snapshot } from '../build/snapshot.js';
import { type Diagnostic, warning } from '../text/diagnostics.js';
import { byteOrder } from '../text/text.js';
import { type ComposeOutcome, type ComposeResult, type LayerResult, tryCompose } from './compose.js';
import { folderMembers, type Member, memberLabel, packMembers } from './members.js';

/** A layer a member had in the served version and would not have in the new one. */
export interface LostLayer {
  /** The layer id. */
  layer: string;
  /** The file (or role file) the layer's text came from in the served version. */
  was?: string;
  /** Why the new version skips it: `missing`, `empty`, `gated`, `no-value`, or `removed` (no such layer). */
  reason: 'missing' | 'empty' | 'gated' | 'no-value' | 'removed';
  /** The file the new version looked for (reason `missing`). */
  looked?: string;
}

/** How one member's prompt would get worse. */
export interface MemberDegradation {
  /** The member's stable key (agent id, `role:<id>`, `(default)`, a working folder's `cwd=<folder>`). */
  member: string;
  /** Its name for people (agent id, `role <id>`). */
  label: string;
  agent?: string;
  role?: string;
  /** The member is no longer in the new version's fleet (or registry). */
  removed: boolean;
  /** The new version composes the manifest's fallback text for it. */
  fallback: boolean;
  /** Error codes when the new version fails to compose it. */
  failing?: string[];
  /** Layers included now and skipped in the new version, and chain files lost from a layer kept (`was`: the file). */
  lost: LostLayer[];
}

/** What a new pack version would take away from the members of the served one. */
export interface DegradationReport {
  /** True when any member would fall back, fail, or lose a layer. */
  degraded: boolean;
  /** The degraded members, in the served version's member order. */
  members: MemberDegradation[];
  /** Every lost layer id, sorted. */
  layers: string[];
}

/**
 * Compares the prompts of every member of the served snapshot (its fleet agents; with
 * no fleet, its roles; with neither, its one member and its chain's working folders:
 * {@link guardedMembers}) with what the next snapshot would compose for the same requests,
 * each with the pack's own settings. A member degrades when it would get the fallback
 * text, fail to compose, lose a layer it has (included now, skipped next), or lose a file
 * of a chain layer it has (deleted or emptied). Text changes, new members and new layers
 * never degrade. Pure.
 *
 * @example
 * const report = degradation(store.state.snapshot, next);
 * if (report.degraded) console.log(report.members.map((m) => m.label));
 */
export function degradation(current: Snapshot, next: Snapshot): DegradationReport {
  const nextAgents = new Set(next.fleet.map((a) => a.id));
  const members: MemberDegradation[] = [];
  for (const member of guardedMembers(current)) {
    // An agent is gone when the new fleet lacks it; a role when the new registry lacks it.
    const removed =
      member.agent !== undefined
        ? !nextAgents.has(member.agent)
        : member.role !== undefined && !next.roles.has(member.role);
    const found = memberDegradation(member, removed, current, next);
    if (found) members.push(found);
  }
  return degradationReport(members);
}

/**
 * The members the guard compares, in order: the pack's ({@link packMembers}), then each
 * working folder of a chain ({@link folderMembers}: a folder holding a nested notes file), whose
 * prompt the pack's one member never shows.
 */
export function guardedMembers(snapshot: Snapshot): Member[] {
  return [...packMembers(snapshot), ...folderMembers(snapshot)];
}

/**
 * How one member of the served snapshot degrades in the next one (undefined: it does
 * not), from its compose outcomes in both; `removed` when the next fleet (or registry)
 * lacks it. The outcomes default to composing the member's request in each snapshot.
 */
export function memberDegradation(
  member: Member,
  removed: boolean,
  current: Snapshot,
  next: Snapshot,
  outcomes: { before?: ComposeOutcome; after?: ComposeOutcome } = {},
): MemberDegradation | undefined {
  const before = outcomes.before ?? tryCompose(current, member.request);
  // A member that does not compose today cannot lose anything.
  if (!before.ok) return undefined;
  const after = outcomes.after ?? tryCompose(next, member.request);
  return compareOutcomes(member, removed, before.result, after, (path) => next.files.has(path));
}

/** The report of a list of degraded members (in the served version's member order). */
export function degradationReport(members: MemberDegradation[]): DegradationReport {
  const layers = [...new Set(members.flatMap((m) => m.lost.map((l) => l.layer)))].sort(byteOrder);
  return { degraded: members.length > 0, members, layers };
}

/**
 * One warning per degraded member (MEMBER_REMOVED, MEMBER_FALLBACK, MEMBER_FAILS or
 * LAYER_LOST), for logs and API answers.
 */
export function degradationDiagnostics(report: DegradationReport): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const m of report.members) {
    const lost = m.lost.map(describeLost).join('; ');
    if (m.removed) {
      out.push(warning('MEMBER_REMOVED', `${m.label} is not in the new version${lost ? ` (${lost})` : ''}`));
    } else if (m.failing) {
      out.push(warning('MEMBER_FAILS', `${m.label} would fail to compose (${m.failing.join(', ')})`));
    } else if (m.fallback) {
      out.push(
        warning('MEMBER_FALLBACK', `${m.label} would get the fallback text${lost ? ` (${lost})` : ''}`),
      );
    } else {
      out.push(warning('LAYER_LOST', `${m.label} would lose ${lost}`));
    }
  }
  return out;
}

// --- internal ---

function compareOutcomes(
  member: Member,
  removed: boolean,
  before: ComposeResult,
  after: ComposeOutcome,
  inNext: (path: string) => boolean,
): MemberDegradation | undefined {
  const out: MemberDegradation = {
    member: member.key,
    label: memberLabel(member),
    removed,
    fallback: false,
    lost: [],
  };
  if (member.agent !== undefined) out.agent = member.agent;
  if (member.role !== undefined) out.role = member.role;
  if (!after.ok) {
    out.failing = [...new Set(after.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code))];
  } else {
    out.fallback = after.result.fallback && !before.fallback;
    const nextLayers = new Map(after.result.layers.map((l) => [l.id, l]));
    for (const had of before.layers) {
      if (!had.included) continue;
      const now = nextLayers.get(had.id);
      if (now?.included) {
        out.lost.push(...lostParts(had, now, inNext));
        continue;
      }
      const lost: LostLayer = { layer: had.id, reason: now?.reason ?? 'removed' };
      if (had.source !== undefined) lost.was = had.source;
      if (now?.reason === 'missing' && now.source !== undefined) lost.looked = now.source;
      out.lost.push(lost);
    }
  }
  if (!removed && !out.failing && !out.fallback && out.lost.length === 0) return undefined;
  return out;
}

/**
 * The files of a chain layer a member had and would lose while the layer stays: a file
 * deleted (`missing`) or emptied (`empty`). A file the new version still holds with text
 * but no longer reads (a file of higher precedence now beside it, a budget another file took)
 * is a change of text, not a loss.
 */
function lostParts(had: LayerResult, now: LayerResult, inNext: (path: string) => boolean): LostLayer[] {
  const out: LostLayer[] = [];
  if (!had.parts) return out;
  const nowParts = new Map((now.parts ?? []).map((p) => [p.source, p]));
  for (const part of had.parts) {
    if (!part.included) continue;
    const kept = nowParts.get(part.source);
    if (kept?.included) continue;
    if (kept?.reason === 'empty') out.push({ layer: had.id, was: part.source, reason: 'empty' });
    else if (!inNext(part.source))
      out.push({ layer: had.id, was: part.source, reason: 'missing', looked: part.source });
  }
  return out;
}

function describeLost(l: LostLayer): string {
  const was = l.was ? ` from ${l.was}` : '';
  switch (l.reason) {
    case 'missing':
      return `layer ${l.layer}${was} (${l.looked ?? 'its file'} is missing)`;
    case 'empty':
      return `layer ${l.layer}${was} (now empty)`;
    case 'gated':
      return `layer ${l.layer}${was} (its condition no longer holds)`;
    case 'no-value':
      return `layer ${l.layer}${was} (a placeholder has no value)`;
    case 'removed':
      return `layer ${l.layer}${was} (no such layer in the new manifest)`;
  }
}
