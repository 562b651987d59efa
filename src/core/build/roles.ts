import type { DiscoveryRule, DiscoveryScope } from '../layout.js';
import { compileGlob, templateMatcher } from '../pack/glob.js';
import type { RegistryDef } from '../pack/manifest.js';
import { isLabelName, isValidName } from '../pack/names.js';
import { type Diagnostic, error, info, type Where, warning } from '../text/diagnostics.js';
import { isTypoOf } from '../text/suggest.js';
import { byteOrder } from '../text/text.js';
import { shownValue } from '../text/value-shown.js';
import type { ParsedYaml } from '../text/yaml.js';
import { isObject } from '../text/yaml.js';
import { runSteps } from './yielder.js';

/** A role of the registry, after `extends` is applied. */
export interface RoleRecord {
  id: string;
  name?: string;
  description?: string;
  tags?: string[];
  /** Every field as written (system_prompt, model, models, capabilities, defaults, …). */
  fields: Record<string, unknown>;
  /** The file that defined the record (for provenance). */
  source: string;
  /** The role whose files this role uses for `{role_file}` (aliased roles share one). */
  roleFile: string;
  /**
   * Every registry file that defines the role, when more than one does and the registry
   * refuses to pick (`duplicate_roles: refuse`): a compose of it fails naming them.
   */
  definedIn?: string[];
}

export interface RoleFileInput {
  path: string;
  yaml: ParsedYaml;
}

export interface DiscoveredFile {
  path: string;
  meta: Record<string, unknown>;
}

/**
 * Builds the role registry (pure): YAML role files merged by id in sorted path order
 * (a later file replaces an earlier record whole, with DUPLICATE_ROLE), roles discovered
 * from files matching `registry.discover`, then role `extends` applied.
 */
export function buildRegistry(
  registry: RegistryDef,
  yamlFiles: readonly RoleFileInput[],
  allPaths: readonly string[],
  frontmatterOf: (path: string) => Record<string, unknown>,
  frontmatterAt?: FrontmatterAt,
  textOf?: (path: string) => string | undefined,
  discovery?: ReadonlyMap<string, DiscoveryRule>,
): { roles: Map<string, RoleRecord>; diagnostics: Diagnostic[] } {
  return runSteps(
    registrySteps(registry, yamlFiles, allPaths, frontmatterOf, frontmatterAt, textOf, undefined, discovery),
  );
}

/** Where a key of a prompt file's frontmatter is written (its line), to point a diagnostic at. */
export type FrontmatterAt = (path: string, key: string) => Where;

