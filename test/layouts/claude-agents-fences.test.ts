import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/core/text/diagnostics.js';
import { memPack } from '../helpers.js';

const AGENT = '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n';

/**
 * Agent files whose frontmatter Claude Code's pattern (`^---\s*\n([\s\S]*?)---\s*\n?`) does
 * not find, or finds empty: no agent for Claude Code, and said here, never an agent
 * silently missing from the pack.
 */
describe('claude-agents: a frontmatter fence Claude Code does not read', () => {
  it.each([
    [
      'never closed',
      '---\nname: helper\ndescription: Helps\nYou help.\n',
      'warning BAD_FRONTMATTER: .claude/agents/helper.md:1:1: frontmatter opened on line 1 is never closed by a `---` line; the file has no metadata',
    ],
    [
      'closed by the YAML end marker `...`',
      '---\nname: helper\ndescription: Helps\n...\nYou help.\n',
      'warning BAD_FRONTMATTER: .claude/agents/helper.md:1:1: frontmatter opened on line 1 is never closed by a `---` line (the `...` on line 4 does not close it); the file has no metadata',
    ],
    [
      'written with lone carriage returns (classic Mac line endings)',
      '---\rname: helper\rdescription: Helps\r---\rYou help.\r',
      'warning BAD_FRONTMATTER: .claude/agents/helper.md:1:4: frontmatter is not read: the opening `---` line ends in a carriage return without a line feed, and a line feed must follow it; the file has no metadata',
    ],
    [
      'empty',
      '---\n---\nYou help.\n',
      'warning BAD_ROLE: .claude/agents/helper.md:1:1: not a role: frontmatter name, description must be a non-empty string',
    ],
    [
      'only a comment',
      '---\n# name: helper\n---\nYou help.\n',
      'warning BAD_ROLE: .claude/agents/helper.md:1:1: not a role: frontmatter name, description must be a non-empty string',
    ],
  ])('%s is said, and the file is no agent', (_, text, said) => {
    const r = memPack({ '.claude/agents/reviewer.md': AGENT, '.claude/agents/helper.md': text });
    expect([...r.snapshot!.roles.keys()]).toEqual(['reviewer']);
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([said]);
  });

  it('CRLF line endings are frontmatter as ever', () => {
    const r = memPack({
      '.claude/agents/helper.md': '---\r\nname: helper\r\ndescription: Helps\r\n---\r\nYou help.\r\n',
    });
    expect(r.diagnostics).toEqual([]);
    expect([...r.snapshot!.roles.keys()]).toEqual(['helper']);
  });

  it('a document in a pack that is a folder of Markdown (the catch-all) is not said', () => {
    const r = memPack(
      { 'reviewer.md': AGENT, 'guide.md': '---\n---\nHow to use them.\n' },
      { preset: 'claude-agents' },
    );
    expect(r.diagnostics).toEqual([]);
  });
});
