import { type Diagnostic, error, warning } from './diagnostics.js';
import { type FastYaml, type ParsedYaml, parseYaml } from './yaml.js';
import type { AliasBudget } from './yaml-aliases.js';

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
 * Splits YAML frontmatter from a decoded file (docs/pack-format.md, "Files"): a file
 * whose first line is exactly `---` has frontmatter up to the next line that is exactly
 * `---`. Errors carry the file's own line numbers.
 */
export function splitFrontmatter(
  text: string,
  file: string,
  fast?: FastYaml,
  aliases?: AliasBudget,
): SplitFile {
  if (!text.startsWith('---\n') && text !== '---') {
    // `--- ` (an editor's trailing white space) opens no frontmatter: the YAML under it
    // would reach the agent as prompt text, so it is said.
    const spaced = /^---[ \t]+(?:\n|$)/.exec(text);
    // TOML frontmatter (`+++` … `+++`, as Hugo writes it) is not read: its lines would be
    // prompt text without a word.
    const toml = !spaced && /^\+\+\+[ \t]*\n(?:.*\n)*?\+\+\+[ \t]*(?:\n|$)/.test(text);
    const diagnostics = spaced
      ? [
          warning(
            'BAD_FRONTMATTER',
            'frontmatter is not read: the opening line is `---` followed by white space; it must be exactly `---`, so the lines under it are prompt text',
            { file, line: 1, col: 4 },
          ),
        ]
      : toml
        ? [
            warning(
              'BAD_FRONTMATTER',
              'frontmatter is not read: `+++` opens TOML frontmatter, which strata does not read, so the lines between the `+++` lines are prompt text; write it as YAML between `---` lines',
              { file, line: 1, col: 1 },
            ),
          ]
        : [];
    return { meta: {}, body: text, bodyOffset: 0, diagnostics };
  }
  const close = findClosingLine(text);
  if (close === undefined) {
    const dots = /^\.\.\.[ \t]*$/m.exec(text);
    const marker = dots
      ? ` (the \`...\` on line ${1 + (text.slice(0, dots.index).match(/\n/g)?.length ?? 0)} does not close it)`
      : '';
    return {
      meta: {},
      body: '',
      bodyOffset: text.length,
      diagnostics: [
        error('BAD_FRONTMATTER', `frontmatter opened on line 1 is never closed by a \`---\` line${marker}`, {
          file,
          line: 1,
          col: 1,
        }),
      ],
    };
  }
  const yamlText = text.slice(4, close.start);
  const yaml = parseYaml(yamlText, { file, lineOffset: 1, syntaxCode: 'BAD_FRONTMATTER', fast, aliases });
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
    if (lineEnd - pos === 3 && text.startsWith('---', pos))
      return { start: pos, end: nl === -1 ? lineEnd : nl + 1 };
    if (nl === -1) return undefined;
    pos = nl + 1;
  }
  return undefined;
}

/**
 * Splits frontmatter the lenient way (`frontmatter: lenient`): the text between a first
 * line `---` and the next `---` (pattern `^---\s*\n([\s\S]*?)---\s*\n?`). When its YAML
 * does not parse, every `key: value` line whose unquoted value holds a YAML-special
 * character is double-quoted and the YAML is parsed again. Frontmatter that still does not
 * parse, or is not a mapping, gives no metadata and a BAD_FRONTMATTER warning.
 */