/** {@link buildRegistry} in steps of a few hundred records or files (for a sliced build). */
export function* registrySteps(
  registry: RegistryDef,
  yamlFiles: readonly RoleFileInput[],
  allPaths: readonly string[],
  frontmatterOf: (path: string) => Record<string, unknown>,
  frontmatterAt: FrontmatterAt = (file) => ({ file }),
  /** A file's text (one a discovery rule takes fields from). */
  textOf: (path: string) => string | undefined = () => undefined,
  /** Whether reading a file's frontmatter already gave a warning or an error (it is not said twice). */
  frontmatterSaid: (path: string) => boolean = () => false,
  /** The discovery rules the layouts add, by name (`registry.discover.<rule>: true`). */
  discovery: ReadonlyMap<string, DiscoveryRule> = new Map(),
): Generator<void, { roles: Map<string, RoleRecord>; diagnostics: Diagnostic[] }> {
  let step = 0;
  const diagnostics: Diagnostic[] = [];
  const raw: RawRoles = new Map();
  const globs = registry.files.map(compileGlob);
  const roleFiles = yamlFiles
    .filter((f) => globs.some((match) => match(f.path)))
    .sort((a, b) => byteOrder(a.path, b.path));

  // 1. YAML role files, in byte order of their paths.
  // An empty key: the records sit at the file's top level (a file of agent records).
  const top = registry.key === '';
  const keyPath = (id: string) => (top ? [id] : [registry.key, id]);
  for (const { path, yaml } of roleFiles) {
    const doc = yaml.value;
    const records = top ? doc : isObject(doc) ? doc[registry.key] : undefined;
    if (!isObject(records)) {
      if (top && doc !== null && doc !== undefined)
        diagnostics.push(
          error('BAD_ROLE', 'the role file must be a mapping of role id to record', yaml.locate([])),
        );
      // A `roles:` that is there but is no mapping (a list of ids, a scalar, a !!set) holds
      // no record strata can read: said, never read as a file without roles.
      else if (!top && records !== null && records !== undefined)
        diagnostics.push(
          error(
            'BAD_ROLE',
            `${registry.key} must be a mapping of role id to record, not ${kindOf(records)}`,
            yaml.locate([registry.key]),
          ),
        );
      // A file the registry names by its path (roles.yaml, not `*.yaml`) is for roles: a
      // list at its top, or a mapping without the key (`rolse:`), is said, not skipped.
      else if (
        !top &&
        registry.files.includes(path) &&
        doc !== null &&
        doc !== undefined &&
        !(isObject(doc) && Object.hasOwn(doc, registry.key))
      )
        diagnostics.push(namedFileWithoutKey(path, doc, registry.key, yaml));
      continue;
    }
    for (const [id, record] of Object.entries(records)) {
      if ((++step & 255) === 0) yield;
      // At a file's top level other entries may sit beside the records (a block of shared
      // fields for `<<: *anchor`): there a bad id or a non-mapping is skipped and said.
      const bad = top ? warning : error;
      if (!isValidName(id)) {
        diagnostics.push(
          bad(
            'BAD_ROLE',
            `role id ${JSON.stringify(id)} is not a valid name${top ? ' (letters, digits, . _ -, starting with a letter or digit); it is not a role' : ''}`,
            yaml.locate(keyPath(id), true),
          ),
        );
        continue;
      }
      if (!isObject(record)) {
        diagnostics.push(
          bad(
            'BAD_ROLE',
            `role ${id} must be a mapping of fields${top ? '; it is not a role' : ''}`,
            yaml.locate(keyPath(id), true),
          ),
        );
        continue;
      }
      const previous = raw.get(id);
      const refuse =
        previous !== undefined && previous.source !== path && registry.duplicateRoles === 'refuse';
      if (previous && !refuse) {
        diagnostics.push(
          warning(
            'DUPLICATE_ROLE',
            `role ${id} is defined in ${previous.source} and again here; this definition replaces it`,
            yaml.locate(keyPath(id), true),
          ),
        );
      }
      if (refuse)
        diagnostics.push(
          warning(
            'DUPLICATE_ROLE',
            `role ${id} is defined in ${previous.source} and again here; a compose of ${id} names both files (give --dir one file's folder)`,
            yaml.locate(keyPath(id), true),
          ),
        );
      raw.set(id, { fields: record, source: path, yaml });
      if (refuse) raw.get(id)!.definedIn = [...(previous.definedIn ?? [previous.source]), path];
    }
  }

  // 2. Roles discovered from files (roles/{role}.md); files other roles alias are not roles.
  const aliased = new Set([...raw.values()].map((r) => r.fields.file).filter((f) => typeof f === 'string'));
  if (registry.discover) {
    const match = templateMatcher(registry.discover);
    for (const path of allPaths) {
      if ((++step & 511) === 0) yield;
      const id = match(path);
      if (id === undefined) continue;
      if (!isValidName(id)) {
        // A file in the roles' place that names no role is said, not silently passed over.
        diagnostics.push(
          warning(
            'BAD_ROLE',
            `role id ${JSON.stringify(id)} is not a valid name (letters, digits, . _ -, starting with a letter or digit); it is not a role`,
            { file: path },
          ),
        );
        continue;
      }
      const existing = raw.get(id);
      if (!existing && aliased.has(id)) continue;
      const meta = frontmatterOf(path);
      if (existing) existing.fields = under(pick(meta), existing.fields);
      else raw.set(id, { fields: pick(meta), source: path });
    }
  }
  if (registry.discoverFiles)
    discoverByField(
      registry.discoverFiles,
      allPaths,
      frontmatterOf,
      frontmatterAt,
      raw,
      diagnostics,
      textOf,
      frontmatterSaid,
      discovery,
    );

  // 3. Role extends: field inheritance, cycles refused; records of role files without a
  // required field are not roles.
  const required = registry.require ?? [];
  const roles = new Map<string, RoleRecord>();
  // Each role's fields worked out once (undefined: refused, said where it was found): a
  // chain of thousands of roles is walked once, without a call stack per link.
  const resolved = new Map<string, Record<string, unknown> | undefined>();
  const extendsAt = (id: string): Where => {
    const entry = raw.get(id)!;
    return entry.yaml?.locate([...keyPath(id), 'extends']) ?? whereOf(entry, keyPath(id));
  };
  const resolve = (start: string): Record<string, unknown> | undefined => {
    // 1. Up the chain to a role worked out before, one that extends nothing, or a problem.
    const chain: string[] = [];
    const onChain = new Map<string, number>();
    let inherited: Record<string, unknown> | undefined;
    let failed = false;
    for (let id = start; ; ) {
      if (resolved.has(id)) {
        inherited = resolved.get(id);
        failed = inherited === undefined;
        break;
      }
      onChain.set(id, chain.length);
      chain.push(id);
      const parent = raw.get(id)!.fields.extends;
      if (parent === undefined) break;
      if (typeof parent !== 'string' || !raw.has(parent)) {
        diagnostics.push(
          error('UNKNOWN_ROLE', `role ${id} extends unknown role ${JSON.stringify(parent)}`, extendsAt(id)),
        );
        failed = true;
        break;
      }
      const from = onChain.get(parent);
      if (from !== undefined) {
        // Said once, at the first role of the cycle: `a -> b -> a`.
        const cycle = [...chain.slice(from), parent];
        diagnostics.push(
          error('ROLE_EXTENDS_CYCLE', `role extends cycle: ${cycle.join(' -> ')}`, extendsAt(parent)),
        );
        failed = true;
        break;
      }
      id = parent;
    }
    // 2. Down again: each role's own fields over its parent's.
    for (let i = chain.length - 1; i >= 0; i--) {
      const fields = raw.get(chain[i]!)!.fields;
      if (failed) resolved.set(chain[i]!, undefined);
      else {
        if (fields.extends === undefined) inherited = fields;
        else {
          const { extends: _, ...own } = fields;
          inherited = { ...inherited, ...own };
        }
        resolved.set(chain[i]!, inherited);
      }
    }
    return resolved.get(start);
  };
  for (const id of [...raw.keys()].sort(byteOrder)) {
    if ((++step & 255) === 0) yield;
    const fields = resolve(id);
    if (!fields) continue;
    const entry = raw.get(id)!;
    const lacking = required.filter((k) => typeof fields[k] !== 'string');
    if (lacking.length > 0 && entry.yaml) {
      diagnostics.push(
        withTypos(
          warning(
            'BAD_ROLE',
            `not a role: ${lackingWords(id, fields, lacking)} (the registry requires ${required.join(', ')} as strings)`,
            whereOf(entry, keyPath(id)),
          ),
          fields,
          lacking,
          required,
        ),
      );
      continue;
    }
    const record = toRecord(id, fields, entry.source);
    if (entry.definedIn) record.definedIn = entry.definedIn;
    const file = fields.file;
    if (file !== undefined && (typeof file !== 'string' || !isValidName(file))) {
      diagnostics.push(
        error(
          'BAD_ROLE',
          `role ${id}: file must be a role-file name like "board"`,
          whereOf(entry, keyPath(id)),
        ),
      );
      continue;
    }
    roles.set(id, record);
  }
  return { roles, diagnostics };
}

