import { Buffer } from 'node:buffer';
import type { FastYaml } from '../../core/text/yaml.js';
import { MAX_YAML_NESTING } from '../../core/text/yaml-nesting.js';

/**
 * Parses the YAML shapes that make up nearly all of a real pack's frontmatter, role
 * registries and fleets, without building a syntax tree: block mappings nested by
 * indentation (keys like `name` or `max_tasks`), whose values are plain one-line scalars
 * (strings, `null`, `true`/`false`, small decimal numbers, dotted versions like `0.18.0`), one-line flow sequences of
 * plain strings (`[code, git]`), one-line flow mappings of plain keys and scalars
 * (`{ temperature: 0.2 }`), one-line double-quoted strings with no escape but `\\` and `\"`,
 * block scalars `>` and `|` whose lines sit at one depth (CrewAI's `role: >` records),
 * or block sequences (`- id: ada` items: mappings or one-line
 * values), with blank lines and whole-line comments between them.
 *
 * Returns {@link NOT_SIMPLE} for anything else — and for anything the full parser could
 * read differently or report a problem in (a duplicate key, a tab, a trailing comment, a
 * quote, a multi-line plain scalar, an anchor, …) — so the caller falls back to the `yaml`
 * package and gets its exact values and diagnostics. Where it returns a value, that value
 * is deep-equal to what `parseDocument(text, { strict: true }).toJS()` gives and the full
 * parser reports no error (property-tested against it in test/core/yaml-simple.test.ts).
 *
 * `bytes`, when given, are the text itself (plain ASCII, one byte a character): string
 * values of {@link SLICE_MIN} characters or more are copied out of them, so that no value
 * is a slice keeping the whole text alive. `items`, when given, receives each block
 * sequence read with the offsets where its items start (where the full parser's nodes
 * start), so a caller can point at a fleet's 10,000th agent without a syntax tree.
 *
 * @example
 * parseSimpleYaml('name: Ada\ntags: [dev, ops]\n'); // { name: 'Ada', tags: ['dev', 'ops'] }
 * parseSimpleYaml("name: 'Ada'\n") === NOT_SIMPLE; // single-quoted: the full parser decides
 */
export function parseSimpleYaml(
  text: string,
  bytes?: Uint8Array,
  items?: WeakMap<readonly unknown[], readonly number[]>,
): unknown {
  const parser = new SimpleParser(
    text,
    bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
    items,
  );
  return parser.document();
}

/** What {@link parseSimpleYaml} returns for text outside the simple shapes. */
export const NOT_SIMPLE: unique symbol = Symbol('not simple YAML');

// --- internal ---

/** Strings up to this length that repeat across records (`model: fast`, tags) are shared. */
const INTERN_MAX = 24;
/** Distinct strings remembered for sharing (the repeated ones show up early). */
const INTERN_ENTRIES = 256;
/** Longest key taken here (YAML's implicit-key limit is 1024 characters). */
const MAX_KEY = 1000;
/** Mappings with more keys than this are built as dictionaries at once (see {@link largeObject}). */
const FAST_KEYS = 64;
/** V8 makes a substring this long or longer a view of the whole string (a sliced string). */
const SLICE_MIN = 13;

class SimpleParser {
  /** Start of the current line. */
  private pos = 0;
  private readonly intern = new Map<string, string>();

  /** Whether a mapping value held `: ` (read on only when {@link judging}). */
  colonInValue = false;
  /** Whether the value being read is a block mapping's value on its key's line. */
  private keyValue = false;

  constructor(
    private readonly text: string,
    /** The text's bytes, when it is plain ASCII (see {@link parseSimpleYaml}). */
    private readonly bytes?: Buffer,
    /** Where each block sequence's items start (see {@link parseSimpleYaml}). */
    private readonly items?: WeakMap<readonly unknown[], readonly number[]>,
    /**
     * Reads a mapping value holding `: ` on as text, noting it in {@link colonInValue}
     * (for {@link simpleYamlFails}; its value is then not what the full parser gives).
     */
    private readonly judging = false,
  ) {}

  document(): unknown {
    const indent = this.nextContentLine();
    if (indent === NOT_SIMPLE) return NOT_SIMPLE;
    if (indent === undefined) return null;
    if (indent !== 0) return NOT_SIMPLE;
    const map = this.mapping(0, 1);
    if (map === NOT_SIMPLE || this.pos < this.text.length) return NOT_SIMPLE;
    return map;
  }

