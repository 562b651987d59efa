import type { InputSource } from '../pack/inputs.js';
import type { LayerSource } from '../pack/manifest.js';
import type { SettingSource, SettingValue } from '../pack/settings.js';
import type { Diagnostic } from '../text/diagnostics.js';

// The shapes of composing: what a request asks for, and what a result says of every layer.

/** What to compose for. */
export interface ComposeRequest {
  role?: string;
  team?: string;
  agent?: string;
  /** Text for the `ambient` input layer. */
  ambient?: string;
  /** Setting overrides (`--set`, query `set.KEY`, body `settings`); strings are parsed by type. */
  settings?: Readonly<Record<string, unknown>>;
  /** Request inputs the manifest declares (`--var`, query `var.KEY`, body `vars`); parsed by type. */
  vars?: Readonly<Record<string, unknown>>;
}

/** Why a layer was left out of a prompt (the closed set). */
export const SKIP_REASONS = ['gated', 'missing', 'empty', 'no-value'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** One file of a multi-file layer (a chain), with its place in the result text. */
export interface LayerPart {
  /** Pack-relative file. */
  source: string;
  included: boolean;
  /** Why the file is not in the text: blank, or no budget left. */
  reason?: 'empty' | 'budget';
  start?: number;
  end?: number;
  bytes?: number;
  sha256?: string;
  /** Set when the text was cut to the layer's byte budget: the bytes before the cut. */
  truncatedFrom?: number;
}

/**
 * One piece of a text template layer's text (a role-playing template of record fields): the
 * template's own text, a role record field, a setting or a request input, with its place
 * in the result text.
 */
export interface LayerSegment {
  kind: 'template' | 'field' | 'setting' | 'input';
  /** The field, setting or input (none for the template's text). */
  name?: string;
  /** The file a role field is written in. */
  source?: string;
  /** The line of that file where the field is written (worked out when first read). */
  line?: number;
  /** Byte range [start, end) in the result text (UTF-8). */
  start: number;
  end: number;
  bytes: number;
  /** The inputs filled into a role field's value, each with its range. */
  inputs?: LayerSegment[];
}

/** One layer of the pipeline in a result: included or not, why, and from where. */
export interface LayerResult {
  id: string;
  included: boolean;
  /** Why the layer is not in the text. */
  reason?: SkipReason;
  /** The gate that was false (reason `gated`), in readable form. */
  gate?: string;
  /** The placeholder without a value (reason `no-value`). */
  placeholder?: string;
  kind: LayerSource['kind'] | 'none';
  /** Pack-relative file the text came from (for role fields: the role file). */
  source?: string;
  /** The role record field (kind `role_field`). */
  field?: string;
  /** Index of the variant taken, for layers with variants. */
  variant?: number;
  /** Whether an `append` template was added to the text. */
  appended?: boolean;
  /** Files of a chain layer, root first, each with its range. */
  parts?: LayerPart[];
  /** A text template layer's pieces, in order, each with its range (template text, fields, inputs). */
  segments?: LayerSegment[];
  /**
   * Set on a chain layer whose walk starts below the pack root: the folder it starts at (a
   * nested repository's root, with `start: git_root`).
   */
  chainRoot?: string;
  /** Set when the layer's text was cut to its byte budget: the bytes before the cut. */
  truncatedFrom?: number;
  /** Set when a file's frontmatter parsed only with its values quoted (lenient frontmatter). */
  frontmatterRetried?: true;
  /** Byte range [start, end) of the layer's text in the result text (UTF-8). */
  start?: number;
  end?: number;
  bytes?: number;
  sha256?: string;
}

/** A composed prompt with its provenance. */
export interface ComposeResult {
  version: string;
  text: string;
  sha256: string;
  bytes: number;
  role?: string;
  team?: string;
  agent?: string;
  settings: Record<string, SettingValue>;
  settingSources: Record<string, SettingSource>;
  /** Request inputs, for packs that declare them. */
  inputs?: Record<string, SettingValue>;
  inputSources?: Record<string, InputSource>;
  layers: LayerResult[];
  /** True when no layer was included and the manifest's fallback is the text. */
  fallback: boolean;
  /** Warnings of this compose (FALLBACK_USED, …). */
  diagnostics: Diagnostic[];
}

export type ComposeOutcome = { ok: true; result: ComposeResult } | { ok: false; diagnostics: Diagnostic[] };