/**
 * The role fields layers take whole as prompt text (`role_field:`) must be text where a
 * record gives them: a number, list or mapping there (`system_prompt: 12`,
 * `system_prompt: [a, b]`) is BAD_ROLE where it is written. Read at compose time, such a
 * value would count as no value: the layer left out — silently under `missing: skip` —
 * and the agent given less than its record says. For the same reason a record without
 * such a field that has a key a typo away from it (`descripton:` for `description`) is an
 * UNKNOWN_KEY warning at that key.
 */
export function checkRoleFieldTypes(
  roles: ReadonlyMap<string, RoleRecord>,
  fields: { whole: readonly string[]; templated: readonly string[] },
  registry: RegistryDef,
  yamlFiles: readonly RoleFileInput[],
  frontmatterAt: FrontmatterAt,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (fields.whole.length === 0 && fields.templated.length === 0) return diagnostics;
  const yamlOf = new Map(yamlFiles.map((f) => [f.path, f.yaml]));
  const where = (id: string, record: RoleRecord, field: string): Where => {
    const yaml = yamlOf.get(record.source);
    return yaml
      ? yaml.locate(registry.key === '' ? [id, field] : [registry.key, id, field])
      : frontmatterAt(record.source, field);
  };
  // A key itself (not its value), where a record writes it.
  const whereKey = (id: string, record: RoleRecord, key: string): Where => {
    const yaml = yamlOf.get(record.source);
    return yaml
      ? yaml.locate(registry.key === '' ? [id, key] : [registry.key, id, key], true)
      : frontmatterAt(record.source, key);
  };
  const read = new Set([...fields.whole, ...fields.templated]);
  for (const [id, record] of roles) {
    for (const field of fields.whole) {
      const value = record.fields[field];
      if (value === undefined) {
        const typo = Object.keys(record.fields).find((key) => !read.has(key) && isTypoOf(key, field));
        if (typo !== undefined)
          diagnostics.push({
            ...warning(
              'UNKNOWN_KEY',
              `role ${id} has no ${field} (a layer takes it: role_field: ${field}), but has ${JSON.stringify(typo)}: did you mean "${field}"? The layer is left out for this role`,
              whereKey(id, record, typo),
            ),
            suggestions: [field],
          });
        continue;
      }
      if (value === null || typeof value === 'string') continue;
      diagnostics.push(
        error(
          'BAD_ROLE',
          `role ${id}: ${field} is ${kindOf(value)}, not text; a layer takes it as prompt text (role_field: ${field}): quote it, or write it as a string`,
          where(id, record, field),
        ),
      );
    }
    for (const field of fields.templated) {
      const value = record.fields[field];
      if (value === null || typeof value !== 'object') continue;
      diagnostics.push(
        error(
          'BAD_ROLE',
          `role ${id}: ${field} is ${kindOf(value)}, which a template cannot write as text ({{role.${field}}}): give it as a string`,
          where(id, record, field),
        ),
      );
    }
  }
  return diagnostics;
}

