import { type Diagnostic, error } from './diagnostics.js';
import { decodeText, LineIndex } from './text.js';

// NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) are line breaks to
// a YAML 1.1 reader (PyYAML), text to a YAML 1.2 one (strata's): `"a\u2028 b"` is `a\u2028b`
// there, `a\u2028 b` here; `"a<NEL>b"` is `a b` there; in a plain or block scalar or a
// comment the next line starts there. Escaped (`\N`, `\L`, `\P`) they are the same to both.

/**
 * The YAML_SYNTAX error of a file read as PyYAML reads it that writes one of those
 * characters as itself (at the first), or undefined: its value would not be PyYAML's.
 */
export function yaml11LineBreak(path: string, bytes: Uint8Array): Diagnostic | undefined {
  if (!hasUnicodeBreak(bytes)) return undefined;
  const text = decodeText(bytes);
  const at = text?.search(/[\u0085\u2028\u2029]/) ?? -1;
  if (text === undefined || at === -1) return undefined;
  const code = text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  return error(
    'YAML_SYNTAX',
    `U+${code} is written here as a character: PyYAML reads it as a line break, strata (YAML 1.2) as text, so the two would read other values; write it as an escape (\\N, \\L or \\P) in a double-quoted string, or leave it out`,
    { file: path, ...new LineIndex(text).lineCol(at) },
  );
}

/** Whether the UTF-8 bytes hold C2 85, E2 80 A8 or E2 80 A9. */
function hasUnicodeBreak(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(0xc2); i !== -1; i = bytes.indexOf(0xc2, i + 1))
    if (bytes[i + 1] === 0x85) return true;
  for (let i = bytes.indexOf(0xe2); i !== -1; i = bytes.indexOf(0xe2, i + 1))
    if (bytes[i + 1] === 0x80 && (bytes[i + 2] === 0xa8 || bytes[i + 2] === 0xa9)) return true;
  return false;
}
