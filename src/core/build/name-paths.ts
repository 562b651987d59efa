import type { Gate } from '../pack/gates.js';
import type { LayerDef, LayerSource } from '../pack/manifest.js';
import { splitPath } from '../pack/template.js';
import { derived } from './derived.js';
import type { Snapshot } from './snapshot-types.js';

// What a compose finds a request's names by without reading every path of the pack (see
// `namedAtOnce` in compose/known-names.ts): made of the manifest and the fleet's identity
// path, with the snapshot.

/**
 * Per placeholder (team, agent, role), the pack's path templates that name only it, split
 * (`teams/{team}.md` → `['teams/', 'team', '.md']`); the teams of team gates; whether any
 * path names a role. A build makes them; a patched build, which shares the manifest,
 * carries them over.
 */
export function namePaths(snapshot: Snapshot): NamePaths {
  return derived(snapshot, NAME_PATHS, compute);
}

/** What {@link namePaths} gives. */
export type NamePaths = Record<'team' | 'agent' | 'role', string[][]> & {
  gateTeams: ReadonlySet<string>;
  rolePaths: boolean;
};

/** The slot of {@link namePaths}. */
export const NAME_PATHS = 'name-paths';

/** The path templates of a layer's sources (its own and its variants'). */
export function layerPaths(layer: LayerDef): string[] {
  const sources: LayerSource[] = [];
  if (layer.source) sources.push(layer.source);
  for (const v of layer.variants ?? []) sources.push(v.source);
  return sources.flatMap((s) => (s.kind === 'file' ? s.paths : []));
}

/** The teams the pack's team gates name. */
export function gateTeamsOf(snapshot: Snapshot): string[] {
  return snapshot.manifest.layers.flatMap((l) => [
    ...(l.when ? teamsOfGate(l.when) : []),
    ...(l.variants ?? []).flatMap((v) => (v.when ? teamsOfGate(v.when) : [])),
  ]);
}

// --- internal ---

/** Per placeholder, the path templates (split) naming only it; and the teams of team gates. */
function compute(snapshot: Snapshot): NamePaths {
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

function teamsOfGate(gate: Gate): string[] {
  if ('team' in gate) return [...gate.team];
  if ('all' in gate) return gate.all.flatMap(teamsOfGate);
  if ('any' in gate) return gate.any.flatMap(teamsOfGate);
  if ('not' in gate) return teamsOfGate(gate.not);
  return [];
}