// --- internal ---

/**
 * `d` naming, for each lacking key, a key of `fields` a typo away from it (`gaol:` for
 * goal) with the key meant, as suggestions too; `d` itself when there is none. Keys that
 * are themselves `known` are never taken for typos.
 */
function withTypos(
  d: Diagnostic,
  fields: Readonly<Record<string, unknown>>,
  lacking: readonly string[],
  known: readonly string[],
): Diagnostic {
  const typos = lacking.flatMap((meant) => {
    const typo = Object.keys(fields).find((k) => !known.includes(k) && isTypoOf(k, meant));
    return typo === undefined ? [] : [{ typo, meant }];
  });
  if (typos.length === 0) return d;
  const hint = typos.map((t) => `; it has ${JSON.stringify(t.typo)}: did you mean "${t.meant}"?`).join('');
  return { ...d, message: d.message + hint, suggestions: typos.map((t) => t.meant) };
}

/**
 * Records by id as found, before `extends`, with the file that defines each (its YAML
 * file, to locate the record in, or its prompt file): no closure per record.
 */
type RawRoles = Map<string, RawRole>;

interface RawRole {
  fields: Record<string, unknown>;
  source: string;
  yaml?: ParsedYaml;
  definedIn?: string[];
}

/** Where a record is defined: its key (`key`: the record's key path) in its YAML file, or its prompt file. */
function whereOf(entry: RawRole, key: string[]): Where {
  return entry.yaml ? entry.yaml.locate(key, true) : { file: entry.source };
}

/**
 * Roles from prompt files matching the first glob of `files` that matches any file (and
 * those a discovery rule adds beside them, `alsoFound`), the id from a frontmatter field. Files without the field are not roles; a file with
 * frontmatter that lacks a required string field, or whose id is not a valid name, is
 * skipped with a BAD_ROLE warning. Every frontmatter field becomes a record field (those of
 * `newline_escapes` with each two characters `\n` made a line break).
 */
