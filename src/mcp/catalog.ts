import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeRequest } from '../core/compose/compose.js';
import { knownNames } from '../core/compose/known-names.js';
import { isValidName } from '../core/pack/names.js';
import { closestNames, didYouMean, knownList } from '../core/text/suggest.js';
import { invalidParams, type McpFailure } from './errors.js';
import { DEFAULT_BOUNDS } from './limits.js';

/** One MCP prompt: a role, a fleet agent, or (a pack with neither) the pack's one prompt. */
export interface PromptEntry {
  /** The prompt's MCP name: the role or agent id (`role:<id>` for a role an agent's id hides). */
  name: string;
  kind: 'role' | 'agent' | 'pack';
  /** The role or agent id (the pack's name for `pack`). */
  id: string;
  /** A display name, when the role record has one (`name:`). */
  title?: string;
  description: string;
  /** The compose request this prompt stands for, before its arguments. */
  request: ComposeRequest;
}

/** Every prompt of a snapshot, in order (roles, then fleet agents), and by name. */
export interface PromptCatalog {
  snapshot: Snapshot;
  entries: readonly PromptEntry[];
  byName: ReadonlyMap<string, PromptEntry>;
}

/**
 * The prompts a snapshot serves: one per role (its id) and one per fleet agent (its id).
 * When an agent and a role share an id, the agent keeps the id and the role is listed as
 * `role:<id>` (ids never hold a colon); a pack with neither roles nor agents serves one
 * prompt named after its manifest (`agents-md`). `role:<id>` and `agent:<id>` name a role
 * or an agent whatever the listing says.
 *
 * @example
 * promptCatalog(snapshot).entries.map((e) => e.name); // ['developer', 'qa', …, 'ada', …]
 */
export function promptCatalog(snapshot: Snapshot): PromptCatalog {
  const agents = new Set(snapshot.fleet.map((a) => a.id));
  const entries: PromptEntry[] = [];
  const roles = knownNames(snapshot).roles;
  const ordered = snapshot.roles.size > 0 ? [...snapshot.roles.keys()] : roles;
  for (const id of ordered) {
    const record = snapshot.roles.get(id);
    const entry: PromptEntry = {
      name: agents.has(id) ? `role:${id}` : id,
      kind: 'role',
      id,
      description: roleDescription(snapshot, id, agents.has(id)),
      request: { role: id },
    };
    if (record?.name !== undefined) entry.title = record.name;
    entries.push(entry);
  }
  for (const agent of snapshot.fleet) {
    entries.push({
      name: agent.id,
      kind: 'agent',
      id: agent.id,
      description: agentDescription(snapshot, agent.id, agent.role, agent.team),
      request: { agent: agent.id },
    });
  }
  if (entries.length === 0) {
    const name =
      snapshot.manifest.name !== undefined && isValidName(snapshot.manifest.name)
        ? snapshot.manifest.name
        : 'prompt';
    entries.push({
      name,
      kind: 'pack',
      id: name,
      description: snapshot.manifest.description?.trim() || packLine(snapshot),
      request: {},
    });
  }
  return { snapshot, entries, byName: new Map(entries.map((e) => [e.name, e])) };
}

/**
 * The prompt a name stands for: a listed name, or `role:<id>` / `agent:<id>`; an unknown
 * name is `UNKNOWN_PROMPT` (invalid params) with the closest listed names. A name over
 * `maxNameChars` (the HTTP API's bound on names; no prompt's name is as long) is
 * `BAD_REQUEST`, without looking for the closest names (a search that grows with the
 * name's length times the number of prompts).
 */
export function findPrompt(
  catalog: PromptCatalog,
  name: string,
  maxNameChars = DEFAULT_BOUNDS.maxNameChars,
): PromptEntry | McpFailure {
  const listed = catalog.byName.get(name);
  if (listed) return listed;
  if (name.length > maxNameChars)
    return invalidParams(
      'BAD_REQUEST',
      `prompt name: ${name.length} characters, over the limit of ${maxNameChars}`,
    );
  const colon = name.indexOf(':');
  if (colon > 0) {
    const kind = name.slice(0, colon);
    const id = name.slice(colon + 1);
    const found = catalog.entries.find((e) => e.kind === kind && e.id === id);
    if (found) return found;
  }
  const names = catalog.entries.map((e) => e.name);
  const suggestions = closestNames(name, names);
  return invalidParams(
    'UNKNOWN_PROMPT',
    `unknown prompt ${JSON.stringify(name)}${didYouMean(suggestions)}; known prompts: ${knownList(names)}`,
    suggestions,
  );
}

// --- internal ---

/**
 * A role's own description (its record's `description:`, or an agents.yaml record's
 * `role` and `goal`), else a line saying what the prompt is made of.
 */
function roleDescription(snapshot: Snapshot, id: string, shadowed: boolean): string {
  const own = ownDescription(snapshot, id);
  const note = shadowed ? ` (listed as role:${id}: the fleet agent ${id} has the id)` : '';
  if (own !== undefined) return `${own}${note}`;
  const teams = knownNames(snapshot).teams;
  const team = teams.length > 0 ? `; team: ${knownList(teams, 6)}` : '';
  return `The system prompt of role ${id}${note}, composed from the layers ${layerList(snapshot)}${team}.`;
}

function agentDescription(snapshot: Snapshot, id: string, role?: string, team?: string): string {
  const who = [role && `role ${role}`, team && `team ${team}`].filter(Boolean).join(', ');
  const own = role === undefined ? undefined : ownDescription(snapshot, role);
  const head = `The system prompt of agent ${id}${who ? ` (${who})` : ''}`;
  return own !== undefined ? `${head}: ${own}` : `${head}, composed from the layers ${layerList(snapshot)}.`;
}

function ownDescription(snapshot: Snapshot, role: string): string | undefined {
  const record = snapshot.roles.get(role);
  if (!record) return undefined;
  const description = record.description?.trim();
  if (description) return description;
  const { role: title, goal } = record.fields;
  if (typeof title === 'string' && typeof goal === 'string' && title.trim() && goal.trim())
    return `${title.trim()}: ${goal.trim()}`;
  return undefined;
}

function packLine(snapshot: Snapshot): string {
  return `The system prompt of this pack, composed from the layers ${layerList(snapshot)}.`;
}

function layerList(snapshot: Snapshot): string {
  return knownList(
    snapshot.manifest.layers.map((l) => l.id),
    12,
  );
}
