import type { Agent } from '../build/fleet.js';
import { notARoleWords } from '../build/roles.js';
import type { Snapshot } from '../build/snapshot.js';
import { type Diagnostic, error, warning } from '../text/diagnostics.js';
import { closestNames, didYouMean, knownList } from '../text/suggest.js';
import { hasRoles, knownNames, namedAtOnce } from './known-names.js';

/** What {@link checkRequestNames} found: names reported as unknown (layers using them are not reported again as LAYER_MISSING). */
export type UnknownNames = ReadonlySet<'role' | 'team' | 'agent'>;

/**
 * Says when a request names something the pack does not know, with the closest known
 * names (never silently wrong), adding its diagnostics to `diagnostics`:
 * - an agent outside the fleet that no identity file names: UNKNOWN_AGENT — an error
 *   without a role in a pack with a fleet (nothing says what to compose), else a warning
 *   (a pack without a fleet composes what every role shares, as with no name);
 * - a role in a pack whose registry is empty and whose files do not name it: UNKNOWN_ROLE
 *   warning (an unknown role of a non-empty registry is an error, from compose); an error
 *   when the folder is also another layout, which has roles (`snapshot.alsoLayout`);
 * - a team no fleet member, team file or team gate knows: UNKNOWN_TEAM warning;
 * - no role, and no agent or a known one, in a pack that has roles: NO_ROLE warning.
 * `role` and `team` are the request's, else the fleet member's (`member`: the agent's
 * fleet entry, when it has one). Returns the names reported as unknown.
 */
