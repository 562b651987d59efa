import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { memPack } from '../helpers.js';

const enc = (text: string) => new TextEncoder().encode(text);
const cat = (...parts: Array<Uint8Array | number[]>) => Uint8Array.from(parts.flatMap((p) => [...p]));
/** Text as UTF-16 LE, with or without its byte order mark. */
const utf16le = (text: string, bom = true) =>
  cat(
    bom ? [0xff, 0xfe] : [],
    [...text].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]),
  );

const where = (d: { code: string; severity: string; file?: string; line?: number; col?: number }) =>
  `${d.severity} ${d.code} ${d.file}:${d.line}:${d.col}`;

/**
 * Files saved in another encoding than UTF-8 (a Windows editor's UTF-16, a Latin-1 code
 * page): said where the first bad byte is, with what it probably is, never served as text
 * holding NUL characters or U+FFFD without a word.
 */
describe('files that are not UTF-8 text', () => {
  it.each([
    [
      'a Latin-1 é in a role registry (CRLF lines)',
      'chorus',
      'roles.yaml',
      cat(enc('roles:\r\n  dev:\r\n    system_prompt: Caf'), [0xe9], enc('\r\n')),
      'error INVALID_UTF8 roles.yaml:3:23',
      /byte 0xE9 \(offset \d+\) is not UTF-8 \(in Windows-1252, .* "é"\); save the file as UTF-8$/,
    ],
    [
      'a Windows-1252 curly quote in frontmatter',
      'roboco',
      'roles/dev.md',
      cat(enc('---\nname: '), [0x93], enc('Dev\n---\nDev.\n')),
      'error INVALID_UTF8 roles/dev.md:2:7',
      /"\u201c"/,
    ],
    [
      'a UTF-16 agents.yaml with its byte order mark',
      'crewai',
      'agents.yaml',
      utf16le('a:\n  role: R\n  goal: G\n  backstory: B\n'),
      'error INVALID_UTF8 agents.yaml:1:1',
      /the file is UTF-16 LE text \(it starts with a byte order mark\), not UTF-8/,
    ],
    [
      'a UTF-16 base.md without a byte order mark (valid UTF-8 byte by byte, with NULs)',
      'roboco',
      'base.md',
      utf16le('Base rules.\n', false),
      'error INVALID_UTF8 base.md:1:2',
      /a NUL byte \(offset 1\): the file is no UTF-8 text \(UTF-16 saved without a byte order mark\?\)/,
    ],
    [
      'a PNG image beside the Markdown',
      'roboco',
      'docs/diagram.png',
      cat([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
      'error INVALID_UTF8 docs/diagram.png:1:1',
      /^the file is a PNG image, not text; a pack holds text files only: move it out of the pack's folder, or select the pack's files with files: in strata.yaml$/,
    ],
    [
      'a font (its first byte is no UTF-8 error: the NUL after it is)',
      'chorus',
      'assets/icons.woff2',
      cat(enc('wOF2'), [0, 1, 0, 0]),
      'error INVALID_UTF8 assets/icons.woff2:1:1',
      /^the file is a WOFF2 font, not text; /,
    ],
  ])(
    '%s is INVALID_UTF8 at the first bad byte, naming the encoding',
    (_, preset, path, bytes, at, message) => {
      const result = memPack({ 'roles/dev.md': 'Dev.\n', [path]: bytes }, { preset });
      expect(result.snapshot).toBeUndefined();
      const bad = result.diagnostics.filter((d) => d.code === 'INVALID_UTF8');
      expect(bad.map(where)).toEqual([at]);
      expect(bad[0]!.message).toMatch(message);
    },
  );

  it('an AGENTS.md in Latin-1 composes as Codex reads it (U+FFFD), with an INVALID_UTF8 warning where the byte is', () => {
    const result = memPack({
      'AGENTS.md': 'Root.\n',
      'api/AGENTS.md': cat(enc('Use tabs.\r\nCaf'), [0xe9], enc(' rules.\n')),
    });
    const snapshot = result.snapshot!;
    const out = compose(snapshot, { vars: { cwd: 'api' } });
    expect(out.text).toBe('Root.\n\n\nUse tabs.\r\nCaf\uFFFD rules.\n');
    expect(result.diagnostics.map(where)).toEqual(['warning INVALID_UTF8 api/AGENTS.md:2:4']);
    expect(result.diagnostics[0]!.message).toMatch(/"é".*reaching the prompt as U\+FFFD/);
  });

  it('a UTF-16 AGENTS.md is said, not served as NUL characters without a word', () => {
    const result = memPack({ 'AGENTS.md': utf16le('Use tabs.\n') });
    expect(compose(result.snapshot!, {}).text).toContain('U\0s\0e\0');
    expect(result.diagnostics.map(where)).toEqual(['warning INVALID_UTF8 AGENTS.md:1:1']);
    expect(result.diagnostics[0]!.message).toMatch(/UTF-16 LE .* and each NUL byte as a NUL character/);
  });

  it('a Claude Code agent whose body is Latin-1 is an agent, with the warning', () => {
    const result = memPack({
      '.claude/agents/rev.md': cat(
        enc('---\nname: rev\ndescription: Reviews\n---\nNa'),
        [0xef],
        enc('ve.\n'),
      ),
    });
    expect([...result.snapshot!.roles.keys()]).toEqual(['rev']);
    const out = compose(result.snapshot!, { role: 'rev' });
    expect(out.text).toBe('Na\uFFFDve.');
    expect(result.diagnostics.map(where)).toEqual(['warning INVALID_UTF8 .claude/agents/rev.md:5:3']);
  });
});
