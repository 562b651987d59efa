import type { Document, Node, Pair, YAMLMap } from 'yaml';
import { type Diagnostic, type DiagnosticCode, error, type Where } from './diagnostics.js';
import { decodeText, isPlainAscii, isWellFormedText, LineIndex } from './text.js';
import {
  type AliasBudget,
  type ResolvedAliases,
  resolveAliases,
  withAliasesExpanded,
} from './yaml-aliases.js';
import { parseTokens, TOO_DEEP_MESSAGE } from './yaml-nesting.js';
import { yamlPackage } from './yaml-package.js';
import { pyyamlPlain, pyyamlReadsOtherwise } from './yaml-pyyaml-scalars.js';

/** A parsed YAML text that can point back at the line and column of any value in it. */
export interface ParsedYaml {
  value: unknown;
  diagnostics: Diagnostic[];
  /**
   * When the text's only problems are repeated mapping keys (each an error in
   * `diagnostics`, and `value` undefined): the value as PyYAML reads it, a later key
   * replacing the earlier one's value in the earlier one's place. A reader of files that
   * Python tools load may take it, with the repeats as warnings.
   */
  lastKeyWins?: { value: unknown; repeats: RepeatedKey[] };
  /** The nodes the text's aliases add to its value (see `ParseYamlOptions.aliases`); 0 without aliases. */
  aliasNodes?: number;
  /** Set when the aliases were refused for the pack's limit, not the text's own: another build may take them. */
  overPack?: true;
  /**
   * Set when a parse with the core schema found every plain scalar typed as PyYAML types
   * it: the same value as a parse with `scalars: 'pyyaml'` (which need not be made).
   */
  readsAsPyYaml?: true;
  /**
   * Where the value (or, with `key`, the mapping key) at `path` is written. With `within`,
   * a text written inside that value (a placeholder): where its first occurrence in the
   * value's source starts, when the source holds it as written; else the value's start.
   */
  locate(path: readonly PathSegment[], key?: boolean, within?: string): Where;
}

export type PathSegment = string | number;

/** A mapping key written again in the same mapping: its name and where the repeat is. */
export interface RepeatedKey {
  key: string;
  at: Where;
}

/** True for a mapping: a plain object (not null, not an array), as YAML and JSON parse one. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface ParseYamlOptions {
  file: string;
  /** Lines before the YAML text in its file (frontmatter starts on line 2). */
  lineOffset?: number;
  /** Code for syntax errors: YAML_SYNTAX, or BAD_FRONTMATTER inside frontmatter. */
  syntaxCode?: DiagnosticCode;
  /**
   * The bytes the text was decoded from. When the text is exactly them (plain ASCII), the
   * parse keeps the bytes rather than the text (made again when a position is needed),
   * and copies its longer string values out of them rather than slicing the text: a
   * slice of 13 characters or more is a view that keeps the whole text alive.
   */
  bytes?: Uint8Array;
  /**
   * A faster reader of the simplest YAML shapes (the engine's): its value, which must be
   * deep-equal to what this parse gives with no diagnostic, or undefined for text it does
   * not take (then this parse reads it).
   */
  fast?: FastYaml;
  /**
   * What is left of the pack's alias nodes (`MAX_PACK_ALIAS_NODES`): aliases adding more
   * are `YAML_ALIASES` (and `overPack`); what they add is taken from it.
   */
  aliases?: AliasBudget;
  /**
   * How plain scalars are typed: by YAML 1.2's core schema (`core`, the default), or as
   * PyYAML's `safe_load` types them (`pyyaml`: `yes` a bool, `1e3` text, `2024-01-01` a
   * `Date`; see yaml-pyyaml-scalars.ts), for files Python tools load. A plain scalar PyYAML
   * fails on (`=`, `2024-02-30`) is a syntax error there.
   */
  scalars?: 'core' | 'pyyaml';
}