function discoverByField(
  def: NonNullable<RegistryDef['discoverFiles']>,
  allPaths: readonly string[],
  frontmatterOf: (path: string) => Record<string, unknown>,
  frontmatterAt: FrontmatterAt,
  raw: RawRoles,
  diagnostics: Diagnostic[],
  textOf: (path: string) => string | undefined,
  frontmatterSaid: (path: string) => boolean,
  discovery: ReadonlyMap<string, DiscoveryRule>,
): void {
  const globs = def.files.map(compileGlob);
  const index = globs.findIndex((g) => allPaths.some((p) => g(p)));
  const glob = globs[index];
  if (!glob) return;
  // A glob that names a folder (`agents/**/*.md`) reads a folder of role files: a
  // Markdown file there without frontmatter is said. A catch-all (`**/*.md`) also reads
  // documentation, which is no role and not said.
  const roleFolder = /[^*]\//.test(def.files[index]!);
  const rules: DiscoveryScope[] = [];
  const apart: Apart = new Map();
  for (const name of def.rules ?? []) {
    const rule = discovery.get(name);
    if (!rule) continue;
    const scope = rule.forPaths(allPaths, textOf);
    rules.push(scope);
    if (scope.diagnostics) diagnostics.push(...scope.diagnostics);
  }
  // Files a rule adds beside those the glob finds (ones a manifest lists elsewhere).
  const adding = rules.filter((r) => r.alsoFound !== undefined);
  const found = adding.length > 0 ? allPaths.filter((p) => glob(p)) : [];
  const also = new Set(adding.flatMap((r) => r.alsoFound!(found)));
  for (const path of allPaths) {
    if (!glob(path) && !also.has(path)) continue;
    if (rules.some((r) => r.passedOver?.(path) === true)) continue;
    let meta = frontmatterOf(path);
    // A catch-all also finds files of other kinds a rule knows (a command file): no role, not said.
    if (!roleFolder && rules.some((r) => r.isRole?.(path, meta) === false)) continue;
    for (const rule of rules) meta = rule.fields(path, meta, def.id, def.require);
    const id = meta[def.id];
    if (id === undefined && Object.keys(meta).length === 0) {
      // Said once: without frontmatter, or with an empty one (a frontmatter that could not
      // be read has its own warning).
      const text = textOf(path);
      if (roleFolder && !isReadmeLike(path) && text !== undefined && !frontmatterSaid(path))
        diagnostics.push(
          OPENS_FRONTMATTER.test(text)
            ? warning(
                'BAD_ROLE',
                `not a role: frontmatter ${[def.id, ...def.require].join(', ')} must be a non-empty string`,
                { file: path, line: 1, col: 1 },
              )
            : warning(
                'BAD_FRONTMATTER',
                `not a role: the file has no frontmatter (a first line \`---\`, then ${[def.id, ...def.require].join(', ')}, then \`---\`)`,
                { file: path, line: 1, col: 1 },
              ),
        );
      continue;
    }
    // An empty string is no value.
    const lacking = [def.id, ...def.require].filter((k) => typeof meta[k] !== 'string' || meta[k] === '');
    if (lacking.length > 0) {
      diagnostics.push(
        withTypos(
          warning(
            'BAD_ROLE',
            `not a role: frontmatter ${lacking.join(', ')} must be a non-empty string`,
            frontmatterAt(path, lacking[0]!),
          ),
          meta,
          lacking,
          [def.id, ...def.require],
        ),
      );
      continue;
    }
    if (!isLabelName(id as string)) {
      diagnostics.push(
        warning(
          'BAD_ROLE',
          `not a role: ${def.id} ${JSON.stringify(id)} is not a valid name (at most 128 characters, none of / \\ : or a control character, no "..", not starting with "." or a space, not ending with a space)`,
          frontmatterAt(path, def.id),
        ),
      );
      continue;
    }
    const fields = { ...meta };
    // In the `newline_escapes` fields the two characters `\n` are a line break.
    for (const key of def.newlineEscapes ?? [])
      if (typeof fields[key] === 'string') fields[key] = fields[key].replaceAll('\\n', '\n');
    const name = id as string;
    const entry: RawRole = { fields, source: path };
    if ((raw.has(name) || apart.has(name)) && keepApart(name, entry, rules, raw, apart)) continue;
    const previous = raw.get(name);
    if (previous)
      diagnostics.push(
        warning(
          'DUPLICATE_ROLE',
          `role ${name} is defined in ${previous.source} and again here; this definition replaces it`,
          frontmatterAt(path, def.id),
        ),
      );
    raw.set(name, entry);
  }
  // Ids a rule moved apart: each moved file says so. An id no file kept as written is no
  // role (its compose is UNKNOWN_ROLE, naming the qualified ids as the closest).
  for (const [name, group] of apart) {
    const bare = raw.get(name);
    group.files.forEach((file, i) => {
      const others = [...(bare ? [bare.source] : []), ...group.files.filter((f) => f !== file)];
      // A note, not a warning: each is composed as it is; the id as written is what changed.
      diagnostics.push(
        info(
          'DUPLICATE_ROLE',
          `role ${name} is defined in ${others.join(', ')} and here, kept apart as the system keeps them: this one is role ${group.ids[i]} (${bare ? `${name} is the one in ${bare.source}` : `${name} alone is no role: ${group.ids.join(', ')}`})`,
          frontmatterAt(file, def.id),
        ),
      );
    });
  }
}

