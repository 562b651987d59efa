import { derived } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot.js';
import type { Gate } from '../pack/gates.js';
import type { LayerDef, LayerSource } from '../pack/manifest.js';
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

/** The path templates of a layer's sources (its own and its variants'). */
export function layerPaths(layer: LayerDef): string[] {
  const sources: LayerSource[] = [];
  if (layer.source) sources.push(layer.source);
  for (const v of layer.variants ?? []) sources.push(v.source);
  return sources.flatMap((s) => (s.kind === 'file' ? s.paths : []));
}

// --- internal ---

function compute(snapshot: Snapshot): KnownNames {
  const paths = [...snapshot.files.keys()];
  const templates = snapshot.manifest.layers.flatMap(layerPaths);
  const fromFiles = (name: PathPlaceholder) => {
    const out = new Set<string>();
    for (const t of templates) {
      if (!t.includes(`{${name}}`)) continue;
      const re = templateRegExp(t, name);
      for (const p of paths) {
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
    for (const p of paths) {
      const m = re.exec(p);
      if (m?.[1]) agents.add(m[1]);
    }
  }
  for (const a of snapshot.fleet) {
    agents.add(a.id);
    if (a.team !== undefined) teams.add(a.team);
  }
  const gateTeams = snapshot.manifest.layers.flatMap((l) => [
    ...(l.when ? teamsOfGate(l.when) : []),
    ...(l.variants ?? []).flatMap((v) => (v.when ? teamsOfGate(v.when) : [])),
  ]);
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
