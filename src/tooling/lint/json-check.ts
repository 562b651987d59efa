/**
 * Locates the first syntax error of a JSON text (RFC 8259). `JSON.parse` does not always
 * say where it failed, so this small scanner does: it returns the character offset and a
 * short reason, or undefined when the text is valid JSON.
 */
export function findJsonError(text: string): { offset: number; message: string } | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    // Fall through to the scanner, which knows where.
  }
  const scanner = new Scanner(text);
  try {
    scanner.ws();
    scanner.value();
    scanner.ws();
    if (scanner.pos < text.length) scanner.fail('unexpected text after the JSON value');
  } catch (e) {
    if (e instanceof JsonSyntax) return { offset: e.offset, message: e.message };
    throw e;
  }
  return { offset: 0, message: 'invalid JSON' };
}

// --- internal ---

class JsonSyntax extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const MAX_DEPTH = 512;

class Scanner {
  pos = 0;
  private depth = 0;
  constructor(private readonly text: string) {}

  fail(message: string, at = this.pos): never {
    throw new JsonSyntax(message, Math.min(at, this.text.length));
  }

  ws(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos++;
  }

  value(): void {
    const ch = this.text[this.pos];
    if (ch === undefined) this.fail('unexpected end of JSON; expected a value');
    if (ch === '{' || ch === '[') {
      this.container(ch === '{' ? '}' : ']', ch === '{');
      return;
    }
    if (ch === '"') {
      this.string();
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return;
      }
    }
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(this.text);
    if (m && m[0].length > 0 && m[0] !== '-') {
      this.pos += m[0].length;
      return;
    }
    this.fail(`unexpected ${JSON.stringify(ch)}; expected a value`);
  }

  private container(close: string, object: boolean): void {
    if (++this.depth > MAX_DEPTH) this.fail('JSON nested too deeply');
    this.pos++;
    this.ws();
    if (this.text[this.pos] === close) {
      this.pos++;
      this.depth--;
      return;
    }
    for (;;) {
      if (object) {
        if (this.text[this.pos] !== '"') this.fail('expected a double-quoted property name');
        this.string();
        this.ws();
        if (this.text[this.pos] !== ':') this.fail("expected ':' after the property name");
        this.pos++;
        this.ws();
      }
      this.value();
      this.ws();
      const ch = this.text[this.pos];
      if (ch === ',') {
        this.pos++;
        this.ws();
        if (this.text[this.pos] === close) this.fail(`trailing comma before '${close}'`);
        continue;
      }
      if (ch === close) {
        this.pos++;
        this.depth--;
        return;
      }
      this.fail(
        ch === undefined
          ? `unexpected end of JSON; expected ',' or '${close}'`
          : `expected ',' or '${close}'`,
      );
    }
  }

  private string(): void {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos]!;
      if (ch === '"') {
        this.pos++;
        return;
      }
      if (ch === '\\') {
        const next = this.text[this.pos + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6)))
            this.fail('bad \\u escape');
          this.pos += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) this.fail('bad escape in string');
        this.pos += 2;
        continue;
      }
      if (ch.charCodeAt(0) < 0x20) this.fail('control character (e.g. a raw newline) in string');
      this.pos++;
    }
    this.fail('unterminated string', start);
  }
}