  /**
   * Skips blank and whole-line comment lines; returns the indentation of the next content
   * line (pos at its start), undefined at the end, NOT_SIMPLE for a tab or carriage return.
   */
  private nextContentLine(): number | undefined | typeof NOT_SIMPLE {
    const { text } = this;
    while (this.pos < text.length) {
      let i = this.pos;
      while (text.charCodeAt(i) === 32) i++;
      const c = text.charCodeAt(i);
      if (c === 10) {
        this.pos = i + 1;
        continue;
      }
      if (i === text.length) {
        this.pos = i;
        return undefined;
      }
      if (c === 35 /* # */) {
        const nl = text.indexOf('\n', i);
        const end = nl === -1 ? text.length : nl;
        for (let j = i; j < end; j++) if (!commentChar(text.charCodeAt(j))) return NOT_SIMPLE;
        this.pos = nl === -1 ? text.length : nl + 1;
        continue;
      }
      return i - this.pos;
    }
    return undefined;
  }

  /**
   * A block mapping whose keys sit at `indent`, `depth` levels deep; pos at the start of its
   * first line. Past the nesting limit the full parser decides (and refuses it).
   */
  private mapping(indent: number, depth: number): Record<string, unknown> | typeof NOT_SIMPLE {
    if (depth > MAX_YAML_NESTING) return NOT_SIMPLE;
    const { text } = this;
    let out: Record<string, unknown> = {};
    let keys = 0;
    for (;;) {
      if (++keys === FAST_KEYS) out = largeObject(out);
      // One `key:` line.
      const keyStart = this.pos + indent;
      let i = keyStart;
      if (!keyHead(text.charCodeAt(i))) return NOT_SIMPLE;
      i++;
      while (keyChar(text.charCodeAt(i))) i++;
      // YAML limits an implicit key to 1024 characters; a longer one is the full parser's error.
      if (text.charCodeAt(i) !== 58 /* : */ || i - keyStart > MAX_KEY) return NOT_SIMPLE;
      const key = text.slice(keyStart, i);
      if (key === '__proto__' || typedWord(key) || Object.hasOwn(out, key)) return NOT_SIMPLE;
      i++;
      const nl = text.indexOf('\n', i);
      const lineEnd = nl === -1 ? text.length : nl;
      this.pos = nl === -1 ? text.length : nl + 1;
      if (i === lineEnd) {
        // `key:` alone: a sequence when the next content line is a `- ` item at least as
        // deep, a nested mapping when it is deeper, else null.
        const next = this.nextContentLine();
        if (next === NOT_SIMPLE) return NOT_SIMPLE;
        if (next !== undefined && next >= indent && this.dashAt(next)) {
          const list = this.sequence(next, depth + 1);
          if (list === NOT_SIMPLE) return NOT_SIMPLE;
          out[key] = list;
        } else if (next !== undefined && next > indent) {
          const child = this.mapping(next, depth + 1);
          if (child === NOT_SIMPLE) return NOT_SIMPLE;
          out[key] = child;
        } else out[key] = null;
      } else {
        if (text.charCodeAt(i) !== 32) return NOT_SIMPLE;
        while (text.charCodeAt(i) === 32) i++;
        const c = text.charCodeAt(i);
        // `key: >` or `key: |` alone: a block scalar on the lines below.
        const block = i + 1 === lineEnd && (c === 62 || c === 124);
        this.keyValue = true;
        const value = block ? this.blockScalar(indent, c === 62) : this.lineValue(i, lineEnd);
        this.keyValue = false;
        if (value === NOT_SIMPLE) return NOT_SIMPLE;
        out[key] = value;
      }
      const next = this.nextContentLine();
      if (next === NOT_SIMPLE) return NOT_SIMPLE;
      if (next === undefined || next < indent) return out;
      if (next !== indent) return NOT_SIMPLE;
    }
  }

