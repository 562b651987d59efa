import { z } from 'zod';
import { fleetById } from '../../core/build/derived.js';
import { splitOf } from '../../core/build/pack-file.js';
import type { Snapshot } from '../../core/build/snapshot.js';
import { roleOfSeveralFiles, unknownRole } from '../../core/compose/compose.js';
import { resolveInputs } from '../../core/pack/inputs.js';
import { isValidName } from '../../core/pack/names.js';
import { applyOverrides } from '../../core/pack/settings.js';
import {
  type Diagnostic,
  type DiagnosticCode,
  error,
  type Where,
  warning,
} from '../../core/text/diagnostics.js';
import { ownValue, setOwn } from '../../core/text/own.js';
import { closestNames, didYouMean, knownList } from '../../core/text/suggest.js';
import { byteOrder } from '../../core/text/text.js';
import { isObject, parseYaml } from '../../core/text/yaml.js';

/**
 * The config an agent runtime applies to an agent: model, models, capabilities,
 * expertise, max_tasks, temperature and the like. Other keys are allowed and passed on.
 */
export const AgentConfigSchema = z
  .object({
    model: z.string().min(1).describe('The model to run; the first of `models` when only those are given.'),
    models: z.array(z.string().min(1)).min(1).describe('Acceptable models, in order of preference.'),
    capabilities: z.array(z.string()).describe('What the agent may do (tool groups, permissions).'),
    expertise: z.array(z.string()).describe('Subject areas, for routing work.'),
    max_tasks: z.number().int().min(0).describe('How many tasks the agent may hold at once.'),
    temperature: z.number().min(0).max(2).describe('Sampling temperature.'),
    top_p: z.number().min(0).max(1).describe('Nucleus sampling mass.'),
    max_tokens: z.number().int().min(1).describe('Cap on output tokens per reply.'),
  })
  .partial()
  .catchall(z.unknown())
  .meta({
    title: 'strata agent config',
    description:
      'Merged from the manifest agent_defaults, the role record (CHORUS: under defaults:) and the fleet entry config, later over earlier.',
  });

export type AgentConfigValues = z.infer<typeof AgentConfigSchema>;

/** Where a config field's value came from. */
export interface ConfigSource {
  /** `agent_defaults` of the manifest, the role record, or the agent's fleet entry. */
  from: 'agent_defaults' | 'role' | 'agent';
  file?: string;
  /** Set when the value was derived: `models[0]` for a model taken from the models list. */
  via?: 'models[0]';
  /** The role record field a manifest `config_fields:` mapping took the value from (`llm`). */
  field?: string;
}

/** An agent's merged config with the provenance of every field. */
export interface AgentConfig {
  version: string;
  agent?: string;
  role?: string;
  team?: string;
  config: AgentConfigValues;
  sources: Record<string, ConfigSource>;
  /** Warnings: an agent outside the fleet (UNKNOWN_AGENT, with the closest fleet members). */
  diagnostics?: Diagnostic[];
}

export type AgentConfigOutcome = { ok: true; result: AgentConfig } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Who an agent config is for, and the request values a compose for it would take: the
 * settings and inputs are checked as a compose checks them (UNKNOWN_INPUT,
 * INVALID_SETTING, …), so a request that cannot compose gets no config; they change no
 * config field.
 */
export interface AgentConfigRequest {
  role?: string;
  agent?: string;
  settings?: Readonly<Record<string, unknown>>;
  vars?: Readonly<Record<string, unknown>>;
}

/**
 * Merges an agent's config (pure; never throws): manifest `agent_defaults:` < the role
 * record (top-level known fields, then everything under `defaults:`) < the fleet entry's
 * `config:`. At each level, `models` without `model` makes the first model the model.
 * The role comes from the request, else from the agent's fleet entry. Bad names
 * (BAD_NAME), unknown roles (UNKNOWN_ROLE) and values that break {@link AgentConfigSchema}
 * (BAD_MANIFEST, BAD_ROLE or BAD_FLEET, by where the value came from) come back as
 * diagnostics.
 *
 * @example
 * const out = agentConfig(snapshot, { agent: 'ada' });
 * if (out.ok) console.log(out.result.config.model, out.result.sources.model);
 */