/**
 * A reader of some YAML texts that gives the same value as {@link parseYaml}, faster: see
 * `ParseYamlOptions.fast`. It takes no text holding a plain scalar that PyYAML types
 * otherwise than the core schema (`yes`, `017`): its values are both readings. `items`, when given, holds where each item of the value's lists
 * starts in the text (what the full parser's nodes say), so `locate` finds a list item
 * without a syntax tree.
 */
export type FastYaml = FastReader & {
  /**
   * The same reading, which also tells text the full parse certainly refuses with a
   * syntax error (`'refused'`; undefined when it cannot tell): a lenient frontmatter
   * that will be quoted and read again skips the full parse of the text as written,
   * whose diagnostics it would not use.
   */
  judge?: (text: string) => ReturnType<FastReader> | 'refused';
};

type FastReader = (
  text: string,
  bytes?: Uint8Array,
) => { value: unknown; items?: WeakMap<readonly unknown[], readonly number[]> } | undefined;

/**
 * Parses YAML text without throwing. Syntax errors, duplicate keys and alias bombs become
 * diagnostics with positions in the file's own lines. The common shapes (flat or nested
 * `key: value` maps) are read by `options.fast` when given; the
 * rest by the `yaml` package. No syntax tree outlives the call: `locate` (needed only to
 * point at a problem) parses again when the tree has been collected. Text nested deeper than
 * `MAX_YAML_NESTING` (100) levels is a syntax error at the first collection past the limit.
 */
export function parseYaml(text: string, options: ParseYamlOptions): ParsedYaml {
  const bytes =
    options.bytes && options.bytes.length === text.length && isPlainAscii(options.bytes)
      ? options.bytes
      : undefined;
  const source = bytes ?? text;
  const simple = options.fast?.(text, bytes);
  if (simple !== undefined) {
    const parsed = new Parsed(source, options, simple.value, NO_PROBLEMS as Diagnostic[]);
    parsed.items = simple.items;
    parsed.readsAsPyYaml = true;
    return parsed;
  }
  const { file, lineOffset = 0, syntaxCode = 'YAML_SYNTAX' } = options;
  const at = whereIn(text, file, lineOffset);
  const doc = parseChecked(text);
  if (typeof doc === 'number')
    return new Parsed(source, options, undefined, [error(syntaxCode, TOO_DEEP_MESSAGE, at(doc))]);
  const diagnostics: Diagnostic[] = doc.errors.map((e) =>
    error(syntaxCode, e.message.split('\n')[0] ?? e.message, at(e.pos[0])),
  );
  const repeats: RepeatedKey[] = [];
  const pyyaml = options.scalars === 'pyyaml';
  let readsAsPyYaml = false;
  if (diagnostics.length === 0 && pyyaml)
    for (const { message, offset } of pyyamlTyped(doc.contents))
      diagnostics.push(error(syntaxCode, message, at(offset)));
  if (diagnostics.length === 0) {
    for (const { tag, offset } of unreadTags(doc.contents))
      diagnostics.push(
        error(
          syntaxCode,
          tag === LONE_SURROGATE ? LONE_SURROGATE_MESSAGE : unreadTagMessage(tag),
          at(offset),
        ),
      );
  }
  if (diagnostics.length === 0) {
    const integers = integersLosingDigits(doc.contents, !pyyaml);
    readsAsPyYaml = integers.readsAsPyYaml;
    for (const { written, value, offset } of integers.found)
      diagnostics.push(
        error(
          syntaxCode,
          `the integer ${written} is beyond 2^53: strata (as JSON in JavaScript) would read it as ${value}, another number; quote it to keep its digits as text`,
          at(offset),
        ),
      );
  }
  if (diagnostics.length === 0) {
    for (const { message, offset } of keysWithoutName(doc))
      diagnostics.push(error(syntaxCode, message, at(offset)));
  }
  if (diagnostics.length === 0) {
    for (const { key, offset } of duplicateKeys(doc.contents)) {
      diagnostics.push(error(syntaxCode, 'Map keys must be unique', at(offset)));
      repeats.push({ key, at: at(offset) });
    }
  }
  let value: unknown;
  let aliases: ResolvedAliases | undefined;
  let overPack = false;
  if (diagnostics.length === repeats.length) {
    aliases = resolveAliases(doc, options.aliases?.left);
    const { problem } = aliases;
    if (problem) diagnostics.push(error('YAML_ALIASES', problem.message, at(problem.offset)));
    else if (options.aliases) options.aliases.left -= aliases.added;
    overPack = aliases.overPack === true;
  }
  if (diagnostics.length === repeats.length) {
    try {
      lastBlockScalarAsWritten(doc, text);
      // Aliases are bounded by what they expand to (resolveAliases), not counted here.
      value = withAliasesExpanded(aliases!, () => {
        mergeKeysAsPyYaml(doc);
        return doc.toJS({ maxAliasCount: -1 });
      });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const merge = badMerge(doc, aliases!.targets);
      if (merge !== undefined)
        diagnostics.push(
          error(
            syntaxCode,
            `a \`<<\` merge key takes a mapping, an alias of one, or a list of them`,
            at(merge),
          ),
        );
      else diagnostics.push(error('YAML_ALIASES', `refused: ${message}`, at(0)));
    }
  }
  const parsed = new Parsed(source, options, repeats.length > 0 ? undefined : value, diagnostics, doc);
  // Only repeated keys: the value as a last-key-wins reader (PyYAML) builds it.
  if (repeats.length > 0 && diagnostics.length === repeats.length) parsed.lastKeyWins = { value, repeats };
  if (aliases && aliases.added > 0 && !aliases.problem) parsed.aliasNodes = aliases.added;
  if (overPack) parsed.overPack = true;
  if (readsAsPyYaml && !pyyaml) parsed.readsAsPyYaml = true;
  return parsed;
}

