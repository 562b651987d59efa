import { isScalar, parseDocument } from 'yaml';
import { isValidName } from '../../core/pack/names.js';
import { type Diagnostic, error, type Where } from '../../core/text/diagnostics.js';
import { byteOrder } from '../../core/text/text.js';
import { isObject, type ParsedYaml, parseYaml } from '../../core/text/yaml.js';

/** One verb of a verbs registry. */
export interface Verb {
  name: string;
  description: string;
  kind: 'flow' | 'do';
  roles: string[];
  params: VerbParam[];
}

export interface VerbParam {
  name: string;
  type: string;
  /** The default as rendered in a signature (`"main"`, `3`, `true`), when the param has one. */
  default?: string;
}

/**
 * Reads a verbs registry (YAML: `verbs: [{ name, description, kind: flow|do, roles: [...],
 * params: [{ name, type, default? }] }]`) without throwing. Every problem is a
 * BAD_REGISTRY error with line:col: wrong shapes, unknown keys, a duplicate verb or
 * parameter, a bad role name. Defaults keep the text they were written with (a number
 * stays `1.0`); other values render as JSON (`"main"`, `true`, `[]`).
 */
export function parseVerbRegistry(text: string, file: string): { verbs: Verb[]; diagnostics: Diagnostic[] } {
  const yaml = parseYaml(text, { file });
  const diagnostics: Diagnostic[] = yaml.diagnostics.map((d) => ({ ...d, code: 'BAD_REGISTRY' as const }));
  if (diagnostics.length > 0) return { verbs: [], diagnostics };
  const bad = (where: Where, message: string) => diagnostics.push(error('BAD_REGISTRY', message, where));
  const doc = yaml.value;
  if (!isObject(doc) || !Array.isArray(doc.verbs)) {
    bad(yaml.locate([]), 'a verbs registry is a mapping with a verbs: list');
    return { verbs: [], diagnostics };
  }
  const tree = parseDocument(text);
  const rawSource: SourceOf = (path) => {
    const node = tree.getIn(path, true);
    return isScalar(node) && node.type === 'PLAIN' && typeof node.source === 'string'
      ? node.source
      : undefined;
  };
  const verbs: Verb[] = [];
  const seen = new Map<string, Where>();
  for (const [i, raw] of (doc.verbs as unknown[]).entries()) {
    const at = yaml.locate(['verbs', i]);
    const verb = readVerb(raw, ['verbs', i], yaml, rawSource, bad);
    if (!verb) continue;
    const first = seen.get(verb.name);
    if (first) {
      bad(at, `duplicate verb ${verb.name} (first defined at line ${first.line})`);
      continue;
    }
    seen.set(verb.name, at);
    verbs.push(verb);
  }
  return { verbs, diagnostics };
}

/**
 * Renders the generated fragments (pure, deterministic): for every role that may call at
 * least one verb, `lifecycle-<role>.md` (the verbs it may call, sorted, with kinds and
 * descriptions) and `<role>.md` (the signature table). Files end with one newline and hold
 * nothing but prompt text.
 *
 * @example
 * renderVerbFragments(verbs).get('lifecycle-qa.md'); // '# Lifecycle verbs for qa\n\n…'
 */
export function renderVerbFragments(verbs: readonly Verb[]): Map<string, string> {
  const roles = [...new Set(verbs.flatMap((v) => v.roles))].sort(byteOrder);
  const out = new Map<string, string>();
  for (const role of roles) {
    const mine = verbs.filter((v) => v.roles.includes(role)).sort((a, b) => byteOrder(a.name, b.name));
    const lifecycle = [
      `# Lifecycle verbs for ${role}`,
      '',
      'You may call only these verbs. Any other verb is refused.',
      '',
      ...mine.map((v) => `- \`${v.name}\` (${v.kind}): ${v.description}`),
    ];
    const table = [
      `# Verb signatures for ${role}`,
      '',
      '| verb | signature |',
      '| --- | --- |',
      ...mine.map((v) => `| ${v.name} | \`${cell(signature(v))}\` |`),
    ];
    out.set(`lifecycle-${role}.md`, `${lifecycle.join('\n')}\n`);
    out.set(`${role}.md`, `${table.join('\n')}\n`);
  }
  return new Map([...out].sort(([a], [b]) => byteOrder(a, b)));
}

/** `name(param: type, other: type = default)`. */
export function signature(verb: Verb): string {
  const params = verb.params.map(
    (p) => `${p.name}: ${p.type}${p.default === undefined ? '' : ` = ${p.default}`}`,
  );
  return `${verb.name}(${params.join(', ')})`;
}

/**
 * Whether a file is one `strata generate` wrote: named as a fragment and opening with the
 * heading it writes for that name (after a byte-order mark, before `\n` or `\r\n`). Only
 * such a file is a stale fragment when the registry no longer makes it; anything else in
 * the output folder (a README, a hand-written note) is not the generator's to report or
 * delete.
 *
 * @example
 * isGeneratedFragment('lifecycle-qa.md', '# Lifecycle verbs for qa\n\n…'); // true
 * isGeneratedFragment('notes.md', '# Notes\n'); // false
 */
