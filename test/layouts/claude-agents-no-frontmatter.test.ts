import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/core/text/diagnostics.js';
import { cli, memPack, tempDir, writeFiles } from '../helpers.js';
import { appFor } from '../server/helpers.js';

const AGENT = '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n';
const SAID =
  'not a role: the file has no frontmatter (a first line `---`, then name, description, then `---`)';

describe('claude-agents: a Markdown file without frontmatter in an agents folder', () => {
  it('is a BAD_FRONTMATTER warning naming the file (Claude Code /doctor lists it too)', () => {
    const r = memPack({ '.claude/agents/reviewer.md': AGENT, '.claude/agents/ops/helper.md': 'You help.\n' });
    expect([...r.snapshot!.roles.keys()]).toEqual(['reviewer']);
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([
      `warning BAD_FRONTMATTER: .claude/agents/ops/helper.md:1:1: ${SAID}`,
    ]);
  });

  it('in an agents/ folder of a .claude folder too; an empty file as well', () => {
    const r = memPack({ 'agents/reviewer.md': AGENT, 'agents/empty.md': '' }, { preset: 'claude-agents' });
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([
      `warning BAD_FRONTMATTER: agents/empty.md:1:1: ${SAID}`,
    ]);
  });

  it('a README-like file is left out unsaid, as the preset means', () => {
    const r = memPack({
      '.claude/agents/reviewer.md': AGENT,
      '.claude/agents/README.md': '# Agents\n',
      '.claude/agents/docs/CHANGELOG.md': '# Changes\n',
      '.claude/agents/license.md': 'MIT\n',
    });
    expect(r.diagnostics).toEqual([]);
  });

  it('a file whose frontmatter is not read already has its own warning, not a second one', () => {
    const r = memPack({
      '.claude/agents/reviewer.md': AGENT,
      '.claude/agents/late.md': '\n---\nname: late\n---\nX\n',
    });
    expect(r.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['BAD_FRONTMATTER', '.claude/agents/late.md'],
    ]);
    expect(r.diagnostics[0]!.message).not.toBe(SAID);
  });

  it('a pack that is a folder of Markdown (the catch-all glob) says nothing of its documents', () => {
    const r = memPack(
      { 'reviewer.md': AGENT, 'guide.md': 'How to use these agents.\n' },
      { preset: 'claude-agents' },
    );
    expect(r.diagnostics).toEqual([]);
  });

  it('validate (CLI) and the API status say it', async () => {
    const dir = tempDir('strata-claude-nofm-');
    writeFiles(dir, { '.claude/agents/reviewer.md': AGENT, '.claude/agents/notes.md': 'Notes.\n' });
    const r = await cli(['validate', '--dir', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain(`warning BAD_FRONTMATTER: .claude/agents/notes.md:1:1: ${SAID}`);
    const { app } = await appFor(dir);
    const status = JSON.stringify(await (await app.request('/api/status')).json());
    expect(status).toContain('.claude/agents/notes.md');
  });
});