// --- internal ---

/**
 * The library's own unique-key check is quadratic in a mapping's size; ours is linear.
 * `<<` merge keys are applied as PyYAML and js-yaml apply them (`<<: *defaults` in a
 * YAML file of records, a shared block of role fields).
 */
const DOCUMENT_OPTIONS = { prettyErrors: false, uniqueKeys: false, strict: true, merge: true } as const;

/** The diagnostics of every text the fast path reads (none; shared, frozen). */
const NO_PROBLEMS: readonly Diagnostic[] = Object.freeze([]);

/**
 * A parse result holding its text (or the bytes the text is), not its syntax tree (kept
 * only while memory allows).
 */
class Parsed implements ParsedYaml {
  lastKeyWins?: { value: unknown; repeats: RepeatedKey[] };
  aliasNodes?: number;
  overPack?: true;
  readsAsPyYaml?: true;
  /**
   * What `locate` needs (the tree, the text, its line starts, each mapping's keys), held
   * weakly: made once for a run of calls (a fleet's 10,000 agents each located), never
   * kept alive by the result.
   */
  #located: WeakRef<Located> | undefined;
  /** A fast reader's lists: where each item starts (see {@link FastYaml}). */
  items: WeakMap<readonly unknown[], readonly number[]> | undefined;
  #doc: WeakRef<Document.Parsed> | undefined;
  readonly #source: string | Uint8Array;
  readonly #file: string;
  readonly #lineOffset: number;

  constructor(
    source: string | Uint8Array,
    options: ParseYamlOptions,
    readonly value: unknown,
    readonly diagnostics: Diagnostic[],
    doc?: Document.Parsed,
  ) {
    this.#source = source;
    this.#file = options.file;
    this.#lineOffset = options.lineOffset ?? 0;
    if (doc) this.#doc = new WeakRef(doc);
  }