  /**
   * A block sequence whose `- ` sits at `indent`, `depth` levels deep; pos at the start of
   * its first line. Each item is on its dash's line: a mapping (`- id: ada`, its further
   * keys below, aligned with the first) or a one-line value. It ends at a line less deep,
   * or as deep without a dash (the next key of a mapping the sequence is not indented in).
   */
  private sequence(indent: number, depth: number): unknown[] | typeof NOT_SIMPLE {
    if (depth > MAX_YAML_NESTING) return NOT_SIMPLE;
    const { text } = this;
    const out: unknown[] = [];
    const starts: number[] = [];
    for (;;) {
      let i = this.pos + indent + 2;
      while (text.charCodeAt(i) === 32) i++;
      const nl = text.indexOf('\n', i);
      const lineEnd = nl === -1 ? text.length : nl;
      // `-` alone (the item on the lines below) or with only spaces: the full parser's.
      if (i === lineEnd) return NOT_SIMPLE;
      starts.push(i);
      if (this.startsMapping(i, lineEnd)) {
        const item = this.mapping(i - this.pos, depth + 1);
        if (item === NOT_SIMPLE) return NOT_SIMPLE;
        out.push(item);
      } else {
        const value = this.lineValue(i, lineEnd);
        if (value === NOT_SIMPLE) return NOT_SIMPLE;
        out.push(value);
        this.pos = nl === -1 ? text.length : nl + 1;
      }
      const next = this.nextContentLine();
      if (next === NOT_SIMPLE) return NOT_SIMPLE;
      // A deeper line continues the last item's value: a multi-line scalar, not simple.
      if (next !== undefined && next > indent) return NOT_SIMPLE;
      // The line that ends the sequence is its parent mapping's to judge.
      if (next === undefined || next < indent || !this.dashAt(indent)) break;
    }
    const list = out.slice(); // exact size: a pushed-to array keeps spare room
    this.items?.set(list, starts);
    return list;
  }

  /** Whether the current line holds `- ` at `indent` (a block sequence item). */
  private dashAt(indent: number): boolean {
    const at = this.pos + indent;
    return this.text.charCodeAt(at) === 45 /* - */ && this.text.charCodeAt(at + 1) === 32;
  }

  /** Whether `key:` (a simple key, then a space or the end of the line) starts at `start`. */
  private startsMapping(start: number, end: number): boolean {
    const { text } = this;
    if (!keyHead(text.charCodeAt(start))) return false;
    let i = start + 1;
    while (keyChar(text.charCodeAt(i))) i++;
    return text.charCodeAt(i) === 58 && (i + 1 === end || text.charCodeAt(i + 1) === 32);
  }

  /**
   * A block scalar, `>` (folded) or `|` (literal), with no indicator after it; pos at the
   * start of the line below its key, whose mapping sits at `parent`. Taken when its lines
   * all sit at the indentation of its first line, which is deeper than `parent` and not
   * blank, with blank lines (empty, or spaces no deeper) between them; its value is its
   * lines joined (folded: by a space, or by a line break per blank line between; literal:
   * by line breaks) and one final line break (none when its last line ends the text, as
   * `parseYaml` reads it). A deeper line (folding keeps its break), a
   * blank first line, a tab or a character YAML reads specially is the full parser's.
   */
  private blockScalar(parent: number, folded: boolean): unknown {
    const { text } = this;
    let n = -1;
    let value = '';
    /** Blank lines since the last content line. */
    let blanks = 0;
    let lines = 0;
    /** Whether the last line read ends the text (no line break after it). */
    let atEnd = false;
    while (this.pos < text.length) {
      let i = this.pos;
      while (text.charCodeAt(i) === 32) i++;
      const nl = text.indexOf('\n', i);
      const lineEnd = nl === -1 ? text.length : nl;
      if (i === lineEnd) {
        // A blank line: within the scalar when no deeper than it (trailing ones are dropped).
        if (n === -1 || i - this.pos > n) return NOT_SIMPLE;
        blanks++;
        this.pos = nl === -1 ? text.length : nl + 1;
        continue;
      }
      const depth = i - this.pos;
      if (n === -1) {
        if (depth <= parent) return NOT_SIMPLE;
        n = depth;
      }
      if (depth < n) break; // the line after the scalar: its parent's to read
      if (depth > n) return NOT_SIMPLE;
      for (let j = i; j < lineEnd; j++) if (!commentChar(text.charCodeAt(j))) return NOT_SIMPLE;
      const line = this.copy(i, lineEnd);
      if (lines > 0) value += folded && blanks === 0 ? ' ' : '\n'.repeat(folded ? blanks : blanks + 1);
      value += line;
      lines++;
      blanks = 0;
      atEnd = nl === -1;
      this.pos = nl === -1 ? text.length : nl + 1;
    }
    if (lines === 0) return NOT_SIMPLE;
    // Its last line ends the file with no line break: so does its value (as the core's
    // parse reads it, as PyYAML does).
    return atEnd ? value : `${value}\n`;
  }

