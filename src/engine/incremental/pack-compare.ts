import type { RoleRecord } from '../../core/build/roles.js';
import type { Snapshot } from '../../core/build/snapshot.js';
import type { Yielder } from '../../core/build/yielder.js';
import { type ComposeOutcome, type ComposeRequest, fleetAgent } from '../../core/compose/compose.js';
import {
  type DegradationReport,
  degradationReport,
  type MemberDegradation,
  memberDegradation,
} from '../../core/compose/degradation.js';
import { folderMembers, type Member, packMembers } from '../../core/compose/members.js';
import { deepEqual } from '../../core/text/deep-equal.js';
import { byteOrder } from '../../core/text/text.js';
import { LayeredMap } from './layered-map.js';
import type { Incremental } from './snapshot-patch.js';

/** Which fleet members and roles got a different prompt between two pack versions. */
export interface PromptChanges {
  /** Fleet agents whose composed prompt differs (added and removed agents included). */
  agents: string[];
  /** Roles whose composed prompt differs (added and removed roles included). */
  roles: string[];
}

/** What a new pack version changes for the prompts of the served one. */
export interface PackComparison {
  /** Every fleet agent and role whose prompt differs (as `changedPrompts` says). */
  changes: PromptChanges;
  /** What the new version takes away from the served version's members (as `degradation` says). */
  degradation: DegradationReport;
  /** How many requests (agents, roles, the default member) were composed again. */
  recomposed: number;
}

/** How a comparison composes: the engine's compose, and its compose that reports what it reads. */
export interface Composer {
  tryCompose(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome;
  composeReading(snapshot: Snapshot, request: ComposeRequest, onRead: (path: string) => void): ComposeOutcome;
}

/**
 * An engine's pack comparisons, and what each snapshot compared is known to read (so the
 * next comparison starts from there).
 */
export class PackComparer {
  /** Per snapshot: request key → the pack paths its compose looked up. */
  #indexes = new WeakMap<Snapshot, Promise<ReadonlyMap<string, readonly string[]>>>();
  /** Per index: pack path → the requests that read it. */
  #readerIndexes = new WeakMap<ReadonlyMap<string, readonly string[]>, Map<string, string[]>>();
  #requestMaps = new WeakMap<Snapshot, Map<string, ComposeRequest>>();

  constructor(
    private readonly composer: Composer,
    private readonly incremental: Incremental,
  ) {}

