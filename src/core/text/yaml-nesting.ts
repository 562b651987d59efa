import type { CST } from 'yaml';

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
