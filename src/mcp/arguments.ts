import type { Snapshot } from '../core/build/snapshot.js';
import { ambientLayer } from '../core/compose/ambient.js';
import type { ComposeRequest } from '../core/compose/compose.js';
import { knownNames } from '../core/compose/known-names.js';
import type { InputDef } from '../core/pack/manifest.js';
import { knownList } from '../core/text/suggest.js';
import { composeWithStandIns } from '../tooling/lint/stand-ins.js';
import type { PromptEntry } from './catalog.js';
import { invalidParams, type McpFailure } from './errors.js';
import type { RequestBounds } from './limits.js';

/** One argument of a prompt, as `prompts/list` shows it. */
export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** The request fields a prompt takes as arguments, besides its inputs. */
export const FIELD_ARGUMENTS = ['role', 'team', 'agent', 'ambient'] as const;

/**
 * A prompt's arguments: `team` and `agent` for a role where the pack has teams and a fleet,
 * `ambient` where a layer takes it, then every declared request input and every open
 * input the prompt's text uses. An input is `required` when the prompt cannot be composed
 * without it (declared without a default and used by one of its layers or its record). An
 * input named like a request field is the argument `var.<name>`.
 */
export function promptArguments(snapshot: Snapshot, entry: PromptEntry): PromptArgument[] {
  const out: PromptArgument[] = [];
  const known = knownNames(snapshot);
  if (entry.kind === 'role') {
    if (known.teams.length > 0)
      out.push({ name: 'team', description: `The team (${knownList(known.teams, 8)})`, required: false });
    if (snapshot.fleet.length > 0)
      out.push({
        name: 'agent',
        description: `An agent of the fleet to compose for, in this role (${knownList(
          snapshot.fleet.map((a) => a.id),
          8,
        )})`,
        required: false,
      });
  }
  const ambient = ambientLayer(snapshot.manifest);
  if (ambient)
    out.push({
      name: 'ambient',
      description: ambient.description ?? 'Ambient text for the prompt',
      required: false,
    });
  const needed = new Set(
    composeWithStandIns(snapshot, { key: entry.name, request: entry.request }, undefined).standIns,
  );
  const { manifest } = snapshot;
  for (const input of manifest.inputs)
    out.push({
      name: argumentName(input.name),
      description: inputDescription(input),
      required: needed.has(input.name),
    });
  if (manifest.openInputs) {
    const declared = new Set(manifest.inputs.map((i) => i.name));
    for (const name of [...needed].sort())
      if (!declared.has(name))
        out.push({
          name: argumentName(name),
          description: inputDescription({
            ...manifest.openInputs,
            name,
            description: `Input ${name}${manifest.openInputs.description ? `: ${manifest.openInputs.description}` : ''}`,
          }),
          required: true,
        });
  }
  return out;
}

/**
 * The compose request of a prompt with its arguments: a blank argument is an absent one
 * (MCP clients send blanks for arguments left empty); `team`, `agent`, `role` and
 * `ambient` are the request's fields where the prompt takes them (bounded as the HTTP API
 * bounds them), `var.<name>` and every other name a request input (the core says which
 * are unknown, with the closest names).
 */
export function promptRequest(
  entry: PromptEntry,
  args: Readonly<Record<string, string>> | undefined,
  bounds: RequestBounds,
): ComposeRequest | McpFailure {
  const request: ComposeRequest = { ...entry.request };
  const vars: Record<string, string> = Object.create(null);
  const fields: readonly string[] = FIELDS_OF[entry.kind];
  for (const [key, value] of Object.entries(args ?? {})) {
    if (value === '') continue;
    if (key === '__proto__') return invalidParams('BAD_REQUEST', '"__proto__" is not an argument name');
    if (fields.includes(key)) {
      const problem = fieldProblem(key, value, bounds);
      if (problem) return problem;
      (request as Record<string, string>)[key] = value;
    } else if (fixedBy(entry, key)) {
      return invalidParams('BAD_REQUEST', fixedBy(entry, key)!);
    } else {
      const name = key.startsWith('var.') && key.length > 4 ? key.slice(4) : key;
      if (Object.hasOwn(vars, name))
        return invalidParams('BAD_REQUEST', `input ${name} is given twice (as ${name} and var.${name})`);
      vars[name] = value;
    }
  }
  if (Object.keys(vars).length > 0) request.vars = vars;
  return request;
}

/** Why a request field's value is refused (too long a name or ambient text), or undefined. */
export function fieldProblem(key: string, value: string, bounds: RequestBounds): McpFailure | undefined {
  if (key === 'ambient') {
    if (value.length <= bounds.maxAmbientChars) return undefined;
    return invalidParams(
      'BAD_REQUEST',
      `argument ambient: ${value.length} characters, over the limit of ${bounds.maxAmbientChars} (--max-query-ambient)`,
    );
  }
  if (value.length === 0) return invalidParams('BAD_REQUEST', `argument ${key}: an empty name`);
  if (value.length <= bounds.maxNameChars) return undefined;
  return invalidParams(
    'BAD_REQUEST',
    `argument ${key}: ${value.length} characters, over the limit of ${bounds.maxNameChars}`,
  );
}

// --- internal ---

/**
 * Why `role`, `team` or `agent` is no argument of this prompt (the prompt fixes it: an
 * agent's prompt its agent, a role's its role, the pack's prompt takes no names), or
 * undefined for any other name (an input; `var.<name>` for an input of such a name).
 */
function fixedBy(entry: PromptEntry, key: string): string | undefined {
  if (!(FIELD_ARGUMENTS as readonly string[]).includes(key) || key === 'ambient') return undefined;
  const which =
    entry.kind === 'pack'
      ? `the pack's prompt ${entry.name} takes no ${key}`
      : `the prompt ${entry.name} is ${entry.kind} ${entry.id}'s: ask for the prompt of the ${key} meant (prompts/list)`;
  return `argument ${key}: ${which}, or give var.${key} for a request input of that name`;
}

/** The request fields each kind of prompt takes as arguments (as its HTTP route does). */
const FIELDS_OF: Record<PromptEntry['kind'], readonly string[]> = {
  role: ['team', 'agent', 'ambient'],
  agent: ['role', 'team', 'ambient'],
  pack: ['ambient'],
};

function argumentName(input: string): string {
  return (FIELD_ARGUMENTS as readonly string[]).includes(input) ? `var.${input}` : input;
}

function inputDescription(input: InputDef): string {
  const kind = input.type === 'enum' && input.values ? `one of ${input.values.join(', ')}` : input.type;
  const range =
    input.min !== undefined || input.max !== undefined
      ? ` from ${input.min ?? '…'} to ${input.max ?? '…'}`
      : '';
  const fallback = input.default === undefined ? '' : `; default ${JSON.stringify(input.default)}`;
  const head = input.description?.trim() || `Request input ${input.name}`;
  return `${head} (${kind}${range}${fallback})`;
}
