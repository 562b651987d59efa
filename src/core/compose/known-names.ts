import { derived, fleetNames } from '../build/derived.js';
import { gateTeamsOf, layerPaths, namePaths } from '../build/name-paths.js';
import type { Snapshot } from '../build/snapshot.js';
import type { PathPlaceholder } from '../pack/template.js';

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
  const once = namePaths(snapshot);
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
  return namePaths(snapshot).rolePaths && knownNames(snapshot).roles.length > 0;
}

// --- internal ---

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

function sorted(set: Set<string>): string[] {
  return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
