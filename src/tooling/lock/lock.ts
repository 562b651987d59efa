import { z } from 'zod';
import type { Snapshot } from '../../core/build/snapshot.js';
import { applyOverrides, type SettingValue } from '../../core/pack/settings.js';
import { type Diagnostic, error } from '../../core/text/diagnostics.js';
import { byteOrder, sha256, utf8Length } from '../../core/text/text.js';
import { comparePrompts, composeMembers, type MemberChange, type MemberPrompt } from '../diff/diff.js';

/** The format version of lock files this code writes and reads. */
export const LOCK_FORMAT = 1;

/**
 * The largest lock file `strata snapshot` reads or writes by default (64 MiB, as a whole
 * pack: a lock holds every member's prompt; `--max-lock-bytes`). Read one with the
 * source layer's `readBoundedFile`, which refuses a larger file with FILE_TOO_LARGE.
 */
export const DEFAULT_MAX_LOCK_BYTES = 64 * 1024 * 1024;

const LockMemberSchema = z.strictObject({
  key: z.string(),
  agent: z.string().optional(),
  role: z.string().optional(),
  team: z.string().optional(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().min(0),
  text: z.string().optional(),
});

/** A lock file: every member's prompt hash (and, by default, text) for one pack and its settings. */
export const LockSchema = z.strictObject({
  strata_lock: z.literal(LOCK_FORMAT),
  preset: z.string().optional(),
  settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  /** The request inputs (`--var`) every member was composed with; absent when none. */
  vars: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  members: z.array(LockMemberSchema),
});

export type Lock = z.infer<typeof LockSchema>;

/**
 * Builds the lock of a snapshot (pure): every member (fleet agents, else roles, and each
 * working folder of a chain: `folderMembers`) composed
 * with the pack's settings and `settings` overrides. The pack version is left out on
 * purpose: a change that leaves every prompt the same leaves the lock the same.
 */
export function buildLock(
  snapshot: Snapshot,
  options: {
    settings?: Readonly<Record<string, unknown>>;
    vars?: Readonly<Record<string, unknown>>;
    text?: boolean;
  } = {},
): { lock?: Lock; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const side = options.vars
    ? { snapshot, settings: options.settings, vars: options.vars }
    : { snapshot, settings: options.settings };
  const prompts = composeMembers(side, 'pack', diagnostics);
  if (diagnostics.length > 0) return { diagnostics };
  const members = prompts.map(({ text, ...p }) => (options.text === false ? p : { ...p, text }));
  const lock: Lock = {
    strata_lock: LOCK_FORMAT,
    settings: effectiveSettings(snapshot, options.settings),
    members,
  };
  if (snapshot.preset !== undefined) lock.preset = snapshot.preset;
  const vars = recordedVars(options.vars);
  if (vars !== undefined) lock.vars = vars;
  return { lock: orderLock(lock), diagnostics };
}

/** The lock file's text: pretty JSON with a final newline, stable key order. */
export function formatLock(lock: Lock): string {
  return `${JSON.stringify(orderLock(lock), null, 2)}\n`;
}

/**
 * Reads a lock file's text (BAD_LOCK errors for anything that is not one, including a
 * member listed twice, a member whose text does not have its `sha256` or `bytes`, or a `__proto__` key in `settings` or `vars`, which no setting or
 * input can be named and which a parse would otherwise drop without a word).
 */
export function parseLock(text: string, file: string): { lock?: Lock; diagnostics: Diagnostic[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { diagnostics: [error('BAD_LOCK', `not JSON: ${(e as Error).message}`, { file })] };
  }
  const parsed = LockSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return { diagnostics: [error('BAD_LOCK', `not a strata lock file${where}: ${issue.message}`, { file })] };
  }
  const problem = lockProblem(raw as Record<string, unknown>, parsed.data);
  if (problem !== undefined)
    return { diagnostics: [error('BAD_LOCK', `not a strata lock file at ${problem}`, { file })] };
  return { lock: parsed.data, diagnostics: [] };
}

/** Members whose prompt drifted from the lock: changed, added (not in the lock) or removed. */
export function checkLock(lock: Lock, current: Lock): MemberChange[] {
  return comparePrompts(lock.members as MemberPrompt[], current.members as MemberPrompt[]).changed;
}

// --- internal ---

/** Where a lock that has the schema's shape is still not one a write could give, and why. */
function lockProblem(raw: Record<string, unknown>, lock: Lock): string | undefined {
  for (const part of ['settings', 'vars'] as const) {
    const values = raw[part];
    if (typeof values === 'object' && values !== null && Object.hasOwn(values, '__proto__'))
      return `${part}.__proto__: not a name a setting or input can have`;
  }
  const seen = new Set<string>();
  for (const [i, member] of lock.members.entries()) {
    if (seen.has(member.key)) return `members.${i}.key: member ${JSON.stringify(member.key)} is listed twice`;
    seen.add(member.key);
    // A write records the text's own hash and size: anything else is an edited lock,
    // whose check would pass on a text it does not hold, or fail with an empty diff.
    if (member.text === undefined) continue;
    if (member.sha256 !== sha256(member.text))
      return `members.${i}.sha256: member ${JSON.stringify(member.key)}'s text does not have this hash`;
    if (member.bytes !== utf8Length(member.text))
      return `members.${i}.bytes: member ${JSON.stringify(member.key)}'s text is ${utf8Length(member.text)} bytes, not ${member.bytes}`;
  }
  return undefined;
}

function effectiveSettings(
  snapshot: Snapshot,
  overrides: Readonly<Record<string, unknown>> | undefined,
): Record<string, SettingValue> {
  const { values } = applyOverrides(snapshot.manifest.settings, snapshot.settings, overrides).settings;
  return Object.fromEntries(
    Object.keys(values)
      .sort(byteOrder)
      .map((k) => [k, values[k]!]),
  );
}

/** The inputs as the lock records them: scalar values only, keys in byte order; none → undefined. */
function recordedVars(vars: Readonly<Record<string, unknown>> | undefined): Lock['vars'] {
  const keys = Object.keys(vars ?? {}).sort(byteOrder);
  if (keys.length === 0) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const k of keys) {
    const v = vars![k];
    out[k] = typeof v === 'number' || typeof v === 'boolean' ? v : String(v);
  }
  return out;
}

/** Top-level keys and member keys in a fixed order, so the file text is stable. */
function orderLock(lock: Lock): Lock {
  const members = lock.members.map((m) => {
    const out: Record<string, unknown> = { key: m.key };
    for (const k of ['agent', 'role', 'team'] as const) if (m[k] !== undefined) out[k] = m[k];
    out.sha256 = m.sha256;
    out.bytes = m.bytes;
    if (m.text !== undefined) out.text = m.text;
    return out as Lock['members'][number];
  });
  const out: Record<string, unknown> = { strata_lock: lock.strata_lock };
  if (lock.preset !== undefined) out.preset = lock.preset;
  out.settings = lock.settings;
  if (lock.vars !== undefined) out.vars = lock.vars;
  out.members = members;
  return out as Lock;
}
