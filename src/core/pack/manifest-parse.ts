import type { Diagnostic } from '../text/diagnostics.js';
import type { ParsedYaml } from '../text/yaml.js';
import { Checker } from './manifest-checker.js';
import type { ConfigFieldDef, ManifestLanguage, ManifestPart, NamedAt } from './manifest-part.js';
import { parseTokenSections } from './manifest-tokens.js';

// Reads one manifest document (a pack's `strata.yaml`, a file it extends, or a preset)
// into a `ManifestPart`: checked shapes, unknown keys reported with line:col.
// Parts are merged along the `extends` chain by manifest.ts.

const TOP_KEYS = [
  'extends',
  'name',
  'description',
  'separator',
  'fallback',
  'settings',
  'registry',
  'fleet',
  'layers',
  'agent_defaults',
  'inputs',
  'input_syntax',
  'frontmatter',
  'unreadable',
  'files',
  'hidden',
  'raw',
  'config_fields',
  'detect',
  'budgets',
  'tokenizer',
];
export function parseManifestPart(
  yaml: ParsedYaml,
  file: string,
  language: ManifestLanguage,
): { part: ManifestPart; diagnostics: Diagnostic[] } {
  const c = new Checker(yaml, file, language);
  const part: ManifestPart = { file, settings: [], layers: [], inputs: [] };
  const root = yaml.value ?? {};
  const top = c.mapping(root, [], TOP_KEYS);
  if (!top) return { part, diagnostics: c.diagnostics };

  if (top.extends !== undefined) {
    const target = c.string(top.extends, ['extends']);
    if (target) part.extends = { target, at: c.at(['extends']) };
  }
  part.name = c.optString(top.name, ['name']);
  part.description = c.optString(top.description, ['description']);
  part.separator = c.optString(top.separator, ['separator']);
  part.fallback = c.optString(top.fallback, ['fallback']);

  if (top.settings !== undefined) {
    const settings = c.mapping(top.settings, ['settings']);
    for (const [name, raw] of Object.entries(settings ?? {})) part.settings.push(c.setting(name, raw));
  }
  const namedAt: NamedAt = {};
  if (top.registry !== undefined) {
    const reg = c.mapping(
      top.registry,
      ['registry'],
      [
        'files',
        'key',
        'require',
        'discover',
        'duplicate_keys',
        'duplicate_roles',
        'scalars',
        'no_system_message',
      ],
    );
    if (reg) {
      part.registry = {};
      if (reg.files !== undefined) {
        part.registry.files = c.stringList(reg.files, ['registry', 'files']);
        namedAt['registry.files'] = c.at(['registry', 'files']);
      }
      if (reg.key !== undefined) part.registry.key = c.string(reg.key, ['registry', 'key']);
      if (reg.require !== undefined)
        part.registry.require = c.stringList(reg.require, ['registry', 'require']);
      if (reg.discover !== undefined) namedAt['registry.discover'] = c.at(['registry', 'discover']);
      if (typeof reg.discover === 'string') part.registry.discover = reg.discover;
      else if (reg.discover !== undefined) part.registry.discoverFiles = c.discover(reg.discover);
      if (reg.duplicate_keys === 'error' || reg.duplicate_keys === 'last')
        part.registry.duplicateKeys = reg.duplicate_keys;
      else if (reg.duplicate_keys !== undefined)
        c.bad(['registry', 'duplicate_keys'], 'duplicate_keys must be "error" or "last"');
      if (reg.scalars === 'core' || reg.scalars === 'pyyaml') part.registry.scalars = reg.scalars;
      else if (reg.scalars !== undefined)
        c.bad(['registry', 'scalars'], 'scalars must be "core" or "pyyaml"');
      if (reg.duplicate_roles === 'last' || reg.duplicate_roles === 'refuse')
        part.registry.duplicateRoles = reg.duplicate_roles;
      else if (reg.duplicate_roles !== undefined)
        c.bad(['registry', 'duplicate_roles'], 'duplicate_roles must be "last" or "refuse"');
      if (reg.no_system_message !== undefined) {
        const at = ['registry', 'no_system_message'];
        const none = c.mapping(reg.no_system_message, at, ['when_set', 'when_false']);
        if (none)
          part.registry.noSystemMessage = {
            whenSet: (none.when_set !== undefined && c.stringList(none.when_set, [...at, 'when_set'])) || [],
            whenFalse:
              (none.when_false !== undefined && c.stringList(none.when_false, [...at, 'when_false'])) || [],
          };
      }
    }
  }
  if (top.fleet !== undefined) {
    const fleet = c.mapping(top.fleet, ['fleet'], ['file', 'identities']);
    if (fleet) {
      part.fleet = {};
      if (fleet.file !== undefined) {
        part.fleet.file = c.string(fleet.file, ['fleet', 'file']);
        namedAt['fleet.file'] = c.at(['fleet', 'file']);
      }
      if (fleet.identities !== undefined) {
        part.fleet.identities = c.string(fleet.identities, ['fleet', 'identities']);
        namedAt['fleet.identities'] = c.at(['fleet', 'identities']);
      }
    }
  }
  if (Object.keys(namedAt).length > 0) part.namedAt = namedAt;
  if (top.layers !== undefined) {
    part.layersAt = c.at(['layers'], true);
    const layers = c.list(top.layers, ['layers']);
    // One file names each layer once: a second entry with the same id would be applied as
    // a change to the first (as a child manifest changes its parent's layer), so a copied
    // entry would silently replace the layer above it.
    const first = new Map<string, number>();
    layers?.forEach((raw, i) => {
      const layer = c.layer(raw, ['layers', i]);
      if (!layer) return;
      const earlier = first.get(layer.id);
      if (earlier !== undefined) {
        c.bad(
          ['layers', i, 'id'],
          `layer id ${layer.id} is given twice in this file (first as layers[${earlier}]); give each layer its own id`,
        );
        return;
      }
      first.set(layer.id, i);
      part.layers.push(layer);
    });
  }
  if (top.agent_defaults !== undefined)
    part.agentDefaults = c.mapping(top.agent_defaults, ['agent_defaults']);
  if (top.inputs !== undefined) {
    const inputs = c.mapping(top.inputs, ['inputs']);
    for (const [name, raw] of Object.entries(inputs ?? {})) {
      const def = c.input(name, raw);
      if (!def) continue;
      if (name === '*') {
        const { name: _, at: __, ...shape } = def;
        part.openInputs = shape;
      } else part.inputs.push(def);
    }
  }
  if (top.input_syntax !== undefined) {
    if (top.input_syntax === '{name}' || top.input_syntax === '{{name}}') part.inputSyntax = top.input_syntax;
    else c.bad(['input_syntax'], 'input_syntax must be "{name}" or "{{name}}"');
  }
  if (top.unreadable !== undefined) {
    if (top.unreadable === 'error' || top.unreadable === 'skip') part.unreadable = top.unreadable;
    else c.bad(['unreadable'], 'unreadable must be error or skip');
  }
  if (top.frontmatter !== undefined) {
    if (top.frontmatter === 'strict' || top.frontmatter === 'lenient' || top.frontmatter === 'none')
      part.frontmatter = top.frontmatter;
    else c.bad(['frontmatter'], 'frontmatter must be strict, lenient or none');
  }
  for (const key of ['files', 'hidden', 'raw'] as const)
    if (top[key] !== undefined) part[key] = c.stringList(top[key], [key]);
  for (const name of part.hidden ?? [])
    if (
      !/^\.[^./][^/]*$/.test(name) &&
      !/^(?:[^/.][^/]*|\.[^./][^/]*)(?:\/(?:[^/.][^/]*|\.[^./][^/]*))*\/\*\*$/.test(name)
    )
      c.bad(
        ['hidden'],
        `hidden: ${JSON.stringify(name)} is not a hidden folder name like .config, nor a folder read whole like .config/notes/**`,
      );
  if (top.config_fields !== undefined) {
    const fields = c.mapping(top.config_fields, ['config_fields']) ?? {};
    part.configFields = {};
    for (const [key, raw] of Object.entries(fields)) {
      const path = ['config_fields', key];
      if (typeof raw === 'string') part.configFields[key] = { field: raw };
      else {
        const m = c.mapping(raw, path, ['field', 'list']);
        const field = m && c.string(m.field, [...path, 'field']);
        if (!m || !field) continue;
        const def: ConfigFieldDef = { field };
        if (m.list !== undefined) {
          if (typeof m.list === 'boolean') def.list = m.list;
          else c.bad([...path, 'list'], 'list must be true or false');
        }
        part.configFields[key] = def;
      }
    }
  }
  if (top.detect !== undefined) {
    const d = c.mapping(top.detect, ['detect'], ['files', 'keys']);
    const files = d && c.stringList(d.files, ['detect', 'files']);
    if (d && files) {
      part.detect = { files };
      if (d.keys !== undefined) part.detect.keys = c.stringList(d.keys, ['detect', 'keys']);
    }
  }
  const tokens = parseTokenSections(top, (path, key) => c.at(path, key));
  c.diagnostics.push(...tokens.diagnostics);
  if (tokens.tokenizer !== undefined) part.tokenizer = tokens.tokenizer;
  if (tokens.budgets !== undefined) part.budgets = tokens.budgets;
  return { part, diagnostics: c.diagnostics };
}
