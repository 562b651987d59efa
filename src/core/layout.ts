import { parseManifestPart } from './pack/manifest-parse.js';
import type { ManifestPart } from './pack/manifest-part.js';
import type { CompiledTemplate, FillOutcome, TemplateValues } from './pack/template.js';
import type { Diagnostic } from './text/diagnostics.js';
import { parseYaml } from './text/yaml.js';

// A layout is a way teams already lay out their prompt files (a folder of doctrine layers,
// YAML role files, an agents file, subagent Markdown, nested project notes). strata
// composes each as a preset: a manifest shipped as data, loaded by the same code as a
// pack's own `strata.yaml`. What a layout needs beyond the manifest language it adds here,
// by name, as extensions a manifest then names: an input format (`format: <name>`), a rule
// for filling inputs into role record values, a role discovery rule
// (`registry.discover.<name>: true`). The core knows no layout by name: the layouts a
// build knows are handed to it (`BuildInput.layouts`).

/** One layout, as the core takes it. */
export interface Layout {
  /** The preset name (`extends: <name>`, `--preset <name>`). */
  name: string;
  /** The preset: a manifest as YAML text. */
  preset: string;
  /**
   * The preset already read: what `parseManifestPart` makes of `preset` (a shipped layout's
   * is generated when the package is built, `npm run gen:presets`), taken instead of
   * parsing the text, so a build needs no YAML parse for it. It must be exactly that parse,
   * without a problem (a test holds every shipped layout to it). Absent: the text is parsed.
   */
  presetPart?: ManifestPart;
  /**
   * For the layout detection falls back to (the last of a set): the files it reads, as
   * globs. A pack holding one of these stays this layout even when another layout's own
   * files are there too.
   */
  fallbackFiles?: readonly string[];
  /**
   * Globs that make a pack without a manifest this layout when no layout's `detect:`
   * holds, checked in detection order before the fallback: files a layout keeps anywhere
   * in a tree (notes files only in sub-folders), too common to win over another layout's
   * own files. With `detect.keys` in the preset, a matching file must carry them too.
   */
  detectAlso?: readonly string[];
  /** Input formats this layout adds (`inputs.<name>.format: <format>`), by name. */
  formats?: Readonly<Record<string, InputFormat>>;
  /** Role discovery rules this layout adds (`registry.discover.<rule>: true`), by name. */
  discovery?: Readonly<Record<string, DiscoveryRule>>;
  /**
   * How a role record value's input placeholders are filled for a pack of this layout
   * (default: each placeholder once, in one pass: {@link RecordFill}).
   */
  fillRecord?: RecordFill;
  /**
   * Text in a layer file's body that the system running the agent replaces: with what only
   * it knows (where a plugin is installed), by the value of a request input, a compose
   * without that value failing saying which input to give; with a text of its own, by that
   * text; or with a value strata cannot know and no request gives (a user's saved option),
   * kept as written and said.
   */
  substitutions?: SubstitutionRule;
}

/** A {@link Layout.substitutions} rule: given every path of the pack (and its files' texts), the substitutions of each file. */
export interface SubstitutionRule {
  forPaths(
    paths: readonly string[],
    textOf: (path: string) => string | undefined,
  ): (path: string) => readonly Substitution[];
}

/**
 * A text of a file's body the runtime replaces: by a request input's value (`input`), by a
 * text of the runtime's own (`replacement`), or by what strata cannot know, kept as
 * written with a PLACEHOLDER_KEPT warning (`kept`).
 */
export type Substitution = InputSubstitution | FixedSubstitution | KeptSubstitution;

/** A text replaced by the value of a request input. */
export interface InputSubstitution {
  /** The text as written (`${CLAUDE_PLUGIN_ROOT}`). */
  text: string;
  /** The declared request input whose value replaces it (`plugin_root`). */
  input: string;
  /** What the value is, for the message when it is not given (`where the plugin is installed`). */
  means: string;
}

/** A text the runtime always replaces with one of its own. */
export interface FixedSubstitution {
  text: string;
  /** What it is replaced with. */
  replacement: string;
}

/** A text the runtime replaces with what strata cannot know and no request gives: kept as written, said. */
export interface KeptSubstitution {
  text: string;
  /** What the runtime writes there, for the warning (`the value the user saved for …`). */
  kept: string;
}

/** How a request value that is no string is written into text (an input's `format`). */
export interface InputFormat {
  /** The value as text, or why it is refused (an INVALID_INPUT). */
  write(value: unknown): { text: string } | { problem: string };
}

/**
 * A role discovery rule: given every path of the pack, the rule for one build. It may
 * fill in fields a discovered file lacks, and keep an earlier definition of an id.
 */
export interface DiscoveryRule {
  forPaths(paths: readonly string[], textOf: (path: string) => string | undefined): DiscoveryScope;
  /** Whether the rule reads `path` (a file it takes fields from), besides the discovered files. */
  reads(path: string): boolean;
}

