import { describe, expect, it } from 'vitest';
import { derived } from '../../src/core/build/derived.js';
import { NAME_PATHS, namePaths } from '../../src/core/build/name-paths.js';
import { buildSnapshot, type Snapshot } from '../../src/core/build/snapshot.js';
import { closestFiles } from '../../src/core/compose/closest-files.js';
import { tryCompose } from '../../src/core/compose/compose.js';
import { knownNames, namedAtOnce } from '../../src/core/compose/known-names.js';
import type { ComposeRequest } from '../../src/core/compose/types.js';
import { closestNames } from '../../src/core/text/suggest.js';
import { LAYOUTS } from '../../src/layouts/registry.js';
import { examplePack } from '../engine/pack-compare-harness.js';

// A snapshot's first compose of a request naming what the pack knows does work of the
// size of the request, never of the whole pack: what it would read of every path (the
// pack's folders, its files by folder, its layout's substitutions, the fleet's names) is
// made with the snapshot, and a name is found known by the paths that name it. Checked
// by composing on a snapshot whose list of paths and fleet cannot be walked any more.

const PACKS = ['roboco', 'roboco-lacking', 'crewai', 'claude-agents', 'agents-md', 'chorus'] as const;

/** An example pack; `roboco-lacking` is roboco with a role's prompt file misnamed (said, with the closest files). */
function build(name: string): Snapshot {
  const pack = examplePack(name.startsWith('roboco-') ? 'roboco' : name);
  if (name === 'roboco-lacking') {
    pack.set('roles/develper.md', pack.get('roles/developer.md')!);
    pack.delete('roles/developer.md');
  }
  const files = new Map([...pack].map(([p, t]) => [p, new TextEncoder().encode(t)]));
  // Every folder below the root, as a folder's read lists them.
  const folders = new Set<string>();
  for (const path of files.keys())
    for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1))
      folders.add(path.slice(0, at));
  const { snapshot, diagnostics } = buildSnapshot({
    files,
    env: {},
    layouts: LAYOUTS,
    folders: [...folders].sort(),
  });
  if (!snapshot) throw new Error(JSON.stringify(diagnostics));
  return snapshot;
}

/** Claude Code agents (roles discovered from their files) with a fleet naming some of them. */
function claudeWithFleet(): Snapshot {
  const agent = (name: string) => `---\nname: ${name}\ndescription: ${name}\n---\n\nYou are ${name}.\n`;
  const files = new Map(
    Object.entries({
      'strata.yaml': 'extends: claude-agents\nfleet:\n  file: fleet.yaml\n',
      'fleet.yaml':
        'agents:\n  - id: rev\n    role: reviewer\n    team: core\n  - id: ops\n    role: planner\n',
      '.claude/agents/reviewer.md': agent('reviewer'),
      '.claude/agents/reviewr.md': agent('reviewr'),
      '.claude/agents/planner.md': agent('planner'),
      '.claude/agents/core.md': agent('core'),
      '.claude/agents/rev.md': agent('rev'),
    }).map(([p, t]) => [p, new TextEncoder().encode(t)]),
  );
  const { snapshot, diagnostics } = buildSnapshot({ files, env: {}, layouts: LAYOUTS });
  if (!snapshot) throw new Error(JSON.stringify(diagnostics));
  return snapshot;
}

/** Makes every way of walking the snapshot's paths, roles, fleet and folders throw; looking one up still works. */
function unwalkable(snapshot: Snapshot): Snapshot {
  const walked = () => {
    throw new Error('walked every path or fleet member');
  };
  for (const key of ['keys', 'values', 'entries', 'forEach', Symbol.iterator] as const)
    Object.defineProperty(snapshot.files, key, { value: walked });
  for (const key of ['keys', 'values', 'entries', 'forEach', Symbol.iterator] as const)
    Object.defineProperty(snapshot.roles, key, { value: walked });
  for (const list of [snapshot.fleet, snapshot.folders ?? []])
    for (const key of ['map', 'filter', 'forEach', 'some', 'find', Symbol.iterator] as const)
      Object.defineProperty(list, key, { value: walked });
  return snapshot;
}

