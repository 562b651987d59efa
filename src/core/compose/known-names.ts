import { derived, fleetNames } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot.js';
import type { Gate } from '../pack/gates.js';
import type { LayerDef, LayerSource } from '../pack/manifest.js';
import { type PathPlaceholder, splitPath } from '../pack/template.js';

/** The names a pack knows, for telling an unknown role, team or agent from a known one. */
export interface KnownNames {
  /** Registry roles, else roles named by files of `{role}` / `{role_file}` layers. */
  roles: string[];
  /** Teams of the fleet, of `{team}` layer files and of team gates. */
  teams: string[];
  /** Fleet members and agents with an identity file (`{agent}` layer files). */
  agents: string[];
  /** Whether any layer path or gate uses the team at all. */
  teamUsed: boolean;
  /** The same names as sets, for membership tests. */
  sets: { roles: ReadonlySet<string>; teams: ReadonlySet<string>; agents: ReadonlySet<string> };
}

/**
 * The known names of a snapshot, worked out once per snapshot (it never changes).
 *
 * @example
 * knownNames(snapshot).teams; // ['growth', 'payments', 'platform']
 */
export function knownNames(snapshot: Snapshot): KnownNames {
  return derived(snapshot, 'known-names', compute);
}

/**
 * Whether the pack knows the team, agent or role `value`, where the name itself tells:
 * a team of the fleet or of a team gate, or a file that a layer path (or the fleet's
 * identity path) naming only that placeholder names for it (`teams/{team}.md` holds
 * `teams/platform.md`). O(layers): false means "not told so", and {@link knownNames}
 * (which reads every path of the pack) says.
 *
 * @example
 * namedAtOnce(snapshot, 'team', 'platform') || knownNames(snapshot).sets.teams.has('platform');
 */
export function namedAtOnce(snapshot: Snapshot, name: 'team' | 'agent' | 'role', value: string): boolean {
  const once = derived(snapshot, NAMED_PATHS, namedPaths);
  if (name === 'team' && (fleetNames(snapshot).teams.has(value) || once.gateTeams.has(value))) return true;
  // A file names only what one path segment holds (see templateRegExp).
  if (value === '' || value.includes('/')) return false;
  for (const parts of once[name]) {
    let path = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) path += value + parts[i + 1]!;
    if (snapshot.files.has(path)) return true;
  }
  return false;
}

/**
 * Whether the pack knows any role: its registry's, else one a file names through a
 * `{role}` or `{role_file}` layer path (every path is read only when there are such paths).
 */
export function hasRoles(snapshot: Snapshot): boolean {
  if (snapshot.roles.size > 0) return true;
  return derived(snapshot, NAMED_PATHS, namedPaths).rolePaths && knownNames(snapshot).roles.length > 0;
}

/**
 * The slot of {@link namedAtOnce}'s templates: made of the manifest and the fleet's
 * identity path only, so a patched build (which shares both) carries it over.
 */
export const NAMED_PATHS = 'names-at-once';

/** The path templates of a layer's sources (its own and its variants'). */
export function layerPaths(layer: LayerDef): string[] {
  const sources: LayerSource[] = [];
  if (layer.source) sources.push(layer.source);
  for (const v of layer.variants ?? []) sources.push(v.source);
  return sources.flatMap((s) => (s.kind === 'file' ? s.paths : []));
}

// --- internal ---

/** Per placeholder, the path templates (split) naming only it; and the teams of team gates. */
function namedPaths(
  snapshot: Snapshot,
): Record<'team' | 'agent' | 'role', string[][]> & { gateTeams: ReadonlySet<string>; rolePaths: boolean } {
  const templates = snapshot.manifest.layers.flatMap(layerPaths);
  const { identities } = snapshot.manifest.fleet;
  const only = (names: readonly string[], extra: string[] = []) =>
    [...templates, ...extra]
      .map(splitPath)
      .filter((parts) => parts.length > 1 && parts.every((p, i) => i % 2 === 0 || names.includes(p)));
  return {
    team: only(['team']),
    agent: only(['agent'], identities ? [identities] : []),
    // A role is named by a `{role}` or a `{role_file}` path, not one mixing the two.
    role: [...only(['role']), ...only(['role_file'])],
    gateTeams: new Set(gateTeamsOf(snapshot)),
    rolePaths: templates.some((t) => t.includes('{role}') || t.includes('{role_file}')),
  };
}

function compute(snapshot: Snapshot): KnownNames {
  const templates = snapshot.manifest.layers.flatMap(layerPaths);
  const fromFiles = (name: PathPlaceholder) => {
    const out = new Set<string>();
    for (const t of templates) {
      if (!t.includes(`{${name}}`)) continue;
      const re = templateRegExp(t, name);
      for (const p of snapshot.files.keys()) {
        const m = re.exec(p);
        if (m?.[1]) out.add(m[1]);
      }
    }
    return out;
  };
  const roles =
    snapshot.roles.size > 0
      ? new Set(snapshot.roles.keys())
      : new Set([...fromFiles('role'), ...fromFiles('role_file')]);
  const teams = fromFiles('team');
  const agents = fromFiles('agent');
  if (snapshot.manifest.fleet.identities) {
    const re = templateRegExp(snapshot.manifest.fleet.identities, 'agent');
    for (const p of snapshot.files.keys()) {
      const m = re.exec(p);
      if (m?.[1]) agents.add(m[1]);
    }
  }
  for (const a of snapshot.fleet) {
    agents.add(a.id);
    if (a.team !== undefined) teams.add(a.team);
  }
  const gateTeams = gateTeamsOf(snapshot);
  for (const t of gateTeams) teams.add(t);
  const teamUsed = templates.some((t) => t.includes('{team}')) || gateTeams.length > 0 || teams.size > 0;
  return {
    roles: sorted(roles),
    teams: sorted(teams),
    agents: sorted(agents),
    teamUsed,
    sets: { roles, teams, agents },
  };
}

/** `teams/{team}.md` → /^teams\/([^/]+)\.md$/ capturing the named placeholder. */
function templateRegExp(template: string, name: string): RegExp {
  let source = '';
  let captured = false;
  for (const part of template.split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)) {
    if (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(part)) {
      if (part === `{${name}}` && !captured) {
        source += '([^/]+)';
        captured = true;
      } else source += '[^/]+';
    } else source += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** The teams the pack's team gates name. */
function gateTeamsOf(snapshot: Snapshot): string[] {
  return snapshot.manifest.layers.flatMap((l) => [
    ...(l.when ? teamsOfGate(l.when) : []),
    ...(l.variants ?? []).flatMap((v) => (v.when ? teamsOfGate(v.when) : [])),
  ]);
}

function teamsOfGate(gate: Gate): string[] {
  if ('team' in gate) return [...gate.team];
  if ('all' in gate) return gate.all.flatMap(teamsOfGate);
  if ('any' in gate) return gate.any.flatMap(teamsOfGate);
  if ('not' in gate) return teamsOfGate(gate.not);
  return [];
}

function sorted(set: Set<string>): string[] {
  return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
