import { type Diagnostic, error, type Where } from '../text/diagnostics.js';
import { closestNames, didYouMean } from '../text/suggest.js';
import type { ParsedYaml, PathSegment } from '../text/yaml.js';
import type { Gate } from './gates.js';
import {
  type DiscoverDef,
  type InputDef,
  type LayerPatch,
  type LayerSource,
  type ManifestLanguage,
  MISSING_POLICIES,
  type MissingPolicy,
  type TrimMode,
  type VariantDef,
} from './manifest-part.js';
import type { SettingDef, SettingType, SettingValue } from './settings.js';

// The checks of one manifest document's parts (settings, inputs, discovery, layers and
// their sources, gates): each reads a YAML value at a path, says what is wrong with it
// (BAD_MANIFEST, UNKNOWN_KEY, with line:col) and gives the checked part.

const LAYER_KEYS = [
  'id',
  'description',
  'when',
  'missing',
  'required',
  'file',
  'path_setting',
  'input',
  'role_field',
  'text',
  'append',
  'variants',
  'before',
  'after',
  'remove',
  'chain',
  'trim',
  'separator',
  'max_bytes',
];
const VARIANT_KEYS = ['when', 'file', 'path_setting', 'input', 'role_field', 'text', 'chain', 'append'];
const SOURCE_KINDS = ['file', 'input', 'role_field', 'text', 'chain'];
const INPUT_KEYS = ['type', 'default', 'values', 'min', 'max', 'description', 'format'];
const TRIM_MODES: TrimMode[] = ['both', 'end', 'none'];
/** A portable environment variable name (POSIX): what a shell can set and a process can read. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const SETTING_KEYS = ['type', 'default', 'env', 'values', 'min', 'max', 'description'];
const SETTING_TYPES: SettingType[] = ['boolean', 'enum', 'string', 'integer'];
const GATE_KEYS = ['setting', 'equals', 'role', 'team', 'agent', 'all', 'any', 'not'];

type Obj = Record<string, unknown>;

/** Checks a manifest document's values, collecting diagnostics. */
export class Checker {
  readonly diagnostics: Diagnostic[] = [];
  constructor(
    private readonly yaml: ParsedYaml,
    private readonly file: string,
    private readonly language: ManifestLanguage,
  ) {}

  at(path: PathSegment[], key = false): Where {
    return this.yaml.locate(path, key);
  }

  bad(path: PathSegment[], message: string, key = false): undefined {
    this.diagnostics.push(error('BAD_MANIFEST', message, this.at(path, key)));
    return undefined;
  }

  /** `min` above `max` admits no value: said at the declaration's key, and both bounds dropped. */
  bounds(def: { min?: number; max?: number }, path: PathSegment[], what: string): void {
    if (def.min === undefined || def.max === undefined || def.min <= def.max) return;
    this.bad(path, `${what}: min ${def.min} is greater than max ${def.max}, so no value is accepted`, true);
    delete def.min;
    delete def.max;
  }