export function isGeneratedFragment(name: string, text: string): boolean {
  const role = /^([A-Za-z0-9][A-Za-z0-9._-]*)\.md$/.exec(name)?.[1];
  if (role === undefined) return false;
  const first = /^\uFEFF?([^\r\n]*)\r?\n/.exec(text)?.[1];
  return (
    first === `# Verb signatures for ${role}` ||
    (role.startsWith('lifecycle-') && first === `# Lifecycle verbs for ${role.slice('lifecycle-'.length)}`)
  );
}

// --- internal ---

const VERB_KEYS = ['name', 'description', 'kind', 'roles', 'params'];
const PARAM_KEYS = ['name', 'type', 'default'];
const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Bad = (where: Where, message: string) => void;
/** The source text of the plain scalar at a path, if it is one. */
type SourceOf = (path: Array<string | number>) => string | undefined;

function readVerb(
  raw: unknown,
  path: Array<string | number>,
  yaml: ParsedYaml,
  rawSource: SourceOf,
  bad: Bad,
): Verb | undefined {
  const at = yaml.locate(path);
  if (!isObject(raw)) return void bad(at, 'each verb is a mapping');
  let ok = true;
  const fail = (key: string, message: string) => {
    ok = false;
    bad(yaml.locate([...path, key]), message);
  };
  for (const key of Object.keys(raw)) {
    if (!VERB_KEYS.includes(key))
      fail(key, `unknown key ${JSON.stringify(key)} in verb; expected one of: ${VERB_KEYS.join(', ')}`);
  }
  const { name, description, kind, roles, params } = raw;
  if (typeof name !== 'string' || !IDENT_RE.test(name))
    fail('name', 'a verb needs a name that is an identifier');
  if (typeof description !== 'string' || description.trim() === '')
    fail('description', 'a verb needs a description');
  if (kind !== 'flow' && kind !== 'do') fail('kind', 'kind must be flow or do');
  if (!Array.isArray(roles) || roles.length === 0)
    fail('roles', 'roles must be a non-empty list of role ids');
  else {
    roles.forEach((r, i) => {
      if (typeof r !== 'string' || !isValidName(r)) {
        ok = false;
        bad(yaml.locate([...path, 'roles', i]), `role ${JSON.stringify(r)} is not a valid role id`);
      }
    });
  }
  const out: VerbParam[] = [];
  if (params !== undefined && params !== null && !Array.isArray(params))
    fail('params', 'params must be a list');
  else {
    const names = new Set<string>();
    for (const [i, p] of ((params ?? []) as unknown[]).entries()) {
      const pp = [...path, 'params', i];
      const param = readParam(p, pp, yaml, rawSource, bad);
      if (!param) {
        ok = false;
        continue;
      }
      if (names.has(param.name)) {
        ok = false;
        bad(yaml.locate(pp), `duplicate parameter ${param.name}`);
        continue;
      }
      names.add(param.name);
      out.push(param);
    }
  }
  if (!ok) return undefined;
  const roleList = [...new Set(roles as string[])];
  return {
    name: name as string,
    description: (description as string).trim().replace(/\s+/g, ' '),
    kind: kind as Verb['kind'],
    roles: roleList,
    params: out,
  };
}

function readParam(
  raw: unknown,
  path: Array<string | number>,
  yaml: ParsedYaml,
  rawSource: SourceOf,
  bad: Bad,
): VerbParam | undefined {
  if (!isObject(raw))
    return void bad(yaml.locate(path), 'each parameter is a mapping { name, type, default? }');
  let ok = true;
  for (const key of Object.keys(raw)) {
    if (!PARAM_KEYS.includes(key)) {
      ok = false;
      bad(
        yaml.locate([...path, key], true),
        `unknown key ${JSON.stringify(key)} in parameter; expected one of: ${PARAM_KEYS.join(', ')}`,
      );
    }
  }
  if (typeof raw.name !== 'string' || !IDENT_RE.test(raw.name)) {
    ok = false;
    bad(yaml.locate([...path, 'name']), 'a parameter needs a name that is an identifier');
  }
  if (typeof raw.type !== 'string' || raw.type.trim() === '') {
    ok = false;
    bad(yaml.locate([...path, 'type']), 'a parameter needs a type');
  }
  if (!ok) return undefined;
  const param: VerbParam = { name: raw.name as string, type: (raw.type as string).trim() };
  if ('default' in raw) {
    param.default = renderDefault(raw.default, rawSource([...path, 'default']));
  }
  return param;
}

/** A default as written: numbers keep their source text; everything else is JSON. */
function renderDefault(value: unknown, source: string | undefined): string {
  if (typeof value === 'number' && source !== undefined && /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(source))
    return source;
  return JSON.stringify(value === undefined ? null : value);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
