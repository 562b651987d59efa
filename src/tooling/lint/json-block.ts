import { type Diagnostic, error } from '../../core/text/diagnostics.js';
import { findJsonError } from './json-check.js';

/**
 * Checks every fenced ```` ```json ```` block of a text: each must hold one valid JSON
 * value (default instructions carry message shapes that agents copy). Lines are the
 * file's own. Fences may be indented (lists, YAML block scalars); a block that is never
 * closed is an error too.
 *
 * @example
 * jsonBlockDiagnostics('x.md', '```json\n{"a": 1,}\n```\n'); // JSON_BLOCK at x.md:2:8
 */
export function jsonBlockDiagnostics(file: string, text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const open = FENCE_RE.exec(lines[i]!);
    if (!open) {
      i++;
      continue;
    }
    const fence = open[2]!;
    const isJson = open[3]!.trim().split(/\s+/)[0]!.toLowerCase() === 'json';
    const startLine = i + 1;
    let close = -1;
    for (let j = i + 1; j < lines.length; j++) {
      const m = FENCE_RE.exec(lines[j]!);
      if (m && m[2]![0] === fence[0] && m[2]!.length >= fence.length && m[3]!.trim() === '') {
        close = j;
        break;
      }
    }
    if (isJson) {
      if (close === -1) {
        out.push(
          error('JSON_BLOCK', `the json block opened here is never closed`, {
            file,
            line: startLine,
            col: 1,
          }),
        );
      } else {
        const body = lines.slice(i + 1, close);
        const found = findJsonError(body.join('\n'));
        if (found) {
          const { line, col } = position(body, found.offset);
          out.push(
            error('JSON_BLOCK', `json block does not parse: ${found.message}`, {
              file,
              line: startLine + line,
              col,
            }),
          );
        }
      }
    }
    i = close === -1 ? lines.length : close + 1;
  }
  return out;
}

// --- internal ---

/** An opening or closing fence: indentation, three or more backticks or tildes, info string. */
const FENCE_RE = /^(\s*)(`{3,}|~{3,})([^`]*)$/;

/** 1-based line (within the block) and column of an offset into the block's joined lines. */
function position(lines: string[], offset: number): { line: number; col: number } {
  let rest = offset;
  for (let k = 0; k < lines.length; k++) {
    const len = lines[k]!.length;
    if (rest <= len) return { line: k + 1, col: rest + 1 };
    rest -= len + 1;
  }
  const last = lines.length === 0 ? 0 : lines.length - 1;
  return { line: last + 1, col: (lines[last]?.length ?? 0) + 1 };
}
