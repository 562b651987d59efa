import { createTwoFilesPatch } from 'diff';
import type { Snapshot } from '../../core/build/snapshot.js';
import {
  composeMember,
  folderMembers,
  type Member,
  memberLabel,
  packMembers,
} from '../../core/compose/members.js';
import { applyOverrides } from '../../core/pack/settings.js';
import { type Diagnostic, error } from '../../core/text/diagnostics.js';
import { sha256, utf8Length } from '../../core/text/text.js';

/** One member's prompt on one side of a comparison. */
export interface MemberPrompt {
  key: string;
  agent?: string;
  role?: string;
  team?: string;
  sha256: string;
  bytes: number;
  /** The prompt text; a lock file written without texts has none. */
  text?: string;
}

/** A member whose prompt differs between the two sides. */
export interface MemberChange {
  key: string;
  agent?: string;
  role?: string;
  team?: string;
  /** `added`: only the new side has the member; `removed`: only the old side does. */
  status: 'changed' | 'added' | 'removed';
  /** Unified diff of the two prompts ('' when a text is unknown). */
  diff: string;
  bytesBefore: number;
  bytesAfter: number;
  /** Lines of the old prompt; absent when its text is unknown (a lock written with `--no-text`). */
  linesBefore?: number;
  /** Lines of the new prompt; absent when its text is unknown. */
  linesAfter?: number;
  /** Lines the diff adds and removes; absent when a text is unknown (there is no diff). */
  linesAdded?: number;
  linesRemoved?: number;
  sha256Before?: string;
  sha256After?: string;
}

/** A member whose prompt is byte-for-byte the same on both sides. */
export interface MemberSame {
  key: string;
  agent?: string;
  role?: string;
  team?: string;
  bytes: number;
  sha256: string;
}

export interface DiffReport {
  changed: MemberChange[];
  unchanged: MemberSame[];
  /** COMPOSE_FAILED errors: members that did not compose on one side. */
  diagnostics: Diagnostic[];
}

/** One side of {@link diffPacks}: a snapshot, and the setting overrides and request inputs to compose it with. */
export interface DiffSide {
  snapshot: Snapshot;
  settings?: Readonly<Record<string, unknown>>;
  /** Request inputs (`--var`) for packs that declare `inputs:`. */
  vars?: Readonly<Record<string, unknown>>;
}

/**
 * The impact report of a change (pure): every member of either side (fleet agents, else
 * roles, else the pack's one, and each working folder of a chain: `folderMembers`) composed on both sides, compared byte for byte, with a unified diff and byte and
 * line deltas for each one that changed.
 *
 * @example
 * const report = diffPacks({ snapshot: before }, { snapshot: after });
 * for (const c of report.changed) console.log(c.key, c.bytesAfter - c.bytesBefore);
 */
export function diffPacks(before: DiffSide, after: DiffSide): DiffReport {
  const diagnostics: Diagnostic[] = [];
  const a = composeMembers(before, 'base pack', diagnostics);
  const b = composeMembers(after, 'new pack', diagnostics);
  return { ...comparePrompts(a, b), diagnostics };
}

/** Every member's prompt on one side; members that fail become COMPOSE_FAILED errors in `diagnostics`. */
export function composeMembers(side: DiffSide, label: string, diagnostics: Diagnostic[]): MemberPrompt[] {
  const { manifest, settings } = side.snapshot;
  const checked = applyOverrides(manifest.settings, settings, side.settings);
  if (checked.diagnostics.length > 0) {
    diagnostics.push(...checked.diagnostics.map((d) => ({ ...d, message: `${label}: ${d.message}` })));
    return [];
  }
  const out: MemberPrompt[] = [];
  for (const member of [...packMembers(side.snapshot), ...folderMembers(side.snapshot, side.vars)]) {
    const outcome = composeMember(side.snapshot, member, side.settings, side.vars);
    if (!outcome.ok) {
      const why = outcome.diagnostics.map((d) => `${d.code} ${d.message}`).join('; ');
      diagnostics.push(error('COMPOSE_FAILED', `${label}: ${memberLabel(member)} does not compose: ${why}`));
      continue;
    }
    const { text } = outcome.result;
    out.push({ ...who(member), sha256: sha256(text), bytes: utf8Length(text), text });
  }
  return out;
}

