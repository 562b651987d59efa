import { type Diagnostic, warning } from '../../core/text/diagnostics.js';
import { closestNames, didYouMean, knownList } from '../../core/text/suggest.js';
import { LineIndex } from '../../core/text/text.js';
import type { LintCheck } from './lint-check.js';

/**
 * `{{name}}` in the text of a file some member's prompt holds. A file's text is no
 * template (only a layer's `text:` and `append:` are filled), so the braces reach the
 * agent as written: an UNKNOWN_PLACEHOLDER warning at the placeholder's line and column,
 * with the closest setting or input names when no setting or input has that name, and
 * saying the file is not filled when one has. Fenced code blocks, inline code and
 * frontmatter are passed over: a prompt may show template syntax on purpose.
 */
export const filePlaceholders: LintCheck = (ctx) => {
  if (!ctx.snapshot) return [];
  const { settings, inputs } = ctx.snapshot.manifest;
  const known = [...settings.map((s) => s.name), ...inputs.map((i) => i.name)];
  const out: Diagnostic[] = [];
  for (const file of composedFiles(ctx.members)) {
    const text = ctx.texts.get(file);
    if (text === undefined || !text.includes('{{')) continue;
    const lines = new LineIndex(text);
    for (const { name, offset } of placeholdersIn(text)) {
      const at = { file, ...lines.lineCol(offset) };
      const named = known.includes(name) || name.startsWith('role.');
      const message = named
        ? `{{${name}}} is not filled here: a file's text is no template, so the braces reach the agent as written; fill it in a layer's text: or append:`
        : `{{${name}}} is no setting or input, and a file's text is no template: the braces reach the agent as written${didYouMean(closestNames(name, known))}; settings and inputs: ${knownList(known)}`;
      out.push(warning('UNKNOWN_PLACEHOLDER', message, at));
    }
  }
  return out;
};

// --- internal ---

const PLACEHOLDER_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)?)\s*\}\}/g;
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;
const INLINE_CODE_RE = /(`+)[^`]*?\1/g;

/** Every file the composed prompts of the members hold text from (chain parts too). */
function composedFiles(members: Parameters<LintCheck>[0]['members']): Set<string> {
  const files = new Set<string>();
  for (const { outcome } of members) {
    if (!outcome.ok) continue;
    for (const layer of outcome.result.layers) {
      if (!layer.included) continue;
      if (layer.kind === 'file' && layer.source !== undefined) files.add(layer.source);
      for (const part of layer.parts ?? []) if (part.included) files.add(part.source);
    }
  }
  return files;
}

/** `{{name}}` placeholders outside frontmatter, fenced code blocks and inline code, with their offsets. */
function placeholdersIn(text: string): Array<{ name: string; offset: number }> {
  const found: Array<{ name: string; offset: number }> = [];
  let offset = frontmatterEnd(text);
  let fence: string | undefined;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    const line = text.slice(offset, end === -1 ? text.length : end);
    const opening = FENCE_RE.exec(line)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length)
        fence = undefined;
    } else if (opening !== undefined) fence = opening;
    else {
      const prose = line.replace(INLINE_CODE_RE, (code) => ' '.repeat(code.length));
      for (const m of prose.matchAll(PLACEHOLDER_RE)) found.push({ name: m[1]!, offset: offset + m.index });
    }
    if (end === -1) break;
    offset = end + 1;
  }
  return found;
}

/** Where the text after a leading `---` frontmatter block starts (0 without one). */
function frontmatterEnd(text: string): number {
  if (!/^---\r?\n/.test(text)) return 0;
  const close = /\r?\n---[ \t]*(?:\r?\n|$)/g;
  close.lastIndex = 3;
  const m = close.exec(text);
  return m ? m.index + m[0].length : 0;
}
