import { templateMatcher } from '../pack/glob.js';
import type { FleetDef } from '../pack/manifest.js';
import { isLabelName, isValidName } from '../pack/names.js';
import { type Diagnostic, error, type Where, warning } from '../text/diagnostics.js';
import { isTypoOf } from '../text/suggest.js';
import { byteOrder } from '../text/text.js';
import { shownValue } from '../text/value-shown.js';
import type { ParsedYaml } from '../text/yaml.js';
import { isObject } from '../text/yaml.js';

/** One agent the pack serves. */
export interface Agent {
  id: string;
  role?: string;
  team?: string;
  /** Per-agent config overrides from fleet.yaml (model, temperature, …). */
  config?: Record<string, unknown>;
  /** Where the agent is declared: fleet.yaml or its identity file. */
  source: string;
  at?: Where;
}

const AGENT_KEYS = ['id', 'role', 'team', 'config', 'name', 'description'];

/**
 * Builds the fleet (pure), in steps of a few hundred agents (a build yields between them):
 * `fleet.yaml` agents in their written order, then agents whose identity files carry
 * `role` in frontmatter, sorted by id. fleet.yaml wins where both speak; a disagreement
 * is a FLEET_CONFLICT warning.
 */
export function* fleetSteps(
  def: FleetDef,
  fleetYaml: ParsedYaml | undefined,
  allPaths: readonly string[],
  frontmatterOf: (path: string) => { meta: Record<string, unknown>; locate: (key: string) => Where },
): Generator<void, { agents: Agent[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const agents: Agent[] = [];
  const byId = new Map<string, Agent>();

  if (fleetYaml && fleetYaml.diagnostics.length === 0) {
    const doc = fleetYaml.value;
    const list = isObject(doc) ? doc.agents : undefined;
    if (!isObject(doc) || !Array.isArray(list)) {
      diagnostics.push(
        error('BAD_FLEET', `${def.file} must be a mapping with an agents: list`, fleetYaml.locate([])),
      );
    } else {
      for (const [i, entry] of list.entries()) {
        if ((i & 255) === 255) yield;
        const at = fleetYaml.locate(['agents', i]);
        if (!isObject(entry)) {
          diagnostics.push(error('BAD_FLEET', 'each agent must be a mapping', at));
          continue;
        }
        for (const key of Object.keys(entry)) {
          if (!AGENT_KEYS.includes(key)) {
            diagnostics.push(
              error(
                'UNKNOWN_KEY',
                `unknown key ${JSON.stringify(key)} in agent; expected one of: ${AGENT_KEYS.join(', ')}`,
                fleetYaml.locate(['agents', i, key], true),
              ),
            );
          }
        }
        const agent = readAgent(entry, def.file, at, (k) => fleetYaml.locate(['agents', i, k]), diagnostics);
        if (!agent) continue;
        if (byId.has(agent.id)) {
          diagnostics.push(error('DUPLICATE_AGENT', `agent ${agent.id} is listed twice`, at));
          continue;
        }
        byId.set(agent.id, agent);
        agents.push(agent);
      }
    }
  }

  if (def.identities) {
    const match = templateMatcher(def.identities);
    const found: Agent[] = [];
    for (const [i, path] of allPaths.entries()) {
      if ((i & 255) === 255) yield;
      const id = match(path);
      if (id === undefined || !isValidName(id)) continue;
      const { meta, locate } = frontmatterOf(path);
      // A key a typo away from role or team (`taem:`) would leave the agent without it.
      for (const key of ['role', 'team'] as const) {
        if (meta[key] !== undefined) continue;
        const typo = Object.keys(meta).find((k) => isTypoOf(k, key) && !AGENT_KEYS.includes(k));
        if (typo !== undefined)
          diagnostics.push({
            ...warning(
              'UNKNOWN_KEY',
              `agent ${id}: no ${key} in its identity frontmatter, but ${JSON.stringify(typo)}: did you mean "${key}"? The agent is read without it`,
              locate(typo),
            ),
            suggestions: [key],
          });
      }
      if (meta.role === undefined && meta.team === undefined) continue;
      const at = locate('role');
      const fromFile = readAgent({ id, role: meta.role, team: meta.team }, path, at, locate, diagnostics);
      if (!fromFile) continue;
      const listed = byId.get(id);
      if (!listed) {
        if (fromFile.role !== undefined) found.push(fromFile);
        continue;
      }
      for (const key of ['role', 'team'] as const) {
        if (fromFile[key] !== undefined && listed[key] !== undefined && fromFile[key] !== listed[key]) {
          diagnostics.push(
            warning(
              'FLEET_CONFLICT',
              `agent ${id}: ${key} is ${listed[key]} in ${def.file} but ${fromFile[key]} here; ${def.file} wins`,
              locate(key),
            ),
          );
        }
        if (listed[key] === undefined && fromFile[key] !== undefined) listed[key] = fromFile[key];
      }
    }
    agents.push(...found.sort((a, b) => byteOrder(a.id, b.id)));
  }
  return { agents, diagnostics };
}

// --- internal ---

function readAgent(
  entry: Record<string, unknown>,
  source: string,
  at: Where,
  locate: (key: string) => Where,
  diagnostics: Diagnostic[],
): Agent | undefined {
  const agent: Partial<Agent> = { source, at };
  for (const key of ['id', 'role', 'team'] as const) {
    const value = entry[key];
    if (value === undefined || value === null) continue;
    // A role is named as the registry names it: a role id from frontmatter may be written
    // as people write names ("Frontend Developer"), so the fleet takes it as written too.
    const valid = key === 'role' ? isLabelName : isValidName;
    // A plain 007, 1.0 or true is a number or a boolean to YAML (7, 1, true): said as
    // one, where it is written, not as the name it became.
    if (typeof value === 'number' || typeof value === 'boolean') {
      diagnostics.push(
        error(
          'BAD_NAME',
          `agent ${key} is the ${typeof value} ${shownValue(value)}, not a name: YAML reads a plain 007 as 7, 1.0 as 1 and true as a boolean; quote it to mean the text (${key}: "…")`,
          locate(key),
        ),
      );
      return undefined;
    }
    if (typeof value !== 'string' || !valid(value)) {
      diagnostics.push(
        error('BAD_NAME', `agent ${key} ${JSON.stringify(value)} is not a valid name`, locate(key)),
      );
      return undefined;
    }
    agent[key] = value;
  }
  if (!agent.id) {
    diagnostics.push(error('BAD_FLEET', 'an agent needs an id', at));
    return undefined;
  }
  if (entry.config !== undefined) {
    if (!isObject(entry.config)) {
      diagnostics.push(error('BAD_FLEET', `agent ${agent.id}: config must be a mapping`, locate('config')));
      return undefined;
    }
    agent.config = entry.config;
  }
  return agent as Agent;
}