/** Ids a discovery rule moved apart (`qualify`), by the id the files give: the ids they take, and the files. */
type Apart = Map<string, { ids: string[]; files: string[] }>;

/**
 * A file whose id an earlier file gives too, where a rule keeps them apart: the earlier
 * one moves to its qualified id when it has one, and this one takes its own (true);
 * false when this file takes the id as written (no rule qualifies it, or its qualified id
 * is taken): the usual replacement follows, of the earlier one if it did not move.
 */
function keepApart(
  name: string,
  entry: RawRole,
  rules: readonly DiscoveryScope[],
  raw: RawRoles,
  apart: Apart,
): boolean {
  const qualified = (path: string) => {
    const q = rules.map((r) => r.qualify?.(path, name)).find((x) => x !== undefined);
    return q !== undefined && q !== name && isLabelName(q) ? q : undefined;
  };
  const group = apart.get(name) ?? { ids: [], files: [] };
  const previous = raw.get(name);
  const theirs = previous ? qualified(previous.source) : undefined;
  const mine = qualified(entry.source);
  const movable = previous !== undefined && theirs !== undefined && theirs !== mine && !raw.has(theirs);
  const placeable = mine !== undefined && mine !== theirs && !raw.has(mine);
  if (movable) {
    raw.delete(name);
    raw.set(theirs, previous);
    group.ids.push(theirs);
    group.files.push(previous.source);
    apart.set(name, group);
  }
  // Not qualified itself: this file takes the id as written (its earlier holder moved).
  if (!placeable) return false;
  raw.set(mine, entry);
  group.ids.push(mine);
  group.files.push(entry.source);
  apart.set(name, group);
  return true;
}

/**
 * True for a file that documents a folder rather than being part of it (`README.md`,
 * `CHANGELOG.md`, `LICENSE.md`, …, any case): no role, and not said to be none.
 */
export function isReadmeLike(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
  return README_LIKE.includes(base.toUpperCase());
}

const README_LIKE: readonly string[] = [
  'README',
  'CHANGELOG',
  'CHANGES',
  'HISTORY',
  'CONTRIBUTING',
  'LICENSE',
  'LICENCE',
  'NOTICE',
  'AUTHORS',
  'CODE_OF_CONDUCT',
  'SECURITY',
];

/**
 * True for a text (frontmatter included) that does not even try to open frontmatter: one
 * whose first line, after any blank lines, is not `---…` (such a file, and one with `---`
 * after blank lines or a byte order mark, has a BAD_FRONTMATTER warning of its own).
 */
/** BAD_ROLE for a registry file named by its path whose top holds no `key:` mapping. */
function namedFileWithoutKey(path: string, doc: unknown, key: string, yaml: ParsedYaml): Diagnostic {
  if (!isObject(doc))
    return error(
      'BAD_ROLE',
      `${path} must be a mapping with a ${key}: key (${key}: { <id>: { … } }), not ${kindOf(doc)}`,
      yaml.locate([]),
    );
  const typo = Object.keys(doc).find((k) => isTypoOf(k, key));
  const d = warning(
    'BAD_ROLE',
    `${path} has no ${key}: key${typo === undefined ? '' : `; it has ${JSON.stringify(typo)}: did you mean "${key}"?`}; no role is read from it`,
    typo === undefined ? yaml.locate([]) : yaml.locate([typo], true),
  );
  return typo === undefined ? d : { ...d, suggestions: [key] };
}

