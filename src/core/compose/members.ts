import { derived } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot.js';
import { byteOrder } from '../text/text.js';
import { type ComposeOutcome, type ComposeRequest, tryCompose } from './compose.js';

/**
 * The members a pack serves (docs/pack-format.md, "Fleet"): its fleet agents; with no
 * fleet, every known role; with neither, one member with an empty request. Diff, snapshot
 * lock files and validate iterate over these.
 */
export interface Member {
  /**
   * Stable identity across pack versions: the agent id, `role:<id>`, `(default)`, or a
   * working folder's `<input>=<folder>` ({@link folderMembers}).
   */
  key: string;
  agent?: string;
  role?: string;
  team?: string;
  /** The request that composes this member's prompt. */
  request: ComposeRequest;
}

/** The members of a snapshot, in fleet order (or role order); with `only`, just those it names. */
export function packMembers(snapshot: Snapshot, only?: MemberFilter): Member[] {
  if (snapshot.fleet.length > 0) {
    const out: Member[] = [];
    for (const a of snapshot.fleet) {
      if (only && !only.agents.has(a.id)) continue;
      const m: Member = { key: a.id, agent: a.id, request: { agent: a.id } };
      if (a.role !== undefined) m.role = a.role;
      if (a.team !== undefined) m.team = a.team;
      out.push(m);
    }
    return out;
  }
  if (snapshot.roles.size > 0) {
    const out: Member[] = [];
    for (const role of snapshot.roles.keys())
      if (!only || only.roles.has(role)) out.push({ key: `role:${role}`, role, request: { role } });
    return out;
  }
  return only && !only.default ? [] : [{ key: '(default)', request: {} }];
}

/**
 * The working folders of a pack whose layer reads a chain of files down to the folder a
 * request input names (`chain: { path: "{cwd}" }`, as nested notes files): one member
 * for each folder below the root holding a file of the chain, whose request names that
 * folder (key `cwd=backend/api`). Each of them composes a prompt of its own, which the
 * pack's one member with an empty request (the root's) never shows: a comparison of two
 * versions of the pack (diff, lock files) composes these too. None for an input given in
 * `vars` (the request names the folder) or with a fleet or roles.
 */
export function folderMembers(snapshot: Snapshot, vars?: Readonly<Record<string, unknown>>): Member[] {
  if (snapshot.fleet.length > 0 || snapshot.roles.size > 0) return [];
  // Without request inputs, worked out once per snapshot (the reload guard asks each time).
  if (vars === undefined) return derived(snapshot, 'folder-members', (s) => workingFolders(s, undefined));
  return workingFolders(snapshot, vars);
}

function workingFolders(snapshot: Snapshot, vars: Readonly<Record<string, unknown>> | undefined): Member[] {
  const out: Member[] = [];
  const seen = new Set<string>();
  for (const layer of snapshot.manifest.layers) {
    const source = layer.source;
    if (source?.kind !== 'chain') continue;
    const input = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(source.path)?.[1];
    if (input === undefined || (vars && Object.hasOwn(vars, input))) continue;
    const fallback = snapshot.manifest.inputs.find((i) => i.name === input)?.default;
    const names = new Set(source.files);
    const folders = new Set<string>();
    for (const path of snapshot.files.keys()) {
      const at = path.lastIndexOf('/');
      if (at > 0 && names.has(path.slice(at + 1))) folders.add(path.slice(0, at));
    }
    for (const folder of [...folders].sort(byteOrder)) {
      const key = `${input}=${folder}`;
      if (folder === fallback || seen.has(key)) continue;
      seen.add(key);
      out.push({ key, request: { vars: { [input]: folder } } });
    }
  }
  return out;
}

/** Which members {@link packMembers} gives (in the pack's order): by agent id, by role, the default one. */
export interface MemberFilter {
  agents: ReadonlySet<string>;
  roles: ReadonlySet<string>;
  default: boolean;
}

/** Composes one member, with setting overrides and request inputs applied on top of its request. */
export function composeMember(
  snapshot: Snapshot,
  member: Member,
  settings?: Readonly<Record<string, unknown>>,
  vars?: Readonly<Record<string, unknown>>,
  compose: MemberCompose = tryCompose,
): ComposeOutcome {
  const request: ComposeRequest = { ...member.request };
  if (settings && Object.keys(settings).length > 0) request.settings = settings;
  if (vars && Object.keys(vars).length > 0) request.vars = { ...member.request.vars, ...vars };
  return compose(snapshot, request);
}

/** How members are composed: the core's compose, or an engine's. */
export type MemberCompose = (snapshot: Snapshot, request: ComposeRequest) => ComposeOutcome;

/** A member's name for people: the agent id, `role <id>`, or `(default)`. */
export function memberLabel(member: Pick<Member, 'agent' | 'role' | 'key'>): string {
  if (member.agent !== undefined) return member.agent;
  if (member.role !== undefined) return `role ${member.role}`;
  return member.key;
}