/** Requests naming only what the pack knows: its roles, teams, agents, and its folders as `cwd`. */
function knownRequests(name: string, snapshot: Snapshot): ComposeRequest[] {
  const names = knownNames(snapshot);
  if (name === 'agents-md') {
    const folders = new Set(['.']);
    for (const path of snapshot.files.keys())
      if (path.includes('/')) folders.add(path.slice(0, path.lastIndexOf('/')));
    return [...folders].map((cwd) => ({ vars: { cwd } }));
  }
  const vars = name === 'crewai' ? { topic: 'AI', current_year: '2026' } : undefined;
  const requests: ComposeRequest[] = [];
  for (const role of names.roles) {
    requests.push({ role, ...(vars ? { vars } : {}) });
    for (const team of names.teams.slice(0, 3)) requests.push({ role, team });
  }
  for (const agent of snapshot.fleet.slice(0, 10)) requests.push({ agent: agent.id });
  return requests;
}

describe("a snapshot's first compose of known names", () => {
  for (const name of PACKS) {
    it(`reads no list of every path or fleet member (${name})`, () => {
      const shared = build(name);
      const requests = knownRequests(name, shared);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        const outcome = tryCompose(shared, request);
        // Each request on a snapshot of its own: its first compose.
        expect([request, tryCompose(unwalkable(build(name)), request)]).toEqual([request, outcome]);
      }
    });
  }

  it("names a missing file's closest files as a walk of every path does", () => {
    // The oracle: every file of the missing one's folder, but those a fleet member's id,
    // role or team names, and other roles' files.
    const oracle = (snapshot: Snapshot, path: string) => {
      const declared = new Set(snapshot.fleet.flatMap((a) => [a.id, a.role ?? '', a.team ?? '']));
      const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
      const names = [...snapshot.files.keys()]
        .filter((f) => (f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '') === folder)
        .filter((f) => {
          const name = f.slice(folder === '' ? 0 : folder.length + 1);
          const stem = name.lastIndexOf('.') > 0 ? name.slice(0, name.lastIndexOf('.')) : name;
          const role = snapshot.roles.get(stem);
          return !declared.has(stem) && (role === undefined || role.source === f);
        })
        .map((f) => f.slice(folder === '' ? 0 : folder.length + 1));
      return closestNames(path.slice(folder === '' ? 0 : folder.length + 1), names).map((n) =>
        folder === '' ? n : `${folder}/${n}`,
      );
    };
    for (const name of [...PACKS, 'claude-fleet'] as const) {
      const snapshot = name === 'claude-fleet' ? claudeWithFleet() : build(name);
      for (const path of snapshot.files.keys())
        for (const missing of [path, path.replace(/.(\.\w+)$/, '$1'), `${path}x`, path.replace(/\w\//, 'z/')])
          expect([name, missing, closestFiles(snapshot, missing)]).toEqual([
            name,
            missing,
            oracle(snapshot, missing),
          ]);
    }
  });

  it('makes what it finds names by with the snapshot', () => {
    for (const name of PACKS) {
      const snapshot = build(name);
      expect([name, derived(snapshot, NAME_PATHS, () => undefined)]).toEqual([
        name,
        namePaths({ ...snapshot }),
      ]);
    }
  });

  it('finds a name known at once only when every name the pack knows has it', () => {
    for (const name of PACKS) {
      const snapshot = build(name);
      const names = knownNames(snapshot);
      const sets = { team: names.sets.teams, agent: names.sets.agents, role: names.sets.roles };
      for (const kind of ['team', 'agent', 'role'] as const) {
        const asked = [...sets[kind], 'nobody', 'a/b', '', ...[...sets[kind]].map((v) => `${v}/x`)];
        for (const value of asked)
          if (namedAtOnce(snapshot, kind, value))
            expect([name, kind, value, sets[kind].has(value)]).toEqual([name, kind, value, true]);
      }
    }
    // The file a role lacks is said with the files closest to it.
    const lacking = tryCompose(build('roboco-lacking'), { role: 'developer', team: 'platform' });
    expect(
      lacking.ok && lacking.result.diagnostics.find((d) => d.code === 'LAYER_MISSING')?.suggestions,
    ).toEqual(['roles/develper.md']);
    // chorus has a load warning about a file (a role two registry files define): its
    // composes tell their own files' warnings from a registry file's.
    expect(build('chorus').warnings.map((d) => [d.code, d.file])).toContainEqual([
      'DUPLICATE_ROLE',
      'site-roles.yaml',
    ]);
    // Told at once: a fleet member's team, a team file's, an identity file's agent.
    const roboco = build('roboco');
    const member = roboco.fleet[0]!;
    expect(namedAtOnce(roboco, 'team', member.team!)).toBe(true);
    expect(namedAtOnce(roboco, 'agent', member.id)).toBe(roboco.files.has(`identities/${member.id}.md`));
    expect(namedAtOnce(roboco, 'team', 'no-such-team')).toBe(false);
  });
});