  /**
   * Compares two versions of a pack once, for both the reload guard and the change report:
   * the result equals `degradation(current, next)` and `changedPrompts(current, next)`.
   * Only the requests an edit can reach are composed again: a request whose pack files (every
   * path its compose looked up, found or not), fleet entry and role record are unchanged,
   * in a pack whose manifest, settings, root and outside files are unchanged, composes to
   * the same prompt and layers. When the manifest or the settings change, every request is
   * compared, once. What each request of `next` reads is kept with it, so the next
   * comparison starts from there. Pure apart from that memo; yields to `yielder` between
   * requests.
   *
   * @example
   * const { changes, degradation } = await comparePacks(served, candidate);
   */
  async compare(current: Snapshot | undefined, next: Snapshot, yielder?: Yielder): Promise<PackComparison> {
    const none: DegradationReport = { degraded: false, members: [], layers: [] };
    if (!current) {
      const changes = {
        agents: [...new Set(next.fleet.map((a) => a.id))].sort(byteOrder),
        roles: [...next.roles.keys()].sort(byteOrder),
      };
      return { changes, degradation: none, recomposed: 0 };
    }
    const before = await this.index(current, yielder);
    const beforeRequests = this.#requestsOf(current);
    // A version patched from the served one shares its fleet and registry: the same requests.
    if (next.fleet === current.fleet && next.roles === current.roles && !this.#requestMaps.has(next))
      this.#requestMaps.set(next, beforeRequests);
    const afterRequests = this.#requestsOf(next);
    const samePack = sameInputs(current, next);
    const patched = samePack ? this.incremental.patchedPaths(current, next) : undefined;
    const changed = !samePack
      ? undefined
      : patched
        ? new Set(patched)
        : await changedPaths(current, next, yielder);
    const after = new Map<string, readonly string[]>();
    const outcomes = new Map<string, { before?: ComposeOutcome; after?: ComposeOutcome }>();
    // A version patched from the served one, with its requests: only those that read a
    // changed file can differ, found through who reads each file (no pass over every request).
    const onlyReaders = patched !== undefined && afterRequests === beforeRequests;
    let keys: string[];
    if (onlyReaders) {
      const readers = this.#readersOf(before);
      const reached = new Set<string>();
      for (const path of patched) for (const key of readers.get(path) ?? []) reached.add(key);
      keys = [...reached];
    } else {
      keys = [...beforeRequests.keys()];
      for (const key of afterRequests.keys()) if (!beforeRequests.has(key)) keys.push(key);
    }
    for (let i = 0; i < keys.length; i++) {
      if (yielder?.due) await yielder.pause();
      const key = keys[i]!;
      const request = (afterRequests.get(key) ?? beforeRequests.get(key))!;
      const reads = before.get(key);
      const inNext = afterRequests.has(key);
      const reached =
        !changed ||
        !reads ||
        !inNext ||
        !beforeRequests.has(key) ||
        !sameEntry(current, next, request) ||
        reads.some((p) => changed.has(p));
      if (!reached) {
        after.set(key, reads);
        continue;
      }
      const pair: { before?: ComposeOutcome; after?: ComposeOutcome } = {};
      if (inNext) {
        const files: string[] = [];
        pair.after = this.composer.composeReading(next, request, (p) => files.push(p));
        after.set(key, [...new Set(files)]);
      } else pair.after = this.composer.tryCompose(next, request);
      if (beforeRequests.has(key)) pair.before = this.composer.tryCompose(current, request);
      outcomes.set(key, pair);
    }
    if (onlyReaders) {
      const index = LayeredMap.over(before, after);
      // Who reads each file stays known while the recomposed requests read what they did.
      if ([...after].every(([key, reads]) => sameList(reads, before.get(key)!)))
        this.#readerIndexes.set(index, this.#readersOf(before));
      this.#indexes.set(next, Promise.resolve(index));
    } else this.#indexes.set(next, Promise.resolve(after));

    // The change report: every reached agent and role whose prompt (its fingerprint) differs.
    const agents: string[] = [];
    const roles: string[] = [];
    for (const [key, pair] of outcomes) {
      if (yielder?.due) await yielder.pause();
      const [kind, id] = splitKey(key);
      if (kind === 'default' || kind === 'folder') continue;
      const a = beforeRequests.has(key) ? pair.before : undefined;
      const b = afterRequests.has(key) ? pair.after : undefined;
      if (!samePrompt(a, b)) (kind === 'agent' ? agents : roles).push(id);
    }

    // The guard: the served version's members, in order; only reached ones can degrade.
    const nextAgents = new Set(next.fleet.map((a) => a.id));
    const members: MemberDegradation[] = [];
    const reached = { agents: new Set<string>(), roles: new Set<string>(), default: false };
    for (const key of outcomes.keys()) {
      const [kind, id] = splitKey(key);
      if (kind === 'agent') reached.agents.add(id);
      else if (kind === 'role') reached.roles.add(id);
      else if (kind === 'default') reached.default = true;
    }
    // The guard's members (`guardedMembers`): the pack's reached ones, then its working folders'.
    for (const member of [...packMembers(current, reached), ...folderMembers(current)]) {
      if (yielder?.due) await yielder.pause();
      const pair = outcomes.get(memberKey(member));
      if (!pair) continue;
      const removed =
        member.agent !== undefined
          ? !nextAgents.has(member.agent)
          : member.role !== undefined && !next.roles.has(member.role);
      const found = memberDegradation(member, removed, current, next, pair);
      if (found) members.push(found);
    }
    return {
      changes: { agents: agents.sort(byteOrder), roles: roles.sort(byteOrder) },
      degradation: degradationReport(members),
      recomposed: outcomes.size,
    };
  }

  /**
   * Works out, once per snapshot, which pack files each of its requests (fleet agents,
   * roles, the default member) reads, so a later {@link comparePacks} against it composes
   * only what an edit reaches. A snapshot that was the `next` of a comparison already has
   * it; the service calls this for the first one it serves, in the background.
   */
  index(snapshot: Snapshot, yielder?: Yielder): Promise<ReadonlyMap<string, readonly string[]>> {
    let found = this.#indexes.get(snapshot);
    if (!found) {
      found = this.#buildIndex(snapshot, yielder);
      this.#indexes.set(snapshot, found);
      // A failed index is not kept: the next comparison tries again.
      found.catch(() => this.#indexes.delete(snapshot));
    }
    return found;
  }

  // --- internal ---

  async #buildIndex(
    snapshot: Snapshot,
    yielder: Yielder | undefined,
  ): Promise<ReadonlyMap<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    // Who reads each file, built alongside (the next comparison looks edits up there).
    const readers = new Map<string, string[]>();
    for (const [key, request] of this.#requestsOf(snapshot)) {
      if (yielder?.due) await yielder.pause();
      const files: string[] = [];
      this.composer.composeReading(snapshot, request, (p) => files.push(p));
      const reads = [...new Set(files)];
      out.set(key, reads);
      for (const path of reads) {
        const keys = readers.get(path);
        if (keys) keys.push(key);
        else readers.set(path, [key]);
      }
    }
    this.#readerIndexes.set(out, readers);
    return out;
  }

  #readersOf(index: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
    let found = this.#readerIndexes.get(index);
    if (!found) {
      found = new Map();
      for (const [key, reads] of index)
        for (const path of reads) {
          const keys = found.get(path);
          if (keys) keys.push(key);
          else found.set(path, [key]);
        }
      this.#readerIndexes.set(index, found);
    }
    return found;
  }