  locate(path: readonly PathSegment[], key = false, within?: string): Where {
    const located = this.#located?.deref() ?? this.#locator();
    // A sequence item of a fast-path parse: its start is known without a syntax tree.
    const item = key || within || !this.items ? undefined : itemStart(this.value, path, this.items);
    if (item !== undefined) return located.at(item);
    located.doc ??= this.#tree(located.text);
    if (typeof located.doc === 'number') return located.at(located.doc);
    const found = findNode(located.doc.contents, path, key, located.keys);
    if (!found?.range) return { file: this.#file, line: 1 + this.#lineOffset, col: 1 };
    const [start, end] = found.range;
    const inside = within ? located.text.slice(start, end).indexOf(within) : -1;
    return located.at(inside === -1 ? start : start + inside);
  }

  #locator(): Located {
    const text = typeof this.#source === 'string' ? this.#source : decodeText(this.#source)!;
    const located: Located = { text, at: whereIn(text, this.#file, this.#lineOffset), keys: new WeakMap() };
    this.#located = new WeakRef(located);
    return located;
  }

  #tree(text: string): Document.Parsed | number {
    const doc = this.#doc?.deref() ?? parseChecked(text);
    if (typeof doc !== 'number') this.#doc = new WeakRef(doc);
    return doc;
  }
}

/** A parse's text with positions and, once needed, its syntax tree (or the offset of its nesting error). */
interface Located {
  text: string;
  doc?: Document.Parsed | number;
  at: (offset: number) => Where;
  /** Each mapping looked into: its keys' last pairs, so a lookup is not a scan. */
  keys: WeakMap<object, Map<string, Pair>>;
}

/**
 * `parseDocument`, with the nesting checked between parsing (which takes no call stack per
 * level) and composing (which does): the offset of the first collection nested too deep,
 * or the document.
 */
function parseChecked(text: string): Document.Parsed | number {
  const { Composer, Lexer, Parser, YAMLParseError } = yamlPackage();
  const tokens = parseTokens(text, new Lexer(), new Parser());
  if (typeof tokens === 'number') return tokens;
  let doc: Document.Parsed | undefined;
  for (const next of new Composer(DOCUMENT_OPTIONS).compose(tokens, true, text.length)) {
    if (!doc) doc = next;
    else {
      // As parseDocument: a second document is an error of the first.
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', MULTIPLE_DOCS));
      break;
    }
  }
  return doc!;
}

/** A pack's YAML file is one document, as PyYAML's `safe_load` takes one. */
const MULTIPLE_DOCS =
  'a second YAML document starts here (after a `---` or `...` line): a pack’s YAML file holds one document';

function whereIn(text: string, file: string, lineOffset: number): (offset: number) => Where {
  let index: LineIndex | undefined;
  return (offset) => {
    index ??= new LineIndex(text);
    const { line, col } = index.lineCol(offset);
    return { file, line: line + lineOffset, col };
  };
}

/**
 * The tags of the YAML core schema: what a pack's data is (strings, numbers, booleans,
 * null, lists and mappings), as JSON and the Python tools that share the files read it.
 */
const CORE_TAGS: readonly string[] = ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map(
  (t) => `tag:yaml.org,2002:${t}`,
);

/**
 * Nodes tagged with anything else (`!!binary`, `!!timestamp`, `!!set`, `!!omap`,
 * `!!pairs`, a custom `!tag`), with their offsets. The `yaml` package makes such a value a
 * byte array, a Date, a Set or a Map (or keeps a custom one as its text), which no reader
 * of a pack expects: a `system_prompt: !!binary …` read as "no system_prompt", a
 * `roles: !!set` as a file without roles. They are refused where they are written.
 */
function unreadTags(root: unknown): Array<{ tag: string; offset: number }> {
  const { isScalar, visit } = yamlPackage();
  const found: Array<{ tag: string; offset: number }> = [];
  visit(root as Node, {
    Node(_, node) {
      const tag = (node as { tag?: string }).tag;
      if (tag !== undefined && !CORE_TAGS.includes(tag)) found.push({ tag, offset: node.range?.[0] ?? 0 });
      // A double-quoted `\ud800` escape is a lone surrogate: no Unicode text (its UTF-8
      // form would be U+FFFD, not what was written).
      if (
        isScalar(node) &&
        node.type === 'QUOTE_DOUBLE' &&
        typeof node.value === 'string' &&
        !isWellFormedText(node.value)
      )
        found.push({ tag: LONE_SURROGATE, offset: node.range?.[0] ?? 0 });
    },
  });
  return found;
}

/**
 * Types the plain scalars of a parse as PyYAML types them (see yaml-pyyaml-scalars.ts), and
 * gives those PyYAML fails on, with why. A scalar with a tag (`!!str yes`) and the merge
 * key `<<` are as written.
 */
function pyyamlTyped(root: unknown): Array<{ message: string; offset: number }> {
  const { visit } = yamlPackage();
  const refused: Array<{ message: string; offset: number }> = [];
  visit(root as Node, {
    Scalar(_, node) {
      const text = plainText(node);
      if (text === undefined) return;
      const typed = pyyamlPlain(text);
      if ('value' in typed) node.value = typed.value;
      else {
        refused.push({ message: typed.refused, offset: node.range?.[0] ?? 0 });
        node.value = text;
      }
    },
  });
  return refused;
}

/** The text of a plain scalar without a tag, as written (folded); undefined for any other, and `<<`. */
function plainText(node: { type?: string; source?: unknown; tag?: string }): string | undefined {
  const text = node.source;
  return node.type !== 'PLAIN' || typeof text !== 'string' || node.tag !== undefined || text === '<<'
    ? undefined
    : text;
}

/**
 * Plain integers too large for a JavaScript number to hold exactly (beyond 2^53), with
 * their text and offsets: `seed: 12345678901234567890` would be 12345678901234567000 to
 * every reader here (a config value, a number written into a prompt), where a Python
 * reader keeps every digit.
 */
function integersLosingDigits(
  root: unknown,
  checkPyYaml: boolean,
): { found: Array<{ written: string; value: string; offset: number }>; readsAsPyYaml: boolean } {
  const { visit } = yamlPackage();
  const found: Array<{ written: string; value: string; offset: number }> = [];
  // With the core schema's typing, also whether PyYAML types every plain scalar alike.
  let readsAsPyYaml = checkPyYaml;
  visit(root as Node, {
    Scalar(_, node) {
      if (readsAsPyYaml) {
        const text = plainText(node);
        if (text !== undefined && pyyamlReadsOtherwise(text, node.value)) readsAsPyYaml = false;
      }
      const v = node.value;
      if (typeof v !== 'number' || !Number.isInteger(v) || Number.isSafeInteger(v) || !Number.isFinite(v))
        return;
      const written = node.source ?? '';
      // 2^53 itself is exact; 2^53 + 1 is not.
      if (INTEGER_SYNTAX.test(written) && BigInt(written.replace(/^\+/, '')) !== BigInt(v))
        found.push({ written, value: String(v), offset: node.range?.[0] ?? 0 });
    },
  });
  return { found, readsAsPyYaml };
}

/** How YAML's core schema writes an integer (decimal, octal 0o, hex 0x), as `BigInt` reads it. */
const INTEGER_SYNTAX = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/** The stand-in tag of a string holding a lone surrogate (see {@link unreadTags}). */
const LONE_SURROGATE = 'lone surrogate';
const LONE_SURROGATE_MESSAGE =
  'a \\u escape of a lone surrogate (D800-DFFF without its pair) is not Unicode text: write the character itself, or both halves of its pair';

function unreadTagMessage(tag: string): string {
  const short = tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice(18)}` : tag;
  return `the tag ${short} is not read: a pack holds strings, numbers, booleans, null, lists and mappings (quote the text to keep it as a string)`;
}

const NULL_KEY_MESSAGE =
  'a mapping key that is null (`null`, `~` or left empty) is no name (a JavaScript reader makes it "", a Python one None); quote it ("null") to mean the word';

const COLLECTION_KEY_MESSAGE =
  'a list or mapping used as a mapping key is no name (a JavaScript reader makes it a text no one wrote); a key is a string, number or boolean';

function retypedKeyMessage(written: string, value: number | boolean): string {
  return `the mapping key ${written} is read as the ${typeof value} ${String(value)}, so its name would be ${JSON.stringify(String(value))}, not what is written; quote it (${JSON.stringify(written)}) to mean the text`;
}

/**
 * Mapping keys that name nothing, with their offsets: a null key (`null:`, `~:`, `? ` with
 * no key), which a JavaScript reader turns into the key `""` and a Python one into `None`,
 * so that a role or setting would be named by an empty string no one wrote; and a list or
 * mapping as a key (`? [a, b]`, `{[a]: 1}`), which the `yaml` package would turn into its
 * YAML text, with a process warning on stderr; and a number or boolean written otherwise
 * than its text (`007`, `0x1F`, `1.50`, `True`), whose key would be a name no one wrote
 * (`"7"`); `1:` and `true:` are their own names.
 */
function keysWithoutName(doc: Document.Parsed): Array<{ message: string; offset: number }> {
  const { isAlias, isMap, isNode, isScalar, isSeq, visit } = yamlPackage();
  const found: Array<{ message: string; offset: number }> = [];
  visit(doc.contents as Node, {
    Map(_, map) {
      for (const pair of map.items) {
        const key = pair.key as unknown;
        const offset = (isNode(key) ? key.range?.[0] : undefined) ?? keyOffset(pair, map);
        if (key === null || (isScalar(key) && key.value === null))
          found.push({ message: NULL_KEY_MESSAGE, offset });
        else if (isMap(key) || isSeq(key) || (isAlias(key) && isCollection(key.resolve(doc))))
          found.push({ message: COLLECTION_KEY_MESSAGE, offset });
        else if (isScalar(key) && (typeof key.value === 'number' || typeof key.value === 'boolean')) {
          // `007:` is the number 7, whose key is "7": a name no one wrote.
          const written = key.source ?? String(key.value);
          if (written !== String(key.value))
            found.push({ message: retypedKeyMessage(written, key.value), offset });
        }
      }
    },
  });
  return found;
}

function isCollection(node: unknown): boolean {
  const { isMap, isSeq } = yamlPackage();
  return isMap(node) || isSeq(node);
}

/** Where a pair without a key node is: its value, else its mapping. */
function keyOffset(pair: { value: unknown }, map: Node): number {
  const { isNode } = yamlPackage();
  return (isNode(pair.value) ? pair.value.range?.[0] : undefined) ?? map.range?.[0] ?? 0;
}

/** Mapping keys that repeat an earlier key of the same mapping, with their offsets. */
function duplicateKeys(root: unknown): Array<{ key: string; offset: number }> {
  const { isScalar, visit } = yamlPackage();
  const found: Array<{ key: string; offset: number }> = [];
  visit(root as Node, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = pair.key.value;
        if (seen.has(key)) found.push({ key: String(key), offset: pair.key.range?.[0] ?? 0 });
        seen.add(key);
      }
    },
  });
  return found;
}

/**
 * A mapping with more than one `<<` key takes them as PyYAML does: every one is merged, a
 * later `<<` over an earlier one (the mapping's own keys over all). The library applies
 * only the first's values where both have a key; the `<<` keys become one whose list holds
 * their mappings, the last key's first (in a list, the first mapping wins).
 */
function mergeKeysAsPyYaml(doc: Document.Parsed): void {
  const { isScalar, isSeq, visit, YAMLSeq } = yamlPackage();
  visit(doc.contents as Node, {
    Map(_, map) {
      const merges = map.items.filter((p) => isScalar(p.key) && typeof p.key.value === 'symbol');
      if (merges.length < 2) return;
      const seq = new YAMLSeq(doc.schema);
      for (const pair of [...merges].reverse()) {
        const value = pair.value;
        if (isSeq(value)) seq.items.push(...value.items);
        else seq.items.push(value);
      }
      merges[0]!.value = seq;
      map.items = map.items.filter((p) => p === merges[0] || !merges.includes(p));
    },
  });
}

/**
 * A block scalar (`>` or `|`) whose last line of text ends the file, with no line break
 * after it, ends without one, as YAML's clip and keep chomping say (the final line break
 * is kept when there is one) and as libyaml and PyYAML read it: `backstory: >` then `B` at
 * the end of a file is `B`, where the library gives `B\n`.
 */
function lastBlockScalarAsWritten(doc: Document.Parsed, text: string): void {
  const { visit } = yamlPackage();
  if (text.slice(text.lastIndexOf('\n') + 1).trim() === '') return;
  visit(doc.contents as Node, {
    Scalar(_, node) {
      const block = node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL';
      if (block && node.range && node.range[1] >= text.length && typeof node.value === 'string')
        if (node.value.endsWith('\n')) node.value = node.value.slice(0, -1);
    },
  });
}

/** The offset of the first `<<` merge key whose value is not a mapping, an alias or a list of them. */
function badMerge(doc: Document.Parsed, targets: ReadonlyMap<unknown, Node>): number | undefined {
  const { isAlias, isMap, isScalar, isSeq, visit } = yamlPackage();
  let found: number | undefined;
  const mergeable = (n: unknown) => isMap(n) || (isAlias(n) && isMap(targets.get(n)));
  visit(doc.contents as Node, {
    Pair(_, pair) {
      if (found !== undefined) return visit.BREAK;
      if (!isScalar(pair.key) || typeof pair.key.value !== 'symbol') return undefined;
      const v = pair.value;
      if (mergeable(v) || (isSeq(v) && v.items.every(mergeable))) return undefined;
      found = pair.key.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return found;
}

function findNode(
  root: unknown,
  path: readonly PathSegment[],
  key: boolean,
  keys: WeakMap<object, Map<string, Pair>>,
): Node | undefined {
  const { isMap, isNode, isSeq } = yamlPackage();
  let node: unknown = root;
  let last: Node | undefined = isNode(root) ? root : undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const isLast = i === path.length - 1;
    if (isMap(node)) {
      // The last pair with the key: the one a last-key-wins reader keeps.
      const pair = pairsOf(node, keys).get(String(seg));
      if (!pair) return last;
      if (isLast && key && isNode(pair.key)) return pair.key;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
    } else {
      return last;
    }
    if (isNode(node)) last = node;
    else return last;
  }
  return last;
}

/** Where the item at `path` starts, when `path` ends at an item of a sequence in `items`. */
function itemStart(
  root: unknown,
  path: readonly PathSegment[],
  items: WeakMap<readonly unknown[], readonly number[]>,
): number | undefined {
  const last = path.at(-1);
  if (typeof last !== 'number') return undefined;
  let node = root;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    if (Array.isArray(node) && typeof seg === 'number') node = node[seg];
    else if (isObject(node) && typeof seg === 'string' && Object.hasOwn(node, seg)) node = node[seg];
    else return undefined;
  }
  return Array.isArray(node) ? items.get(node)?.[last] : undefined;
}

/** A mapping's pairs by key (the last pair of a repeated key), made once per mapping. */
function pairsOf(map: YAMLMap, keys: WeakMap<object, Map<string, Pair>>): Map<string, Pair> {
  const { isPair, isScalar } = yamlPackage();
  let byKey = keys.get(map);
  if (byKey) return byKey;
  byKey = new Map();
  for (const p of map.items) if (isPair(p) && isScalar(p.key)) byKey.set(String(p.key.value), p as Pair);
  keys.set(map, byKey);
  return byKey;
}