export function agentConfig(snapshot: Snapshot, request: AgentConfigRequest): AgentConfigOutcome {
  // 1. Names, then the agent's fleet entry and the role record.
  const bad = (['role', 'agent'] as const)
    .filter(
      (k) =>
        request[k] !== undefined &&
        !isValidName(request[k]!) &&
        !(k === 'role' && snapshot.roles.has(request[k]!)),
    )
    .map((k) =>
      error(
        'BAD_NAME',
        `${k} ${JSON.stringify(request[k])} is not a valid name (letters, digits, . _ -; no "..")`,
      ),
    );
  if (bad.length > 0) return { ok: false, diagnostics: bad };
  const problems = requestValueProblems(snapshot, request);
  if (problems.length > 0) return { ok: false, diagnostics: problems };
  const member = request.agent === undefined ? undefined : fleetById(snapshot).get(request.agent);
  const role = request.role ?? member?.role;
  if (role === undefined) {
    // An agent the fleet does not hold (a typo of one it does) is unknown, as for a compose.
    if (request.agent !== undefined && !member)
      return { ok: false, diagnostics: [unknownAgent(snapshot, request.agent)] };
    const why =
      request.agent === undefined
        ? 'give a role or an agent'
        : `agent ${request.agent} is not in the fleet with a role; give a role`;
    return { ok: false, diagnostics: [error('BAD_REQUEST', why)] };
  }
  const record = snapshot.roles.get(role);
  if (!record && snapshot.roles.size > 0) return { ok: false, diagnostics: [unknownRole(snapshot, role)] };
  if (record?.definedIn) return { ok: false, diagnostics: [roleOfSeveralFiles(role, record.definedIn)] };

  // 2. The three levels, lowest first.
  const manifestFile = snapshot.manifest.chain.find((k) => !k.startsWith('preset:'));
  const levels: Array<{
    from: ConfigSource['from'];
    file?: string;
    values: Record<string, unknown>;
    fields?: Record<string, string>;
  }> = [{ from: 'agent_defaults', file: manifestFile, values: snapshot.manifest.agentDefaults }];
  if (record) {
    // A field written without a value (`model:` in frontmatter) is not given, as for Claude Code.
    const top = Object.fromEntries(
      Object.entries(record.fields).filter(([k, v]) => KNOWN_FIELDS.includes(k) && v !== null),
    );
    const nested = isObject(record.fields.defaults) ? record.fields.defaults : {};
    const mapped = mappedFields(snapshot.manifest.configFields, record.fields);
    if (mapped.bad !== undefined)
      return {
        ok: false,
        diagnostics: [
          error(
            'BAD_ROLE',
            `config ${mapped.bad.key} (from role ${role}): ${mapped.bad.field} is ${mapped.bad.what}; it takes a list of names or a string of them separated by commas`,
            roleFieldAt(snapshot, record.source, role, mapped.bad.field),
          ),
        ],
      };
    levels.push({
      from: 'role',
      file: record.source,
      values: { ...top, ...mapped.values, ...nested },
      fields: mapped.fields,
    });
  }
  if (member?.config) levels.push({ from: 'agent', file: member.source, values: member.config });

  // 3. Merge, deriving model from models at each level.
  const merged: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  for (const level of levels) {
    const source: ConfigSource = { from: level.from };
    if (level.file !== undefined) source.file = level.file;
    // Keys are the files' (`__proto__`, `constructor` included): own keys, never the prototype's.
    for (const [key, value] of Object.entries(level.values)) {
      setOwn(merged, key, value);
      const field = level.fields === undefined ? undefined : ownValue(level.fields, key);
      setOwn(sources, key, field === undefined ? source : { ...source, field });
    }
    const models = level.values.models;
    if (level.values.model === undefined && Array.isArray(models) && typeof models[0] === 'string') {
      merged.model = models[0];
      sources.model = { ...source, via: 'models[0]' };
    }
  }

  // 4. Check against the schema; each problem points at the level the value came from.
  const parsed = AgentConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const diagnostics = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '');
      const source = ownValue(sources, key);
      const code: DiagnosticCode =
        source?.from === 'agent' ? 'BAD_FLEET' : source?.from === 'role' ? 'BAD_ROLE' : 'BAD_MANIFEST';
      const origin =
        source?.from === 'role'
          ? `role ${role}`
          : source?.from === 'agent'
            ? `agent ${request.agent}`
            : 'agent_defaults';
      const at =
        source?.from === 'agent' && member?.at
          ? member.at
          : source?.from === 'role' && source.file && source.field
            ? roleFieldAt(snapshot, source.file, role!, source.field)
            : source?.file
              ? { file: source.file }
              : {};
      return error(code, `config ${issue.path.join('.')} (from ${origin}): ${issue.message}`, at);
    });
    return { ok: false, diagnostics };
  }
  const ordered = orderKeys(merged);
  const result: AgentConfig = {
    version: snapshot.version,
    config: ordered,
    sources: Object.fromEntries(Object.keys(ordered).map((k) => [k, ownValue(sources, k)!])),
  };
  if (request.agent !== undefined) result.agent = request.agent;
  result.role = role;
  const team = member?.team;
  if (team !== undefined) result.team = team;
  // An agent the fleet does not hold (a typo of one it does) gets the role's config alone,
  // without a member's own: said, never served silently as that agent's.
  if (request.agent !== undefined && !member && snapshot.fleet.length > 0)
    result.diagnostics = [outsideFleet(snapshot, request.agent, role)];
  return { ok: true, result };
}