  /** A value that fills the rest of its line: a flow sequence, a flow mapping or a plain scalar. */
  private lineValue(start: number, end: number): unknown {
    const c = this.text.charCodeAt(start);
    if (c === 91 /* [ */) return this.flow(start, end);
    if (c === 123 /* { */) return this.flowMapping(start, end);
    if (c === 34 /* " */) return this.doubleQuoted(start, end);
    return this.scalar(start, end);
  }

  /**
   * A double-quoted scalar that fills the rest of its line, of printable ASCII whose only
   * escapes are `\\` and `\"` (what a lenient frontmatter's quoting writes: a description
   * holding `: `). Any other escape, a character outside printable ASCII, or text after
   * the closing quote is left to the full parser.
   */
  private doubleQuoted(start: number, end: number): unknown {
    const { text } = this;
    const close = end - 1;
    if (close <= start || text.charCodeAt(close) !== 34) return NOT_SIMPLE;
    let out = '';
    let from = start + 1;
    for (let j = start + 1; j < close; j++) {
      const c = text.charCodeAt(j);
      if (c === 34 || c < 32 || c > 126) return NOT_SIMPLE;
      if (c !== 92 /* \ */) continue;
      const escaped = text.charCodeAt(j + 1);
      if (j + 1 >= close || (escaped !== 92 && escaped !== 34)) return NOT_SIMPLE;
      out += this.copy(from, j);
      from = j + 1; // the escaped character is kept as it is
      j++;
    }
    return this.share(out + this.copy(from, close));
  }

  /** A plain one-line scalar in block context, from `start` to the end of its line. */
  private scalar(start: number, end: number): unknown {
    const { text } = this;
    if (end === start || text.charCodeAt(end - 1) === 32) return NOT_SIMPLE;
    const first = text.charCodeAt(start);
    if (first >= 48 && first <= 57) return this.number(start, end);
    if (!letter(first)) return NOT_SIMPLE;
    for (let j = start + 1; j < end; j++) {
      const c = text.charCodeAt(j);
      if (!blockChar(c)) return NOT_SIMPLE;
      // `: ` starts a mapping, ` #` a comment; a final `:` is a key.
      if (c === 58 && (j === end - 1 || text.charCodeAt(j + 1) === 32)) {
        if (!this.judging || !this.keyValue || j === end - 1) return NOT_SIMPLE;
        this.colonInValue = true;
      }
      if (c === 35) return NOT_SIMPLE;
    }
    const word = this.copy(start, end);
    const special = SPECIAL_WORDS.get(word);
    if (special !== undefined) return special.value;
    if (PYYAML_WORDS.has(word)) return NOT_SIMPLE;
    return this.share(word);
  }

  /**
   * Decimal integers and fractions of at most 15 digits each side (exact as doubles), and
   * dotted versions (`0.18.0`, `1.2.3.4`: more than one dot, which no number of the core
   * schema has, so text).
   */
  private number(start: number, end: number): unknown {
    const word = this.text.slice(start, end);
    // `017` is 17 to the core schema, 15 (octal) to PyYAML; `08` is 8, and text to PyYAML.
    if (/^[0-9]{1,15}(\.[0-9]{1,15})?$/.test(word) && !/^0[0-9]+$/.test(word)) return Number(word);
    return /^[0-9]+(?:\.[0-9]+){2,}$/.test(word) ? this.share(this.copy(start, end)) : NOT_SIMPLE;
  }

