import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { openPack } from '../../src/source/open.js';
import { memPack, tempDir, writeFiles } from '../helpers.js';

/**
 * A pack holding only a layout's own files, none of them usable: a Claude Code agents
 * folder whose agent has a byte order mark before its frontmatter, a CrewAI agents.yaml
 * whose agent has an empty role. Neither Claude Code nor CrewAI runs such an agent. The
 * pack is read as that layout, so the problem is said at its line, instead of the pack
 * falling to chorus and composing "You are a helpful assistant." without a word.
 */

function warnings(result: ReturnType<typeof memPack>) {
  return result.diagnostics.map((d) => [d.severity, d.code, d.file, d.line, d.col]);
}

describe('a layout whose files are all unusable is still that layout', () => {
  it('claude-agents: a byte order mark before the frontmatter is said, not read as chorus', () => {
    const result = memPack({
      '.claude/agents/reviewer.md': '\uFEFF---\nname: reviewer\ndescription: Reviews code\n---\nReview.\n',
    });
    expect(result.snapshot!.preset).toBe('claude-agents');
    expect(warnings(result)).toEqual([['warning', 'BAD_FRONTMATTER', '.claude/agents/reviewer.md', 1, 1]]);
    const out = tryCompose(result.snapshot!, { role: 'reviewer' });
    expect(out.ok && out.result.text).not.toBe('You are a helpful assistant.');
  });

  it('crewai: an agent with an empty role is said, and composing it fails', () => {
    const result = memPack({ 'agents.yaml': 'researcher:\n  role:\n  goal: Find\n  backstory: Curious\n' });
    expect(result.snapshot!.preset).toBe('crewai');
    expect(warnings(result)).toEqual([['warning', 'BAD_ROLE', 'agents.yaml', 1, 1]]);
    const out = tryCompose(result.snapshot!, { role: 'researcher' });
    expect(out.ok ? [] : out.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['warning', 'UNKNOWN_ROLE'],
      ['error', 'REQUIRED_MISSING'],
    ]);
  });

  it('a chorus pack that also holds such files stays chorus', () => {
    const chorus = {
      'roles.yaml': 'roles:\n  writer:\n    system_prompt: Write.\n',
      'defaults.md': 'Be kind.\n',
      '.claude/agents/draft.md': 'No frontmatter yet.\n',
      'config/agents.yaml': 'x:\n  role:\n',
    };
    expect(memPack(chorus).snapshot!.preset).toBe('chorus');
    expect(memPack({ 'defaults.md': 'Be kind.\n', '.claude/agents/draft.md': 'x\n' }).snapshot!.preset).toBe(
      'chorus',
    );
  });

  it('a README in an agents folder is no layout file', () => {
    expect(memPack({ '.claude/agents/README.md': '# Agents\n' }).snapshot!.preset).toBe('chorus');
  });

  it('a reload read for the layout’s files still sees what chorus reads, as a whole read does', async () => {
    const dir = tempDir('strata-unusable-reload-');
    writeFiles(dir, { 'agents.yaml': 'a:\n  role: R\n  goal: G\n  backstory: B\n' });
    const first = await openPack({ kind: 'dir', dir }, { env: {} });
    expect(first.snapshot!.preset).toBe('crewai');
    writeFileSync(join(dir, 'agents.yaml'), 'a:\n  role:\n');
    writeFileSync(join(dir, 'team.yaml'), 'roles:\n  w:\n    system_prompt: W.\n');
    const reload = await openPack({ kind: 'dir', dir }, { env: {}, previous: first.snapshot! });
    const whole = await openPack({ kind: 'dir', dir }, { env: {} });
    expect(whole.snapshot!.preset).toBe('chorus');
    expect(reload.snapshot!.preset).toBe('chorus');
  });
});
