import { type Diagnostic, error } from './diagnostics.js';
import { type ParsedYaml, parseYaml } from './yaml.js';

/** A prompt file split into its frontmatter metadata and its body. */
export interface SplitFile {
  /** Frontmatter metadata (an empty object when there is none). */
  meta: Record<string, unknown>;
  /** The text after the frontmatter, untrimmed. */
  body: string;
  /** Character offset of the body in the decoded file text. */
  bodyOffset: number;
  /** The parsed frontmatter, to locate metadata values; undefined without frontmatter. */
  yaml?: ParsedYaml;
  diagnostics: Diagnostic[];
}

/**
 * Splits YAML frontmatter from a decoded file (SPEC §2.2): a file whose first line is
 * exactly `---` has frontmatter up to the next line that is exactly `---`. Errors carry
 * the file's own line numbers.
 */
export function splitFrontmatter(text: string, file: string): SplitFile {
  if (!text.startsWith('---\n') && text !== '---') {
    return { meta: {}, body: text, bodyOffset: 0, diagnostics: [] };
  }
  const close = findClosingLine(text);
  if (close === undefined) {
    return {
      meta: {},
      body: '',
      bodyOffset: text.length,
      diagnostics: [
        error('BAD_FRONTMATTER', 'frontmatter opened on line 1 is never closed by a `---` line', {
          file,
          line: 1,
          col: 1,
        }),
      ],
    };
  }
  const yamlText = text.slice(4, close.start);
  const yaml = parseYaml(yamlText, { file, lineOffset: 1, syntaxCode: 'BAD_FRONTMATTER' });
  const diagnostics = [...yaml.diagnostics];
  let meta: Record<string, unknown> = {};
  if (diagnostics.length === 0) {
    if (yaml.value === null || yaml.value === undefined) meta = {};
    else if (typeof yaml.value === 'object' && !Array.isArray(yaml.value))
      meta = yaml.value as Record<string, unknown>;
    else
      diagnostics.push(
        error('BAD_FRONTMATTER', 'frontmatter must be a YAML mapping', { file, line: 2, col: 1 }),
      );
  }
  return { meta, body: text.slice(close.end), bodyOffset: close.end, yaml, diagnostics };
}

// --- internal ---

function findClosingLine(text: string): { start: number; end: number } | undefined {
  let pos = 4;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl === -1 ? text.length : nl;
    if (text.slice(pos, lineEnd) === '---') return { start: pos, end: nl === -1 ? lineEnd : nl + 1 };
    if (nl === -1) return undefined;
    pos = nl + 1;
  }
  return undefined;
}
