import type { Where } from '../text/diagnostics.js';
import type { PathSegment } from '../text/yaml.js';
import type { Gate } from './gates.js';
import type { BudgetsSection } from './manifest-tokens.js';
import type { SettingDef, SettingType, SettingValue } from './settings.js';
import type { TokenizerName } from './tokenizer-names.js';

// The shape of one manifest document once checked (a `ManifestPart`), and of its pieces:
// layers and their sources, inputs, the registry, the fleet.

export type LayerSource =
  | { kind: 'file'; paths: string[]; pathSetting?: string }
  | { kind: 'input'; name: 'ambient' }
  | { kind: 'role_field'; field: string }
  | { kind: 'text'; text: string }
  | {
      kind: 'chain';
      path: string;
      files: string[];
      join: string;
      /** `git_root`: the walk starts at the deepest folder on the path holding `.git`. */
      start?: 'git_root';
    };

/** How a layer's text is trimmed before it is joined: both ends, the end only, or not at all. */
export type TrimMode = 'both' | 'end' | 'none';

/** A declared request input (`--var KEY=VALUE`, API `vars`): typed like a setting, never from env. */
export interface InputDef {
  name: string;
  type: SettingType;
  /** Absent: the input is required wherever a placeholder names it. */
  default?: SettingValue;
  values?: string[];
  min?: number;
  max?: number;
  description?: string;
  /**
   * How a value that is not a string is written into text: the name of an input format a
   * layout adds (`core/layout.ts`). Absent: a number or boolean as JSON writes it (`true`,
   * `1.5`). A formatted string input also takes null, lists and mappings, as its format
   * writes them.
   */
  format?: string;
}

/**
 * The names a manifest may use beyond the core's own language: the input formats and role
 * discovery rules the build's layouts add (a `Layouts` set is one).
 */
export interface ManifestLanguage {
  readonly formats: ReadonlyMap<string, unknown>;
  readonly discovery: ReadonlyMap<string, unknown>;
}

/** Roles discovered from prompt files, the id taken from a frontmatter field. */
export interface DiscoverDef {
  /** Glob candidates: the first that matches any file is the one used. */
  files: string[];
  /** The frontmatter field that holds the role id. */
  id: string;
  /** Frontmatter fields that must be strings for a file to be a role. */
  require: string[];
  /** Frontmatter fields in which the two characters `\n` are a line break. */
  newlineEscapes?: string[];
  /**
   * Discovery rules a layout adds, turned on by name (`<rule>: true`): they may supply
   * fields a discovered file lacks, and keep an earlier file's role of the same id.
   */
  rules?: string[];
}

/** Where a config field of `strata config` comes from in a role record. */
export interface ConfigFieldDef {
  field: string;
  /** Split a comma-separated string into a list (a list stays a list). */
  list?: boolean;
}

/** When a pack without a manifest looks like this preset. */
export interface DetectDef {
  /** Globs; one must match a pack file. */
  files: string[];
  /** Keys a matching file must carry: prompt files in frontmatter, YAML files in a top-level record. */
  keys?: string[];
}

/** What a layer's missing file (or role field) means. */
export type MissingPolicy = 'skip' | 'warn' | 'error';
export const MISSING_POLICIES: readonly MissingPolicy[] = ['skip', 'warn', 'error'];

export interface VariantDef {
  when?: Gate;
  source: LayerSource;
  append?: string;
}

export interface LayerPatch {
  id: string;
  at: Where;
  /**
   * The YAML path of the layer's entry in its file (`['layers', 2]`): where its values are
   * found when a problem with one is said (absent in a part read without its text).
   */
  path?: PathSegment[];
  /** When a variant was refused: the index in the file's `variants:` of each one kept. */
  variantIndexes?: number[];
  remove?: boolean;
  before?: string;
  after?: string;
  description?: string;
  when?: Gate | null;
  /** `missing:`, or `required: true` (error) / `required: false` (skip). */
  missing?: MissingPolicy;
  source?: LayerSource;
  /** A source was written but refused (said where it is written), so the layer has none. */
  refusedSource?: true;
  append?: string | null;
  variants?: VariantDef[] | null;
  trim?: TrimMode;
  separator?: string | null;
  maxBytes?: number | string | null;
}