  /** The requests a comparison covers: fleet agents, roles, the default member of a pack with neither, and a chain's working folders. */
  #requestsOf(snapshot: Snapshot): Map<string, ComposeRequest> {
    const found = this.#requestMaps.get(snapshot);
    if (found) return found;
    const out = new Map<string, ComposeRequest>();
    this.#requestMaps.set(snapshot, out);
    for (const agent of snapshot.fleet) out.set(`agent\0${agent.id}`, { agent: agent.id });
    for (const role of snapshot.roles.keys()) out.set(`role\0${role}`, { role });
    if (snapshot.fleet.length === 0 && snapshot.roles.size === 0) out.set('default\0', {});
    for (const member of folderMembers(snapshot)) out.set(memberKey(member), member.request);
    return out;
  }
}

/**
 * What a change report compares for one request: the sha256 of its prompt, or its error
 * codes when it does not compose.
 */
export function promptFingerprint(outcome: ComposeOutcome): string {
  return outcome.ok ? outcome.result.sha256 : `error:${outcome.diagnostics.map((d) => d.code).join(',')}`;
}

/**
 * Whether two outcomes (undefined: no such member) have the same {@link promptFingerprint},
 * without hashing prompts whose texts tell: equal texts are the same prompt, texts of
 * different lengths are not (see below), and only texts of one length that differ (two
 * lone surrogates, say, both written as U+FFFD) are compared by their hashes. A comparison
 * after an edit that every member reads (a base file) hashed every member's prompt twice:
 * half of its time at 10,000 agents.
 */
export function samePrompt(a: ComposeOutcome | undefined, b: ComposeOutcome | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.ok !== b.ok) return false;
  if (!a.ok || !b.ok) return promptFingerprint(a) === promptFingerprint(b);
  const [x, y] = [a.result.text, b.result.text];
  if (x === y) return true;
  // Different texts of different lengths have different UTF-8 bytes: read back, bytes give
  // a text as long as the one written (a lone surrogate, one unit, comes back as U+FFFD,
  // one unit). Only texts of one length are compared by their hashes.
  return x.length === y.length && a.result.sha256 === b.result.sha256;
}

// --- internal ---

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A member's request key: `agent\0<id>`, `role\0<id>`, `default\0`, or a working folder's `folder\0<input>=<folder>`. */
function memberKey(member: Member): string {
  if (member.agent !== undefined) return `agent\0${member.agent}`;
  if (member.role !== undefined) return `role\0${member.role}`;
  if (member.request.vars !== undefined) return `folder\0${member.key}`;
  return 'default\0';
}

function splitKey(key: string): ['agent' | 'role' | 'default' | 'folder', string] {
  const at = key.indexOf('\0');
  return [key.slice(0, at) as 'agent' | 'role' | 'default' | 'folder', key.slice(at + 1)];
}

/**
 * Whether everything a compose reads besides pack files and the request's own fleet entry
 * and role record is the same: manifest, resolved settings, root, outside files, preset,
 * and whether the pack has a fleet and a registry.
 */
function sameInputs(a: Snapshot, b: Snapshot): boolean {
  if (a.root !== b.root || a.preset !== b.preset) return false;
  if (a.fleet.length > 0 !== b.fleet.length > 0 || a.roles.size > 0 !== b.roles.size > 0) return false;
  if ((a.external?.size ?? 0) !== (b.external?.size ?? 0)) return false;
  for (const [path, file] of a.external ?? [])
    if (b.external?.get(path)?.sha256 !== file.sha256) return false;
  return deepEqual(a.manifest, b.manifest) && deepEqual(a.settings, b.settings);
}

/** Paths whose file differs between two snapshots of one pack (added, removed, or other bytes). */
async function changedPaths(a: Snapshot, b: Snapshot, yielder: Yielder | undefined): Promise<Set<string>> {
  // Two passes without a yield between (a few milliseconds for 100,000 files).
  if (yielder?.due) await yielder.pause();
  const out = new Set<string>();
  // Same bytes under the same manifest decode to the same file.
  a.files.forEach((file, path) => {
    const other = b.files.get(path);
    if (!other || (other !== file && other.sha256 !== file.sha256)) out.add(path);
  });
  b.files.forEach((_, path) => {
    if (!a.files.has(path)) out.add(path);
  });
  return out;
}

/** Whether a request's fleet entry (its role and team) and role record are the same in both. */
function sameEntry(a: Snapshot, b: Snapshot, request: ComposeRequest): boolean {
  let role = request.role;
  if (request.agent !== undefined) {
    const x = fleetAgent(a, request.agent);
    const y = fleetAgent(b, request.agent);
    if (!x || !y || x.role !== y.role || x.team !== y.team) return false;
    role = x.role;
  }
  return role === undefined || sameRecord(a.roles.get(role), b.roles.get(role));
}

function sameRecord(a: RoleRecord | undefined, b: RoleRecord | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && deepEqual(a, b));
}
