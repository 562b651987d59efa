/**
 * `JSON.parse(text)` for a request body, with each string that holds no escape taken as
 * a slice of `text` (which V8 keeps as a view of it) instead of a copy: a body's long
 * member (a compose request's `ambient`, up to the whole body) is not held twice. The
 * value is the one JSON.parse gives — same members, order, numbers, `__proto__` as an own
 * member — and anything this parser does not take (invalid JSON, deep nesting) goes to
 * JSON.parse itself, so errors are JSON.parse's own `SyntaxError`s.
 *
 * @example
 * parseJson('{"role":"developer","ambient":"…64 KB…"}').ambient; // a slice of the text
 */
export function parseJson(text: string): unknown {
  const value = new SliceParser(text).document();
  return value === FAIL ? JSON.parse(text) : value;
}

// --- internal ---

/** What the parser answers for anything it does not take (JSON.parse decides then). */
const FAIL: unique symbol = Symbol('fail');
type Parsed = unknown;
/** Deeper documents go to JSON.parse (no deep recursion here). */
const MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** JSON whitespace, from `lastIndex`. */
const SPACE = /[ \t\n\r]*/y;
/** A string's characters up to its first quote, backslash or control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings may not hold raw control characters
const PLAIN = /[^"\\\u0000-\u001f]*/y;
/** One escape, after its backslash. */
const ESCAPE = /["\\/bfnrt]|u[0-9a-fA-F]{4}/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class SliceParser {
  #at = 0;
  constructor(readonly text: string) {}

  document(): Parsed {
    const value = this.#value(0);
    if (value === FAIL) return FAIL;
    this.#space();
    return this.#at === this.text.length ? value : FAIL;
  }

  #value(depth: number): Parsed {
    this.#space();
    switch (this.text.charCodeAt(this.#at)) {
      case 0x7b: // {
        return depth < MAX_DEPTH ? this.#object(depth + 1) : FAIL;
      case 0x5b: // [
        return depth < MAX_DEPTH ? this.#array(depth + 1) : FAIL;
      case QUOTE:
        return this.#string();
      case 0x74: // t
        return this.#word('true', true);
      case 0x66: // f
        return this.#word('false', false);
      case 0x6e: // n
        return this.#word('null', null);
      default:
        return this.#number();
    }
  }

  #object(depth: number): Parsed {
    const object: Record<string, unknown> = {};
    this.#at++;
    this.#space();
    if (this.text.charCodeAt(this.#at) === 0x7d) {
      this.#at++;
      return object;
    }
    for (;;) {
      this.#space();
      if (this.text.charCodeAt(this.#at) !== QUOTE) return FAIL;
      const key = this.#string();
      if (key === FAIL) return FAIL;
      this.#space();
      if (this.text.charCodeAt(this.#at) !== 0x3a) return FAIL; // :
      this.#at++;
      const value = this.#value(depth);
      if (value === FAIL) return FAIL;
      // As JSON.parse: an own member, even `__proto__` (assigning it would set the prototype).
      if (key === '__proto__')
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      else object[key] = value;
      this.#space();
      const next = this.text.charCodeAt(this.#at++);
      if (next === 0x7d) return object; // }
      if (next !== 0x2c) return FAIL; // ,
    }
  }

  #array(depth: number): Parsed {
    const array: unknown[] = [];
    this.#at++;
    this.#space();
    if (this.text.charCodeAt(this.#at) === 0x5d) {
      this.#at++;
      return array;
    }
    for (;;) {
      const value = this.#value(depth);
      if (value === FAIL) return FAIL;
      array.push(value);
      this.#space();
      const next = this.text.charCodeAt(this.#at++);
      if (next === 0x5d) return array; // ]
      if (next !== 0x2c) return FAIL; // ,
    }
  }

  /** A string from its opening quote: a slice of the text, or JSON.parse of it when it has escapes. */
  #string(): string | typeof FAIL {
    const { text } = this;
    const start = this.#at + 1;
    let at = skip(PLAIN, text, start);
    if (text.charCodeAt(at) === QUOTE) {
      this.#at = at + 1;
      return text.slice(start, at);
    }
    // Escapes: find the closing quote, checking each escape, then let JSON.parse decode it.
    while (text.charCodeAt(at) === BACKSLASH) {
      ESCAPE.lastIndex = at + 1;
      if (!ESCAPE.test(text)) return FAIL;
      at = skip(PLAIN, text, ESCAPE.lastIndex);
    }
    if (text.charCodeAt(at) !== QUOTE) return FAIL;
    this.#at = at + 1;
    return JSON.parse(text.slice(start - 1, at + 1)) as string;
  }

  #number(): Parsed {
    const from = this.#at;
    const to = skip(NUMBER, this.text, from);
    if (to === from) return FAIL;
    this.#at = to;
    return Number(this.text.slice(from, to));
  }

  #word(word: string, value: boolean | null): Parsed {
    if (!this.text.startsWith(word, this.#at)) return FAIL;
    this.#at += word.length;
    return value;
  }

  #space(): void {
    this.#at = skip(SPACE, this.text, this.#at);
  }
}

/** Where a sticky pattern's match from `at` ends (`at` when it matches nothing). */
function skip(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : at;
}