  mapping(value: unknown, path: PathSegment[], allowed?: string[]): Obj | undefined {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return this.bad(path, `${label(path)} must be a mapping`);
    }
    if (allowed) {
      for (const key of Object.keys(value)) {
        if (!allowed.includes(key)) {
          // `extend:` names `extends` as the key meant, as an unknown role names the closest roles.
          const suggestions = closestNames(key, allowed);
          const d = error(
            'UNKNOWN_KEY',
            `unknown key ${JSON.stringify(key)} in ${label(path)}${didYouMean(suggestions)}; expected one of: ${allowed.join(', ')}`,
            this.at([...path, key], true),
          );
          this.diagnostics.push(suggestions.length > 0 ? { ...d, suggestions } : d);
        }
      }
    }
    return value as Obj;
  }

  list(value: unknown, path: PathSegment[]): unknown[] | undefined {
    return Array.isArray(value) ? value : this.bad(path, `${label(path)} must be a list`);
  }

  string(value: unknown, path: PathSegment[]): string | undefined {
    return typeof value === 'string' ? value : this.bad(path, `${label(path)} must be a string`);
  }

  optString(value: unknown, path: PathSegment[]): string | undefined {
    return value === undefined ? undefined : this.string(value, path);
  }

  stringList(value: unknown, path: PathSegment[]): string[] | undefined {
    if (typeof value === 'string') return [value];
    // A string is taken too: said, so that `file: 123` is not told it must be a list.
    if (!Array.isArray(value)) return this.bad(path, `${label(path)} must be a string or a list of strings`);
    if (value.every((v) => typeof v === 'string')) return value as string[];
    return this.bad(path, `${label(path)} must be a list of strings`);
  }

  setting(name: string, raw: unknown): Partial<SettingDef> & { name: string; at: Where } {
    const path = ['settings', name];
    const out: Partial<SettingDef> & { name: string; at: Where } = { name, at: this.at(path, true) };
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      this.bad(path, `setting name ${JSON.stringify(name)} must be an identifier`, true);
    const s = this.mapping(raw, path, SETTING_KEYS);
    if (!s) return out;
    if (s.type !== undefined) {
      if (SETTING_TYPES.includes(s.type as SettingType)) out.type = s.type as SettingType;
      else this.bad([...path, 'type'], `setting type must be one of: ${SETTING_TYPES.join(', ')}`);
    }
    if (s.default !== undefined) {
      if (['string', 'number', 'boolean'].includes(typeof s.default))
        out.default = s.default as SettingDef['default'];
      else this.bad([...path, 'default'], 'a setting default must be a scalar');
    }
    if (s.env !== undefined) {
      const env = this.string(s.env, [...path, 'env']);
      if (env !== undefined && !ENV_NAME.test(env))
        this.bad(
          [...path, 'env'],
          `setting ${name}: env ${JSON.stringify(env)} is no environment variable name (letters, digits and _, not starting with a digit)`,
        );
      else if (env !== undefined) out.env = env;
    }
    if (s.values !== undefined) out.values = this.stringList(s.values, [...path, 'values']);
    if (s.description !== undefined) out.description = this.string(s.description, [...path, 'description']);
    for (const k of ['min', 'max'] as const) {
      if (s[k] === undefined) continue;
      if (typeof s[k] === 'number' && Number.isInteger(s[k])) out[k] = s[k] as number;
      else this.bad([...path, k], `${k} must be an integer`);
    }
    this.bounds(out, path, `setting ${name}`);
    return out;
  }

  input(name: string, raw: unknown): (InputDef & { at?: Where }) | undefined {
    const path = ['inputs', name];
    if (name !== '*' && !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name))
      return this.bad(path, `input name ${JSON.stringify(name)} must be an identifier`, true);
    const s = this.mapping(raw ?? {}, path, INPUT_KEYS);
    if (!s) return undefined;
    const def: InputDef & { at?: Where } = { name, type: 'string', at: this.at(path, true) };
    if (s.type !== undefined) {
      if (SETTING_TYPES.includes(s.type as SettingType)) def.type = s.type as SettingType;
      else this.bad([...path, 'type'], `input type must be one of: ${SETTING_TYPES.join(', ')}`);
    } else if (s.values !== undefined) def.type = 'enum';
    if (s.default !== undefined) {
      if (['string', 'number', 'boolean'].includes(typeof s.default)) def.default = s.default as SettingValue;
      else this.bad([...path, 'default'], 'an input default must be a scalar');
    }
    if (s.values !== undefined) def.values = this.stringList(s.values, [...path, 'values']);
    if (s.description !== undefined) def.description = this.string(s.description, [...path, 'description']);
    for (const k of ['min', 'max'] as const) {
      if (s[k] === undefined) continue;
      if (typeof s[k] === 'number' && Number.isInteger(s[k])) def[k] = s[k] as number;
      else this.bad([...path, k], `${k} must be an integer`);
    }
    this.bounds(def, path, `input ${name}`);
    if (s.format !== undefined) {
      const formats = [...this.language.formats.keys()];
      if (typeof s.format !== 'string' || !this.language.formats.has(s.format))
        this.bad(
          [...path, 'format'],
          `format must be one of: ${formats.join(', ') || '(none: no layout adds one)'}`,
        );
      else if (def.type !== 'string') this.bad([...path, 'format'], 'format applies to a string input');
      else def.format = s.format;
    }
    return def;
  }

  discover(raw: unknown): DiscoverDef | undefined {
    const path = ['registry', 'discover'];
    const rules = [...this.language.discovery.keys()];
    const m = this.mapping(raw, path, ['files', 'id', 'require', 'newline_escapes', ...rules]);
    if (!m) return undefined;
    const files = this.stringList(m.files, [...path, 'files']);
    const id = m.id === undefined ? 'name' : this.string(m.id, [...path, 'id']);
    const require = m.require === undefined ? [] : this.stringList(m.require, [...path, 'require']);
    const escapes =
      m.newline_escapes === undefined ? [] : this.stringList(m.newline_escapes, [...path, 'newline_escapes']);
    if (!files || !id || !require || !escapes) return undefined;
    const def: DiscoverDef = { files, id, require };
    if (escapes.length > 0) def.newlineEscapes = escapes;
    const on = rules.filter((rule) => m[rule] === true);
    if (on.length > 0) def.rules = on;
    for (const rule of rules) {
      if (m[rule] !== undefined && typeof m[rule] !== 'boolean')
        this.bad([...path, rule], `${rule} must be true or false`);
    }
    return def;
  }

  layer(raw: unknown, path: PathSegment[]): LayerPatch | undefined {
    const l = this.mapping(raw, path, LAYER_KEYS);
    if (!l) return undefined;
    const id = this.string(l.id, [...path, 'id']);
    if (!id) return undefined;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(id))
      return this.bad([...path, 'id'], `layer id ${JSON.stringify(id)} is not a valid id`);
    const patch: LayerPatch = { id, at: this.at(path), path };
    if (l.remove !== undefined) {
      if (l.remove === true) patch.remove = true;
      else if (l.remove !== false) this.bad([...path, 'remove'], 'remove must be true or false');
    }
    patch.before = this.optString(l.before, [...path, 'before']);
    patch.after = this.optString(l.after, [...path, 'after']);
    patch.description = this.optString(l.description, [...path, 'description']);
    if (l.when !== undefined) patch.when = l.when === null ? null : this.gate(l.when, [...path, 'when']);
    if (l.required !== undefined) {
      if (typeof l.required === 'boolean') patch.missing = l.required ? 'error' : 'skip';
      else this.bad([...path, 'required'], 'required must be true or false');
    }
    if (l.missing !== undefined) {
      if (l.required !== undefined)
        this.bad([...path, 'required'], 'give missing or required, not both', true);
      else if (MISSING_POLICIES.includes(l.missing as MissingPolicy))
        patch.missing = l.missing as MissingPolicy;
      else this.bad([...path, 'missing'], `missing must be one of: ${MISSING_POLICIES.join(', ')}`);
    }
    if (l.append !== undefined)
      patch.append = l.append === null ? null : this.string(l.append, [...path, 'append']);
    if (l.trim !== undefined) {
      if (TRIM_MODES.includes(l.trim as TrimMode)) patch.trim = l.trim as TrimMode;
      else this.bad([...path, 'trim'], `trim must be one of: ${TRIM_MODES.join(', ')}`);
    }
    if (l.separator !== undefined)
      patch.separator = l.separator === null ? null : this.string(l.separator, [...path, 'separator']);
    if (l.max_bytes !== undefined) {
      const m = l.max_bytes;
      if (m === null) patch.maxBytes = null;
      else if ((typeof m === 'number' && Number.isSafeInteger(m) && m >= 0) || typeof m === 'string')
        patch.maxBytes = m;
      else
        this.bad([...path, 'max_bytes'], 'max_bytes must be a byte count or the name of an integer setting');
    }
    patch.source = this.source(l, path);
    if (!patch.source && SOURCE_KINDS.some((k) => l[k] !== undefined)) patch.refusedSource = true;
    if (l.variants !== undefined) {
      if (l.variants === null) patch.variants = null;
      else {
        const list = this.list(l.variants, [...path, 'variants']) ?? [];
        patch.variants = [];
        const kept: number[] = [];
        for (const [i, v] of list.entries()) {
          const vp = [...path, 'variants', i];
          const variant = this.mapping(v, vp, VARIANT_KEYS);
          if (!variant) continue;
          const source = this.source(variant, vp);
          if (!source) {
            this.bad(vp, 'a variant needs a source: file, input, role_field, text or chain');
            continue;
          }
          kept.push(i);
          const def: VariantDef = { source };
          if (variant.when !== undefined) def.when = this.gate(variant.when, [...vp, 'when']);
          if (variant.append !== undefined) def.append = this.string(variant.append, [...vp, 'append']);
          patch.variants!.push(def);
        }
        if (kept.length < list.length) patch.variantIndexes = kept;
      }
    }
    if (Array.isArray(l.variants) && l.variants.length > 0 && patch.variants?.length === 0)
      patch.refusedSource = true;
    if (patch.source && patch.variants)
      this.bad(path, `layer ${id} has both a source and variants; give one`);
    return patch;
  }

  source(l: Obj, path: PathSegment[]): LayerSource | undefined {
    const kinds = SOURCE_KINDS.filter((k) => l[k] !== undefined);
    if (kinds.length === 0) {
      if (l.path_setting !== undefined)
        this.bad([...path, 'path_setting'], 'path_setting needs a file list to fall back on');
      return undefined;
    }
    if (kinds.length > 1) return this.bad(path, `give one source, not ${kinds.join(' and ')}`);
    const kind = kinds[0]!;
    if (kind === 'file') {
      const paths = this.stringList(l.file, [...path, 'file']);
      if (!paths) return undefined;
      const src: LayerSource = { kind: 'file', paths };
      if (l.path_setting !== undefined) {
        const s = this.string(l.path_setting, [...path, 'path_setting']);
        if (s) src.pathSetting = s;
      }
      return src;
    }
    if (l.path_setting !== undefined)
      this.bad([...path, 'path_setting'], 'path_setting is only for file layers');
    if (kind === 'input') {
      if (l.input === 'ambient') return { kind: 'input', name: 'ambient' };
      return this.bad([...path, 'input'], 'input must be "ambient"');
    }
    if (kind === 'role_field') {
      const field = this.string(l.role_field, [...path, 'role_field']);
      return field ? { kind: 'role_field', field } : undefined;
    }
    if (kind === 'chain') {
      const cp = [...path, 'chain'];
      const m = this.mapping(l.chain, cp, ['path', 'files', 'join', 'start']);
      if (!m) return undefined;
      const p = this.string(m.path, [...cp, 'path']);
      const files = this.stringList(m.files, [...cp, 'files']);
      const join = m.join === undefined ? '\n\n' : this.string(m.join, [...cp, 'join']);
      if (p === undefined || !files || join === undefined) return undefined;
      for (const f of files)
        if (f.includes('/') || f === '' || f === '.' || f === '..')
          this.bad([...cp, 'files'], `chain files are file names, not paths: ${JSON.stringify(f)}`);
      const chain: LayerSource = { kind: 'chain', path: p, files, join };
      if (m.start === 'git_root') chain.start = 'git_root';
      else if (m.start !== undefined && m.start !== 'pack_root')
        this.bad([...cp, 'start'], 'chain start must be pack_root or git_root');
      return chain;
    }
    const text = this.string(l.text, [...path, 'text']);
    return text === undefined ? undefined : { kind: 'text', text };
  }

  gate(raw: unknown, path: PathSegment[]): Gate | undefined {
    if (typeof raw === 'string') return { setting: raw };
    const g = this.mapping(raw, path, GATE_KEYS);
    if (!g) return undefined;
    const kinds = ['setting', 'role', 'team', 'agent', 'all', 'any', 'not'].filter((k) => g[k] !== undefined);
    if (kinds.length !== 1) {
      return this.bad(path, 'a gate needs exactly one of: setting, role, team, agent, all, any, not');
    }
    if (g.equals !== undefined && kinds[0] !== 'setting')
      return this.bad([...path, 'equals'], 'equals goes with setting');
    const kind = kinds[0]!;
    switch (kind) {
      case 'setting': {
        const setting = this.string(g.setting, [...path, 'setting']);
        if (!setting) return undefined;
        if (g.equals === undefined) return { setting };
        const eq = g.equals;
        const ok = (v: unknown) => ['string', 'number', 'boolean'].includes(typeof v);
        if (Array.isArray(eq) ? eq.every(ok) : ok(eq))
          return { setting, equals: eq as SettingValue | SettingValue[] };
        return this.bad([...path, 'equals'], 'equals must be a scalar or a list of scalars');
      }
      case 'role':
      case 'team':
      case 'agent': {
        const names = this.stringList(g[kind], [...path, kind]);
        if (!names) return undefined;
        return { [kind]: names } as Gate;
      }
      case 'all':
      case 'any': {
        const list = this.list(g[kind], [...path, kind]) ?? [];
        const gates = list.map((x, i) => this.gate(x, [...path, kind, i])).filter((x): x is Gate => !!x);
        return { [kind]: gates } as Gate;
      }
      default: {
        const inner = this.gate(g.not, [...path, 'not']);
        return inner ? { not: inner } : undefined;
      }
    }
  }
}

function label(path: PathSegment[]): string {
  if (path.length === 0) return 'the manifest';
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : p))
    .join('.')
    .replace(/\.\[/g, '[');
}