/** The JSON Schema (draft 2020-12) of {@link AgentConfigSchema}, for `strata config --schema`. */
export function agentConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(AgentConfigSchema) as Record<string, unknown>;
}

// --- internal ---

function outsideFleet(snapshot: Snapshot, agent: string, role: string): Diagnostic {
  const fleet = snapshot.fleet.map((a) => a.id);
  const suggestions = closestNames(agent, fleet);
  const d = warning(
    'UNKNOWN_AGENT',
    `agent ${JSON.stringify(agent)} is not in the fleet${didYouMean(suggestions)} (fleet: ${knownList(fleet)}); the config is role ${role}'s alone, without a fleet entry's config`,
  );
  if (suggestions.length > 0) d.suggestions = suggestions;
  return d;
}

/** An agent outside the fleet, asked for without a role: nothing says whose config it is. */
function unknownAgent(snapshot: Snapshot, agent: string): Diagnostic {
  const fleet = snapshot.fleet.map((a) => a.id);
  const suggestions = closestNames(agent, fleet);
  const roles = knownList([...snapshot.roles.keys()]);
  const d = error(
    'UNKNOWN_AGENT',
    fleet.length > 0
      ? `agent ${JSON.stringify(agent)} is not in the fleet${didYouMean(suggestions)} (fleet: ${knownList(fleet)}; give a role to get its config for an agent outside the fleet)`
      : `agent ${JSON.stringify(agent)} is not known: the pack has no fleet; give a role (roles: ${roles})`,
  );
  if (suggestions.length > 0) d.suggestions = suggestions;
  return d;
}

/** What is wrong with a request's settings and inputs, as a compose says it. */
function requestValueProblems(snapshot: Snapshot, request: AgentConfigRequest): Diagnostic[] {
  const problems: Diagnostic[] = [];
  if (request.settings !== undefined)
    problems.push(
      ...applyOverrides(snapshot.manifest.settings, snapshot.settings, request.settings).diagnostics,
    );
  if (request.vars !== undefined)
    problems.push(
      ...resolveInputs(snapshot.manifest, request.vars, snapshot.layouts?.formats ?? new Map()).diagnostics,
    );
  return problems;
}