export function checkRequestNames(
  snapshot: Snapshot,
  role: string | undefined,
  team: string | undefined,
  agent: string | undefined,
  member: Agent | undefined,
  diagnostics: Diagnostic[],
): UnknownNames {
  // A fleet member or no agent, a registry role (compose checked it is one) and a known
  // team or none: nothing to say (the usual request, answered without a list or a set).
  if (
    (agent === undefined || member !== undefined) &&
    role !== undefined &&
    snapshot.roles.size > 0 &&
    (team === undefined || team === member?.team || known(snapshot, 'team', team))
  )
    return new Set();
  // Made when a name is unknown: a request whose names are all known gets an empty set.
  let unknown: Set<'role' | 'team' | 'agent'> | undefined;
  // Every name the pack knows is worked out (once per snapshot, from every path of the
  // pack) only when a name is not known at once (see `known`) or a message lists them.

  // 1. The agent.
  if (agent !== undefined && !member && !known(snapshot, 'agent', agent)) {
    const fleet = snapshot.fleet.map((a) => a.id);
    const suggestions = closestNames(agent, knownNames(snapshot).agents);
    // A pack without a fleet knows agents only by their identity files.
    const base =
      fleet.length > 0
        ? `agent ${JSON.stringify(agent)} is not in the fleet${didYouMean(suggestions)}`
        : `agent ${JSON.stringify(agent)} is not known: the pack has no fleet and no file names it${didYouMean(suggestions)}`;
    const known =
      fleet.length > 0 ? `fleet: ${knownList(fleet)}` : `agents: ${knownList(knownNames(snapshot).agents)}`;
    // Without a role, a pack with a fleet has nothing to compose for it (an error); a pack
    // without one composes what every role shares, as for a request naming nobody.
    const d =
      role !== undefined
        ? warning('UNKNOWN_AGENT', `${base} (${known}; composed for role ${role})`)
        : fleet.length > 0
          ? error(
              'UNKNOWN_AGENT',
              `${base} (${known}; give a role to compose for an agent outside the fleet)`,
            )
          : warning(
              'UNKNOWN_AGENT',
              `${base} (${known}): only the layers every role shares are composed; give a role (roles: ${knownList(knownNames(snapshot).roles)})`,
            );
    withSuggestions(d, suggestions);
    diagnostics.push(d);
    unknown = withName(unknown, 'agent');
  }

  // 2. The role.
  if (role === undefined) {
    // (An unknown agent said so already, with the roles.)
    if (hasRoles(snapshot) && !diagnostics.some((d) => d.severity === 'error') && !unknown) {
      diagnostics.push(
        warning(
          'NO_ROLE',
          `${agent === undefined ? 'no role or agent given' : `no role given for agent ${JSON.stringify(agent)}`}: only the layers every role shares are composed; roles: ${knownList(knownNames(snapshot).roles)}`,
        ),
      );
    }
  } else if (snapshot.roles.size === 0 && !known(snapshot, 'role', role)) {
    const suggestions = closestNames(role, knownNames(snapshot).roles);
    const refused = notARoleWords(snapshot.warnings, role);
    const why =
      knownNames(snapshot).roles.length === 0
        ? `the pack declares no roles${refused || ' (its registry is empty and no role file names it)'}`
        : `the pack has no role registry and no role file for it${refused}`;
    const list =
      knownNames(snapshot).roles.length === 0
        ? ''
        : ` (roles from files: ${knownList(knownNames(snapshot).roles)})`;
    // A layout without roles was detected first; the other layout's roles are read with
    // --preset: a role asked of this one is the other's, and is no role here (an error, not
    // this layout's prompt under another's name).
    const others = snapshot.alsoLayouts ?? [];
    const also =
      others.length === 0
        ? ''
        : others.length === 1
          ? `; the folder is also a ${others[0]} layout, whose roles --preset ${others[0]} reads (${snapshot.preset} was detected first): compose with --preset ${others[0]}`
          : `; the folder is also the layouts ${others.join(' and ')}, whose roles --preset reads (${snapshot.preset} was detected first): compose with ${others.map((name) => `--preset ${name}`).join(' or ')}`;
    diagnostics.push(
      withSuggestions(
        (others.length === 0 ? warning : error)(
          'UNKNOWN_ROLE',
          `role ${JSON.stringify(role)} is unknown: ${why}${didYouMean(suggestions)}${list}${also}`,
        ),
        suggestions,
      ),
    );
    unknown = withName(unknown, 'role');
  }

  // 3. The team.
  if (team !== undefined && !known(snapshot, 'team', team)) {
    const suggestions = closestNames(team, knownNames(snapshot).teams);
    const why = knownNames(snapshot).teamUsed
      ? 'no team file, fleet member or team gate names it'
      : 'no layer of this pack uses a team';
    const list =
      knownNames(snapshot).teams.length === 0 ? '' : ` (teams: ${knownList(knownNames(snapshot).teams)})`;
    diagnostics.push(
      withSuggestions(
        warning(
          'UNKNOWN_TEAM',
          `team ${JSON.stringify(team)} is unknown: ${why}${didYouMean(suggestions)}${list}`,
        ),
        suggestions,
      ),
    );
    unknown = withName(unknown, 'team');
  }
  return unknown ?? new Set();
}

/** The known role ids closest to `role` (for UNKNOWN_ROLE errors). */
export function closestRoles(snapshot: Snapshot, role: string): string[] {
  return closestNames(role, snapshot.roles.keys());
}

// --- internal ---

/** Whether the pack knows a team, agent or role: told at once where it can be, else from every name it knows. */
function known(snapshot: Snapshot, name: 'team' | 'agent' | 'role', value: string): boolean {
  if (namedAtOnce(snapshot, name, value)) return true;
  const { sets } = knownNames(snapshot);
  return (name === 'team' ? sets.teams : name === 'agent' ? sets.agents : sets.roles).has(value);
}

function withName(
  names: Set<'role' | 'team' | 'agent'> | undefined,
  name: 'role' | 'team' | 'agent',
): Set<'role' | 'team' | 'agent'> {
  const set = names ?? new Set();
  set.add(name);
  return set;
}

function withSuggestions(d: Diagnostic, suggestions: string[]): Diagnostic {
  if (suggestions.length > 0) d.suggestions = suggestions;
  return d;
}