export interface RegistryDef {
  /** Glob patterns (pack-relative) of YAML role files. */
  files: string[];
  /** The top-level key that holds the role records in a role file. */
  key: string;
  /**
   * Fields a record of a role file must hold as strings to be a role; a record without
   * one is skipped with a BAD_ROLE warning (a block of shared fields).
   */
  require?: string[];
  /** A path template (`roles/{role}.md`) whose matching files also declare roles. */
  discover?: string;
  /** Roles from prompt files anywhere under globs, the id from a frontmatter field. */
  discoverFiles?: DiscoverDef;
  /**
   * A key written twice in one mapping of a role file: an error (`error`, the default), or
   * the later value replaces the earlier one with a YAML_SYNTAX warning (`last`, as PyYAML
   * reads a file).
   */
  duplicateKeys?: 'error' | 'last';
  /**
   * How a role file's plain scalars are typed: by YAML 1.2's core schema (`core`, the
   * default) or as PyYAML's `safe_load` types them (`pyyaml`: `role: yes` a bool, `1e3`
   * text), for files a Python tool loads.
   */
  scalars?: 'core' | 'pyyaml';
  /**
   * A role id two registry files define: the later file's record replaces the earlier one
   * with a DUPLICATE_ROLE warning (`last`, the default), or a compose of the role fails
   * naming the files (`refuse`: a folder of several projects, each with its own records).
   */
  duplicateRoles?: 'last' | 'refuse';
  /**
   * Record fields with which the framework the records are written for sends the agent no
   * system message (its prompt goes into the user message instead): a compose of such a
   * role warns NO_SYSTEM_MESSAGE. `whenSet`: a field with a value (not null, false, 0, an
   * empty text, list or mapping); `whenFalse`: a field written with one of those, or with
   * a text a boolean field reads as false (`"false"`, `"no"`, `"off"`, `"0"`, any case).
   */
  noSystemMessage?: { whenSet: string[]; whenFalse: string[] };
}

export interface FleetDef {
  file: string;
  /** A path template (`identities/{agent}.md`) whose files' frontmatter may declare agents. */
  identities?: string;
}

/** The keys of a manifest part that name files (see `named-files.ts`). */
export type NamedKey = 'fleet.file' | 'fleet.identities' | 'registry.files' | 'registry.discover';
/** Where a manifest part writes the keys that name files (for the diagnostics). */
export type NamedAt = Partial<Record<NamedKey, Where>>;

export interface ManifestPart {
  file: string;
  /** Where the `layers:` key is (for NO_LAYERS), when the part has one. */
  layersAt?: Where;
  extends?: { target: string; at: Where };
  name?: string;
  description?: string;
  separator?: string;
  fallback?: string;
  settings: Array<Partial<SettingDef> & { name: string; at: Where }>;
  registry?: Partial<RegistryDef>;
  fleet?: Partial<FleetDef>;
  /** Where the part writes the keys that name files (`fleet.file`, `registry.files`, …). */
  namedAt?: NamedAt;
  layers: LayerPatch[];
  agentDefaults?: Record<string, unknown>;
  /** With where each is declared (its name), for the manifest's check of its default. */
  inputs: Array<InputDef & { at?: Where }>;
  /** Placeholder form of inputs in text templates and record values: `{name}` or `{{name}}`. */
  inputSyntax?: InputSyntax;
  /** Any input name a placeholder uses is an input of this shape (open inputs). */
  openInputs?: Omit<InputDef, 'name'>;
  frontmatter?: 'strict' | 'lenient' | 'none';
  /** `unreadable:`, checked. */
  unreadable?: 'error' | 'skip';
  files?: string[];
  hidden?: string[];
  raw?: string[];
  configFields?: Record<string, ConfigFieldDef>;
  detect?: DetectDef;
  /** `tokenizer:`, checked. */
  tokenizer?: TokenizerName;
  /** `budgets:`, checked, with the position of every entry. */
  budgets?: BudgetsSection;
}

export type InputSyntax = '{name}' | '{{name}}';

/** A value written in a manifest file, named by its YAML path: located only when a problem is said. */
export interface ValueRef {
  file: string;
  path: PathSegment[];
}

/**
 * Where a value is written (with `within`, a text inside it, such as a placeholder), or
 * undefined when its file's text is not at hand (a preset read as data).
 */
export type ValueLocator = (ref: ValueRef, within?: string) => Where | undefined;
