import type { CST, Lexer, Parser } from 'yaml';

/**
 * How deep collections may nest in any YAML strata reads (manifest, registry, fleet,
 * frontmatter): a mapping or list inside this many others is the deepest taken. Deeper
 * text is refused before it is composed, with a plain message at the first collection
 * past the limit, instead of exhausting the stack (or the memory) of the process.
 */
export const MAX_YAML_NESTING = 100;

/** The message for text nested past {@link MAX_YAML_NESTING}. */
export const TOO_DEEP_MESSAGE = `nested deeper than ${MAX_YAML_NESTING} levels (the most a YAML file may nest)`;

/**
 * The CST tokens of `text`, read by `parser` from `lexer`'s lexemes, or the offset of the
 * first collection nested deeper than {@link MAX_YAML_NESTING}. The parser's stack (the open
 * collections, outermost first) is checked after each lexeme, so text nested too deep
 * costs the parse of its first levels only, not a token (and about a kilobyte of parser
 * state) for every level of it: a megabyte of `[` took seconds and a gigabyte of memory.
 * Text within the limit is checked whole by {@link tooDeepAt}.
 *
 * @example
 * parseTokens('['.repeat(1_000_000), new Lexer(), new Parser()); // 100, read to the 101st `[`
 */
export function parseTokens(text: string, lexer: Lexer, parser: Parser): CST.Token[] | number {
  const tokens: CST.Token[] = [];
  for (const lexeme of lexer.lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > MAX_YAML_NESTING) {
      const deep = tooDeepInStack(parser.stack);
      if (deep !== undefined) return deep;
    }
  }
  for (const token of parser.end()) tokens.push(token);
  return tooDeepAt(tokens) ?? tokens;
}

/**
 * The offset of the first collection (block or flow mapping or sequence) nested deeper than
 * {@link MAX_YAML_NESTING} in parsed CST tokens, or undefined when none is. Walks the tokens
 * with an explicit stack: the depth of the text costs no call stack.
 *
 * @example
 * const tokens = Array.from(new Parser().parse('['.repeat(200)));
 * tooDeepAt(tokens); // 100: the 101st `[`
 */
export function tooDeepAt(tokens: readonly CST.Token[]): number | undefined {
  let first: number | undefined;
  const stack: Array<{ token: CST.Token; depth: number }> = [];
  for (const token of tokens) stack.push({ token, depth: 0 });
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    switch (token.type) {
      case 'document':
        if (token.value) stack.push({ token: token.value, depth });
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        if (depth + 1 > MAX_YAML_NESTING) {
          if (first === undefined || token.offset < first) first = token.offset;
          break;
        }
        for (const item of token.items) {
          if (item.key) stack.push({ token: item.key, depth: depth + 1 });
          if (item.value) stack.push({ token: item.value, depth: depth + 1 });
        }
        break;
      }
      default:
        break;
    }
  }
  return first;
}

// --- internal ---

/** The offset of the collection past the limit among a parser's open tokens, if one is. */
function tooDeepInStack(stack: readonly CST.Token[]): number | undefined {
  let depth = 0;
  for (const token of stack) {
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection')
      continue;
    if (++depth > MAX_YAML_NESTING) return token.offset;
  }
  return undefined;
}