  /** A one-line flow sequence of plain strings: `[a, b c]`, `[]`. */
  private flow(start: number, end: number): unknown {
    const { text } = this;
    if (text.charCodeAt(end - 1) !== 93 /* ] */) return NOT_SIMPLE;
    const out: unknown[] = [];
    let i = start + 1;
    const close = end - 1;
    while (text.charCodeAt(i) === 32) i++;
    if (i === close) return out;
    for (;;) {
      const itemStart = i;
      if (!letter(text.charCodeAt(i))) return NOT_SIMPLE;
      i++;
      while (i < close && flowChar(text.charCodeAt(i))) i++;
      let itemEnd = i;
      while (itemEnd > itemStart && text.charCodeAt(itemEnd - 1) === 32) itemEnd--;
      const word = this.copy(itemStart, itemEnd);
      // A word of the core schema (null, true, …) or with `: `, ` #` inside: not simple.
      if (typedWord(word) || word.includes(': ') || word.includes(' #')) return NOT_SIMPLE;
      if (word.endsWith(':')) return NOT_SIMPLE;
      out.push(this.share(word));
      if (i === close) return out.slice(); // exact size: a pushed-to array keeps spare room
      if (text.charCodeAt(i) !== 44 /* , */) return NOT_SIMPLE;
      i++;
      if (text.charCodeAt(i) !== 32) return NOT_SIMPLE;
      while (text.charCodeAt(i) === 32) i++;
      if (i === close) return NOT_SIMPLE;
    }
  }

  /**
   * A one-line flow mapping of simple keys and plain values (`{ temperature: 0.2, model:
   * fast }`, `{}`): each pair `key: value`, pairs separated by `, `.
   */
  private flowMapping(start: number, end: number): unknown {
    const { text } = this;
    if (text.charCodeAt(end - 1) !== 125 /* } */) return NOT_SIMPLE;
    const out: Record<string, unknown> = {};
    let i = start + 1;
    const close = end - 1;
    while (text.charCodeAt(i) === 32) i++;
    if (i === close) return out;
    for (;;) {
      const keyStart = i;
      if (!keyHead(text.charCodeAt(i))) return NOT_SIMPLE;
      i++;
      while (keyChar(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) !== 58 || text.charCodeAt(i + 1) !== 32) return NOT_SIMPLE;
      const key = text.slice(keyStart, i);
      if (key === '__proto__' || typedWord(key) || Object.hasOwn(out, key)) return NOT_SIMPLE;
      i += 2;
      while (text.charCodeAt(i) === 32) i++;
      const valueStart = i;
      while (i < close && text.charCodeAt(i) !== 44 /* , */) i++;
      let valueEnd = i;
      while (valueEnd > valueStart && text.charCodeAt(valueEnd - 1) === 32) valueEnd--;
      const value = this.flowScalar(valueStart, valueEnd);
      if (value === NOT_SIMPLE) return NOT_SIMPLE;
      out[key] = value;
      if (i === close) return out;
      i++;
      if (text.charCodeAt(i) !== 32) return NOT_SIMPLE;
      while (text.charCodeAt(i) === 32) i++;
      if (i === close) return NOT_SIMPLE;
    }
  }

  /** A plain scalar inside a flow collection: a small number, a word of the core schema or text. */
  private flowScalar(start: number, end: number): unknown {
    const { text } = this;
    if (end === start) return NOT_SIMPLE;
    const first = text.charCodeAt(start);
    if (first >= 48 && first <= 57) return this.number(start, end);
    if (!letter(first)) return NOT_SIMPLE;
    for (let j = start + 1; j < end; j++) if (!flowChar(text.charCodeAt(j))) return NOT_SIMPLE;
    const word = this.copy(start, end);
    const special = SPECIAL_WORDS.get(word);
    if (special !== undefined) return special.value;
    if (PYYAML_WORDS.has(word)) return NOT_SIMPLE;
    return this.share(word);
  }

  /** A value's characters, as a string of their own (not a view of the text) when long. */
  private copy(start: number, end: number): string {
    return this.bytes && end - start >= SLICE_MIN
      ? this.bytes.toString('latin1', start, end)
      : this.text.slice(start, end);
  }

  private share(word: string): string {
    if (word.length > INTERN_MAX) return word;
    const known = this.intern.get(word);
    if (known !== undefined) return known;
    if (this.intern.size < INTERN_ENTRIES) this.intern.set(word, word);
    return word;
  }
}

/**
 * The same object with the same keys in the same order, in dictionary mode: adding
 * thousands of keys (a registry of roles) to an object one by one otherwise makes the
 * engine build a new object shape for each key.
 */