/** A {@link DiscoveryRule} for one build. */
export interface DiscoveryScope {
  /** A discovered file's frontmatter with the fields the rule supplies (`id`, `require`: the registry's). */
  fields(
    path: string,
    meta: Record<string, unknown>,
    id: string,
    require: readonly string[],
  ): Record<string, unknown>;
  /**
   * The id a file's role takes when another file defines the same id and the system keeps
   * the two apart (a package's roles under its name: `kit.reviewer`); undefined for a file
   * that keeps the id as written. Absent: every file keeps it.
   */
  qualify?(path: string, id: string): string | undefined;
  /**
   * Whether a file a catch-all discovery glob (`**\/*.md`, not a folder of role files)
   * found is a role at all: false for a file of another kind the system keeps beside its
   * roles (a command file). Absent: every file with the required fields is.
   */
  isRole?(path: string, meta: Record<string, unknown>): boolean;
  /**
   * Whether a file the chosen discovery glob matches is passed over as the system passes
   * it over (a folder of role files that a manifest's own list replaces): no role, and not
   * said per file. Absent: none is.
   */
  passedOver?(path: string): boolean;
  /**
   * Files that are roles too, beside `found`, the files the chosen discovery glob matches
   * (a system's manifest that lists role files outside the folder the glob reads). Absent:
   * none.
   */
  alsoFound?(found: readonly string[]): readonly string[];
  /** Problems of the files the rule reads (one it could not take what it lists from), said with the build's. */
  diagnostics?: readonly Diagnostic[];
}

/**
 * Fills the input placeholders of a role record value compiled by `compileInputs`, from
 * `values` (the first placeholder without a value is returned instead of a text), as the
 * core's `fillCompiledInputs` does in one pass, or by the layout's own rule. A text that
 * would grow past `maxLength` characters is `tooLarge`, said before it is made. When no
 * input's value holds a brace, it must give what one pass gives: an engine may then fill a
 * template of role fields from the record's flattened text (a compose hook, `fillFields`).
 */
export type RecordFill = (
  compiled: CompiledTemplate,
  values: Pick<TemplateValues, 'input' | 'isInput'>,
  maxLength: number,
  field?: RecordField,
) => FillOutcome;

/**
 * The record value a {@link RecordFill} fills for a layer, when it is a field of the
 * composed role: the field's name, and the record's other fields (a system that fills its
 * template with the fields in turn, over the text so far, also fills a field's name that
 * an input's value brought into an earlier field).
 */
export interface RecordField {
  readonly name: string;
  /** Another field of the record with its inputs filled (not its own other fields); undefined when it is no text. */
  other(name: string): FillOutcome | undefined;
}

/** The layouts a build knows: in detection order, the last the one detection falls back to. */
export interface Layouts {
  /** Their names, in detection order. */
  readonly names: readonly string[];
  /** A layout by name. */
  get(name: string): Layout | undefined;
  /** A layout's preset as a manifest part, parsed once per set, and the problems of its text (none for a shipped one). */
  part(name: string): { part: ManifestPart; diagnostics: Diagnostic[] } | undefined;
  /** Every input format some layout adds, by name. */
  readonly formats: ReadonlyMap<string, InputFormat>;
  /** Every role discovery rule some layout adds, by name. */
  readonly discovery: ReadonlyMap<string, DiscoveryRule>;
}

/**
 * The set of `layouts`, in detection order (the last is the fallback).
 *
 * @example
 * const layouts = layoutSet([{ name: 'notes', preset: 'name: notes\nlayers: [{ id: n, file: notes.md }]\n' }]);
 */
export function layoutSet(layouts: readonly Layout[]): Layouts {
  const byName = new Map(layouts.map((l) => [l.name, l]));
  const parts = new Map<string, { part: ManifestPart; diagnostics: Diagnostic[] }>();
  const formats = new Map<string, InputFormat>();
  const discovery = new Map<string, DiscoveryRule>();
  for (const l of layouts) {
    for (const [name, f] of Object.entries(l.formats ?? {})) formats.set(name, f);
    for (const [name, d] of Object.entries(l.discovery ?? {})) discovery.set(name, d);
  }
  const set: Layouts = {
    names: layouts.map((l) => l.name),
    get: (name) => byName.get(name),
    part(name) {
      const layout = byName.get(name);
      if (!layout) return undefined;
      let parsed = parts.get(name);
      if (!parsed && layout.presetPart) {
        parsed = { part: layout.presetPart, diagnostics: [] };
        parts.set(name, parsed);
      }
      if (!parsed) {
        const file = `preset:${name}`;
        const yaml = parseYaml(layout.preset, { file });
        const result = parseManifestPart(yaml, file, set);
        parsed = { part: result.part, diagnostics: [...yaml.diagnostics, ...result.diagnostics] };
        parts.set(name, parsed);
      }
      return parsed;
    },
    formats,
    discovery,
  };
  return set;
}