export function splitFrontmatterLenient(
  text: string,
  file: string,
  fast?: FastYaml,
  aliases?: AliasBudget,
): SplitFile & { retried?: boolean } {
  const match = LENIENT_RE.exec(text);
  if (!match) return { meta: {}, body: text, bodyOffset: 0, diagnostics: unreadFence(text, file) };
  const yamlText = match[1] ?? '';
  const yamlStart = match.indices?.[1]?.[0] ?? 4;
  const lineOffset = (text.slice(0, yamlStart).match(/\n/g) ?? []).length;
  const bodyOffset = match[0].length;
  const options = { file, lineOffset, syntaxCode: 'BAD_FRONTMATTER' as const, fast, aliases };
  // Text the fast reader knows the full parse refuses (a description holding `: `, as
  // many agent files are written) is quoted at once; its first parse is made only for
  // its message, when the quoted text fails too.
  const judged = fast?.judge?.(yamlText);
  // What the judge read is the fast reader's reading (nothing read: the full parser's).
  const reader = judged === undefined || judged === 'refused' ? undefined : () => judged;
  const first = judged === 'refused' ? undefined : parseYaml(yamlText, { ...options, fast: reader });
  // Aliases past the pack's limit are the pack's error, not values to read quoted.
  if (first?.overPack)
    return { meta: {}, body: text.slice(bodyOffset), bodyOffset, diagnostics: first.diagnostics };
  const read = first !== undefined && first.diagnostics.length === 0;
  const yaml = read ? first : parseYaml(quoteSpecialValues(yamlText), options);
  const retried = !read;
  const out: SplitFile & { retried?: boolean } = {
    meta: {},
    body: text.slice(bodyOffset),
    bodyOffset,
    diagnostics: [],
  };
  if (retried) out.retried = true;
  if (yaml.diagnostics.length > 0) {
    const d = (first ?? parseYaml(yamlText, options)).diagnostics[0]!;
    // The quoting pattern ends at the line's end, so a CRLF line is never quoted.
    const crlf = yamlText.includes('\r\n') ? ', which skips lines ending in CRLF' : '';
    out.diagnostics.push(
      warning('BAD_FRONTMATTER', `${d.message} (also with values quoted${crlf}); the file has no metadata`, {
        file,
        line: d.line,
        col: d.col,
      }),
    );
    return out;
  }
  out.yaml = yaml;
  const v = yaml.value;
  if (v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v))
    out.meta = v as Record<string, unknown>;
  else if (v !== null && v !== undefined)
    out.diagnostics.push(
      warning('BAD_FRONTMATTER', 'frontmatter is not a YAML mapping; the file has no metadata', {
        file,
        line: lineOffset + 1,
        col: 1,
      }),
    );
  return out;
}

const LENIENT_RE = /^---\s*\n([\s\S]*?)---\s*\n?/d;
/** A `---` line after a byte order mark or white space at the start of a file. */
const MISPLACED_RE = /^(\uFEFF?)(\s*)---\s*\n/;

/**
 * A BAD_FRONTMATTER warning for a file that opens frontmatter the lenient pattern does not
 * find: its first line `---` never closed by a later `---` (a YAML `...` end marker does
 * not close it), ended by a lone carriage return (the pattern needs a line feed), or
 * coming after a byte order mark or blank lines. It looks like frontmatter, but the file
 * has no metadata (an agent file saved so is no agent); the file's text is unchanged.
 */
function unreadFence(text: string, file: string): Diagnostic[] {
  const loneCr = /^---[^\S\r\n]*\r(?!\n)/.exec(text);
  if (loneCr)
    return [
      warning(
        'BAD_FRONTMATTER',
        'frontmatter is not read: the opening `---` line ends in a carriage return without a line feed, and a line feed must follow it; the file has no metadata',
        { file, line: 1, col: loneCr[0].length },
      ),
    ];
  if (/^---\s*\n/.test(text)) {
    const dots = /^\.\.\.[^\S\n]*$/m.exec(text);
    const marker = dots
      ? ` (the \`...\` on line ${1 + (text.slice(0, dots.index).match(/\n/g)?.length ?? 0)} does not close it)`
      : '';
    return [
      warning(
        'BAD_FRONTMATTER',
        `frontmatter opened on line 1 is never closed by a \`---\` line${marker}; the file has no metadata`,
        { file, line: 1, col: 1 },
      ),
    ];
  }
  const m = MISPLACED_RE.exec(text);
  if (!m || (m[1] === '' && m[2] === '')) return [];
  const before = m[1] !== '' ? 'a byte order mark' : 'white space';
  const line = 1 + (m[2]!.match(/\n/g)?.length ?? 0);
  return [
    warning(
      'BAD_FRONTMATTER',
      `frontmatter is not read: ${before} comes before the opening \`---\` line, which must start the file; the file has no metadata`,
      { file, line, col: 1 },
    ),
  ];
}
const SPECIAL = /[{}[\]*&#!|>%@`]|: /;

/** `key: value` lines (not indented) whose unquoted value holds a YAML-special character, double-quoted. */
function quoteSpecialValues(yaml: string): string {
  return yaml
    .split('\n')
    .map((line) => {
      const m = /^([a-zA-Z_-]+):\s+(.+)$/.exec(line);
      if (!m) return line;
      const [, key, value] = m as unknown as [string, string, string];
      const quoted =
        (value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"));
      if (quoted || !SPECIAL.test(value)) return line;
      return `${key}: "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join('\n');
}