function largeObject(from: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Deleting a key other than the last one added turns the object into a dictionary.
  out['\0a'] = 0;
  out['\0b'] = 0;
  delete out['\0a'];
  delete out['\0b'];
  for (const key of Object.keys(from)) out[key] = from[key];
  return out;
}

/** Plain words the core schema reads as something other than a string. */
const SPECIAL_WORDS = new Map<string, { value: unknown }>([
  ...['null', 'Null', 'NULL'].map((w) => [w, { value: null }] as const),
  ...['true', 'True', 'TRUE'].map((w) => [w, { value: true }] as const),
  ...['false', 'False', 'FALSE'].map((w) => [w, { value: false }] as const),
]);

/**
 * Plain words PyYAML types (YAML 1.1's booleans) where the core schema reads text: the
 * full parser reads them (see yaml-pyyaml-scalars.ts), so that a value read here is both
 * readings.
 */
const PYYAML_WORDS = new Set(['yes', 'Yes', 'YES', 'no', 'No', 'NO', 'on', 'On', 'ON', 'off', 'Off', 'OFF']);

/** A plain word that is no string to the core schema or to PyYAML. */
function typedWord(word: string): boolean {
  return SPECIAL_WORDS.has(word) || PYYAML_WORDS.has(word);
}

function letter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function keyHead(c: number): boolean {
  return letter(c) || c === 95;
}

function keyChar(c: number): boolean {
  return letter(c) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/**
 * Characters a simple plain scalar may hold after its first (printable, no line breaks;
 * in block context `[]{}` are text: `goal: Find what matters about {topic}`).
 */
function blockChar(c: number): boolean {
  if (c >= 32 && c <= 126) return true;
  return wideChar(c);
}

/** In a flow collection: no flow indicators. */
function flowSafe(c: number): boolean {
  return blockChar(c) && c !== 91 && c !== 93 && c !== 123 && c !== 125;
}

/** In a flow sequence: no flow indicators, no `#`. */
function flowChar(c: number): boolean {
  return flowSafe(c) && c !== 44 && c !== 35 && c !== 58;
}

function commentChar(c: number): boolean {
  return (c >= 32 && c <= 126) || wideChar(c);
}

/** Beyond ASCII: printable characters of the basic plane that no YAML reader treats specially. */
function wideChar(c: number): boolean {
  return (
    c >= 0xa0 && (c < 0xd800 || c > 0xdfff) && c !== 0xfeff && c !== 0x2028 && c !== 0x2029 && c < 0xfffe
  );
}

/** {@link parseSimpleYaml} as the core's YAML parse takes a faster reader (`ParseYamlOptions.fast`). */
export const fastYaml: FastYaml = Object.assign(
  (text: string, bytes?: Uint8Array) => {
    const items = new WeakMap<readonly unknown[], readonly number[]>();
    const value = parseSimpleYaml(text, bytes, items);
    return value === NOT_SIMPLE ? undefined : { value, items };
  },
  { judge: judgeSimpleYaml },
);

/**
 * {@link fastYaml}'s reading, or `'refused'` for text {@link simpleYamlFails} judges
 * refused, in one pass.
 */
function judgeSimpleYaml(text: string): ReturnType<typeof fastYaml> | 'refused' {
  const items = new WeakMap<readonly unknown[], readonly number[]>();
  const parser = new SimpleParser(text, undefined, items, true);
  const value = parser.document();
  if (value === NOT_SIMPLE) return undefined;
  return parser.colonInValue ? 'refused' : { value, items };
}

/**
 * True when the text is of the simple shapes but for mapping values that hold `: `
 * (`description: Use it for: reviews`): YAML allows no mapping as a plain value on its
 * key's line, so the full parser certainly refuses such text (`Nested mappings are not
 * allowed in compact mappings`). False for anything else, including text it cannot judge.
 *
 * @example
 * simpleYamlFails('name: a\ndescription: Use it for: reviews\n'); // true
 * simpleYamlFails('name: a\n'); // false: it parses
 */
export function simpleYamlFails(text: string): boolean {
  const parser = new SimpleParser(text, undefined, undefined, true);
  return parser.document() !== NOT_SIMPLE && parser.colonInValue;
}