/** Compares two lists of member prompts by member key; order follows the new side, then removed members. */
export function comparePrompts(
  before: readonly MemberPrompt[],
  after: readonly MemberPrompt[],
): { changed: MemberChange[]; unchanged: MemberSame[] } {
  const old = new Map(before.map((p) => [p.key, p]));
  const changed: MemberChange[] = [];
  const unchanged: MemberSame[] = [];
  for (const now of after) {
    const was = old.get(now.key);
    old.delete(now.key);
    if (was && was.sha256 === now.sha256) {
      unchanged.push({ ...who(now), bytes: now.bytes, sha256: now.sha256 });
      continue;
    }
    changed.push(change(was, now));
  }
  for (const was of old.values()) changed.push(change(was, undefined));
  return { changed, unchanged };
}

/**
 * The most line edits (removed plus added) a diff looks for. Finding a shortest diff costs
 * about (lines × edits): two long prompts that share nothing would take minutes. Past this
 * many, a member's diff is one hunk that removes every old line and adds every new one:
 * still exact, not the shortest.
 */
export const MAX_DIFF_EDITS = 2000;

/**
 * A unified diff of two prompts, labelled `a/<name>` and `b/<name>`, with added and removed
 * line counts. Two prompts more than {@link MAX_DIFF_EDITS} line edits apart get a diff
 * that replaces every line.
 */
export function promptDiff(
  name: string,
  before: string,
  after: string,
): { diff: string; added: number; removed: number } {
  // Prompts end without a newline; add one to both so the diff has no "No newline" markers.
  const patch =
    createTwoFilesPatch(`a/${name}`, `b/${name}`, nl(before), nl(after), undefined, undefined, {
      context: 3,
      maxEditLength: MAX_DIFF_EDITS,
    }) ?? wholeReplacement(name, nl(before), nl(after));
  const lines = patch.split('\n').slice(3);
  const body = patch.replace(/^=+\n/, '');
  return {
    diff: body.split('\n').length > 3 ? body : '',
    added: lines.filter((l) => l.startsWith('+')).length,
    removed: lines.filter((l) => l.startsWith('-')).length,
  };
}

// --- internal ---

/** A unified diff replacing every line of `before` by every line of `after` (both end with a newline, or are empty). */
function wholeReplacement(name: string, before: string, after: string): string {
  const removed = before === '' ? [] : before.slice(0, -1).split('\n');
  const added = after === '' ? [] : after.slice(0, -1).split('\n');
  const range = (n: number) => `${n === 0 ? 0 : 1},${n}`;
  return [
    '='.repeat(67),
    `--- a/${name}`,
    `+++ b/${name}`,
    `@@ -${range(removed.length)} +${range(added.length)} @@`,
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    '',
  ].join('\n');
}

function who(
  m: Pick<Member, 'key' | 'agent' | 'role' | 'team'>,
): Pick<MemberPrompt, 'key' | 'agent' | 'role' | 'team'> {
  const out: Pick<MemberPrompt, 'key' | 'agent' | 'role' | 'team'> = { key: m.key };
  if (m.agent !== undefined) out.agent = m.agent;
  if (m.role !== undefined) out.role = m.role;
  if (m.team !== undefined) out.team = m.team;
  return out;
}

function change(was: MemberPrompt | undefined, now: MemberPrompt | undefined): MemberChange {
  const base = (now ?? was)!;
  const before = was?.text ?? '';
  const after = now?.text ?? '';
  const known =
    (was === undefined || was.text !== undefined) && (now === undefined || now.text !== undefined);
  const out: MemberChange = {
    ...who(base),
    status: !was ? 'added' : !now ? 'removed' : 'changed',
    diff: '',
    bytesBefore: was?.bytes ?? 0,
    bytesAfter: now?.bytes ?? 0,
  };
  // A side without its text has no line count: never a count of 0 lines it does not have.
  if (was === undefined || was.text !== undefined) out.linesBefore = countLines(was?.text);
  if (now === undefined || now.text !== undefined) out.linesAfter = countLines(now?.text);
  if (known) {
    const d = promptDiff(base.key, before, after);
    out.diff = d.diff;
    out.linesAdded = d.added;
    out.linesRemoved = d.removed;
  }
  if (was) out.sha256Before = was.sha256;
  if (now) out.sha256After = now.sha256;
  return out;
}

function countLines(text: string | undefined): number {
  return text ? text.split('\n').length : 0;
}

function nl(text: string): string {
  return text === '' ? '' : `${text}\n`;
}