/**
 * The BAD_ROLE warning that says why a role file's entry `id` is no role (a field not
 * given or not text, no mapping, no valid name), when the build gave one: an unknown role
 * that a file writes is said with it, not as a name no file has.
 */
export function notARole(warnings: readonly Diagnostic[], id: string): Diagnostic | undefined {
  const said = [
    `not a role: ${id}'s `,
    `not a role: ${id} has no `,
    `role ${id} must be a mapping of fields; it is not a role`,
    `role id ${JSON.stringify(id)} is not a valid name (`,
  ];
  return warnings.find((d) => d.code === 'BAD_ROLE' && said.some((start) => d.message.startsWith(start)));
}

/** ` (config/agents.yaml:5:1 writes it: not a role: …)`, for an unknown role a file writes as no role. */
export function notARoleWords(warnings: readonly Diagnostic[], id: string): string {
  const d = notARole(warnings, id);
  if (d === undefined) return '';
  const at =
    d.file === undefined ? 'a role file' : `${d.file}${d.line === undefined ? '' : `:${d.line}:${d.col}`}`;
  return ` (${at} writes it, but BAD_ROLE: ${d.message})`;
}

/**
 * What a record lacks, in words: the fields it has no value for, and those it gives as
 * something else than text, with their value (`counter's role is the number 42`), not as
 * if they were not there.
 */
function lackingWords(id: string, fields: Record<string, unknown>, lacking: readonly string[]): string {
  const absent = lacking.filter((k) => fields[k] === undefined || fields[k] === null);
  const mistyped = lacking.filter((k) => !absent.includes(k));
  const words: string[] = [];
  if (absent.length > 0) words.push(`${id} has no ${absent.join(', ')}`);
  if (mistyped.length > 0)
    words.push(
      `${absent.length > 0 ? 'its' : `${id}'s`} ${mistyped.map((k) => `${k} is ${valueWords(fields[k])}`).join(', ')}, not text`,
    );
  return words.join('; ');
}

function valueWords(value: unknown): string {
  return typeof value === 'object' ? kindOf(value) : `the ${typeof value} ${shownValue(value)}`;
}

/** A first line `---` that opens frontmatter (strict or lenient). */
const OPENS_FRONTMATTER = /^---\s*\n/;

/**
 * `{ ...first, ...fields }`: the record's own fields over what the file's frontmatter
 * says. When that is `fields` as it is (the frontmatter's keys lead its keys, in order),
 * the record keeps its object rather than a copy per role.
 */
function under(first: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(first);
  const own = Object.keys(fields);
  if (keys.length <= own.length && keys.every((k, i) => own[i] === k)) return fields;
  return { ...first, ...fields };
}

function pick(meta: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['name', 'description', 'tags']) if (meta[key] !== undefined) out[key] = meta[key];
  return out;
}

function toRecord(id: string, fields: Record<string, unknown>, source: string): RoleRecord {
  const roleFile = typeof fields.file === 'string' ? fields.file : id;
  const { name, description } = fields;
  const tags = Array.isArray(fields.tags) ? strings(fields.tags) : undefined;
  // The usual record made whole at once: fields added one by one to an object made with
  // fewer are held in a separate array.
  if (typeof name === 'string' && typeof description === 'string' && tags)
    return { id, fields, source, roleFile, name, description, tags };
  const record: RoleRecord = { id, fields, source, roleFile };
  if (typeof name === 'string') record.name = name;
  if (typeof description === 'string') record.description = description;
  if (tags) record.tags = tags;
  return record;
}

/** What a YAML value is, for a message: `a list`, `a string`, … */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  // A date or time PyYAML types (`registry.scalars: pyyaml`).
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') {
    const made = value === null ? undefined : Object.getPrototypeOf(value)?.constructor;
    return made === undefined || made === Object ? 'a mapping' : `a ${made.name}`;
  }
  return `a ${typeof value}`;
}

/** A list as strings: the list itself when it holds only strings (a registry's tags do). */
function strings(list: unknown[]): string[] {
  return list.every((item) => typeof item === 'string') ? (list as string[]) : list.map(String);
}