/** Where a role record's field is written in its YAML file (the file alone for a prompt file's frontmatter). */
function roleFieldAt(snapshot: Snapshot, file: string, role: string, field: string): Where {
  const text = snapshot.files.get(file)?.text;
  if (text === undefined) return { file };
  if (!/\.ya?ml$/i.test(file))
    return splitOf(text, file, snapshot.manifest.frontmatter)?.yaml?.locate([field]) ?? { file };
  const key = snapshot.manifest.registry.key;
  return parseYaml(text, { file }).locate(key === '' ? [role, field] : [key, role, field]);
}

/** Fields of the schema: the role-record fields that are config (RoboCo keeps them at top level). */
const KNOWN_FIELDS = Object.keys(AgentConfigSchema.shape);

/**
 * Config values a manifest maps from role record fields (`config_fields:`): strings
 * trimmed; with `list`, a comma-separated string becomes a list of its trimmed, non-empty
 * items (a list stays a list), and a field written without a value an empty list.
 */
function mappedFields(
  defs: Snapshot['manifest']['configFields'],
  record: Record<string, unknown>,
): {
  values: Record<string, unknown>;
  fields: Record<string, string>;
  /** A list field whose value is neither a string nor a list of strings (`tools: 42`). */
  bad?: { key: string; field: string; what: string };
} {
  const values: Record<string, unknown> = {};
  const fields: Record<string, string> = {};
  for (const [key, def] of Object.entries(defs)) {
    let value = ownValue(record, def.field);
    if (value === undefined) continue;
    // A list written without a value is an empty list (`tools:` is no tools, as Claude
    // Code reads it; absent is the runtime's default, every tool); any other field so
    // written is not given.
    if (value === null) {
      if (!def.list) continue;
      value = [];
    }
    if (typeof value === 'string') value = def.list ? splitList(value) : value.trim();
    else if (def.list) {
      const odd = Array.isArray(value) ? value.find((v) => typeof v !== 'string') : value;
      if (odd !== undefined)
        return {
          values,
          fields,
          bad: { key, field: def.field, what: kindOfValue(odd, Array.isArray(value)) },
        };
      value = (value as string[]).flatMap(splitList);
    }
    setOwn(values, key, value);
    setOwn(fields, key, def.field);
  }
  return { values, fields };
}

/** What a value is, for a message: `the number 42`, `a list holding the number 42`. */
function kindOfValue(value: unknown, inList: boolean): string {
  const what =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'a list'
        : typeof value === 'object'
          ? 'a mapping'
          : `the ${typeof value} ${JSON.stringify(value)}`;
  return inList ? `a list holding ${what}` : what;
}

/**
 * A list written as a string, as Claude Code reads a `tools:` value: items separated by
 * commas or white space outside parentheses, so `Read, Bash(git add:*, git commit:*)` is
 * two items and `Read Grep` is two.
 */
function splitList(text: string): string[] {
  const items: string[] = [];
  let current = '';
  let inParens = false;
  const push = () => {
    const item = current.trim();
    if (item !== '') items.push(item);
    current = '';
  };
  for (const ch of text) {
    if (ch === '(') inParens = true;
    else if (ch === ')') inParens = false;
    else if (!inParens && (ch === ',' || /\s/.test(ch))) {
      push();
      continue;
    }
    current += ch;
  }
  push();
  return items;
}

/** Schema fields first, in schema order; other fields after, sorted. */
function orderKeys(values: Record<string, unknown>): Record<string, unknown> {
  const known = KNOWN_FIELDS.filter((k) => Object.hasOwn(values, k));
  const other = Object.keys(values)
    .filter((k) => !KNOWN_FIELDS.includes(k))
    .sort(byteOrder);
  return Object.fromEntries([...known, ...other].map((k) => [k, values[k]]));
}
