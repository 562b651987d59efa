import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/core/text/diagnostics.js';
import { cli, memPack, tempDir, writeFiles } from '../helpers.js';

// A `.claude` folder (1215-Labs/claude-code-templates' shape): agents, and commands whose
// `argument-hint:` is no YAML. A command is never an agent: its frontmatter is not said.
const AGENT = '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n';
const BROKEN_AGENT = '---\nname: tester\ndescription: |\n  Tests\nhint: "<path>" ["focus"]\n---\nTest.\n';
const COMMAND =
  '---\ndescription: |\n  Audit a repository\n  Best for: releases\nargument-hint: "<repo path>" ["focus hint"]\n---\nAudit $ARGUMENTS.\n';
const PACK = {
  'agents/reviewer.md': AGENT,
  'agents/tester.md': BROKEN_AGENT,
  'commands/workflow/repo-audit.md': COMMAND,
  'commands/cbass/cbass-logs.md': COMMAND,
  'skills/audit/SKILL.md': COMMAND,
  'CLAUDE.md': '# Project\n',
};
const SAID =
  'warning BAD_FRONTMATTER: agents/tester.md:5:16: Unexpected flow-seq-start at node end (also with values quoted); the file has no metadata';

describe('claude-agents: frontmatter problems are said for agent files only', () => {
  it('a command or skill with frontmatter that does not parse says nothing; an agent file does', () => {
    const r = memPack(PACK, { preset: 'claude-agents' });
    expect([...r.snapshot!.roles.keys()]).toEqual(['reviewer']);
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([SAID]);
  });

  it('validate --strict fails on the agent file alone (exit 1), and passes without it', async () => {
    const dir = tempDir('strata-claude-commands-');
    writeFiles(dir, PACK);
    const r = await cli(['validate', '--dir', dir, '--strict']);
    expect(r.code).toBe(1);
    expect((r.stdout + r.stderr).match(/BAD_FRONTMATTER/g)).toHaveLength(1);
    expect(r.stdout + r.stderr).toContain(SAID);
    const clean = tempDir('strata-claude-commands-');
    writeFiles(clean, { ...PACK, 'agents/tester.md': AGENT.replace('reviewer', 'tester') });
    const ok = await cli(['validate', '--dir', clean, '--strict']);
    expect(ok.stdout + ok.stderr).not.toContain('BAD_FRONTMATTER');
    expect(ok.code).toBe(0);
  });

  it('a file a layer of a strata.yaml reads still says its frontmatter (a command it names)', () => {
    const r = memPack({
      ...PACK,
      'strata.yaml':
        'extends: claude-agents\nlayers:\n  - id: audit\n    file: commands/workflow/repo-audit.md\n',
    });
    expect(r.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['BAD_FRONTMATTER', 'agents/tester.md'],
      ['BAD_FRONTMATTER', 'commands/workflow/repo-audit.md'],
    ]);
  });
});
