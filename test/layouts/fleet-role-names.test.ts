import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { cli, memPack, tempDir, writeFiles } from '../helpers.js';
import { appFor } from '../server/helpers.js';

/**
 * A fleet over Claude Code subagents: the registry takes a subagent's `name:` as written
 * ("Frontend Developer"), so fleet.yaml and identity frontmatter name that role the same way.
 */
const PACK = {
  'strata.yaml':
    'extends: claude-agents\nfiles: ["**/*.md", fleet.yaml]\nfleet:\n  file: fleet.yaml\n  identities: "identities/{agent}.md"\n',
  '.claude/agents/fe.md': '---\nname: Frontend Developer\ndescription: FE\n---\nYou build UIs.\n',
  'fleet.yaml': 'agents:\n  - id: fe1\n    role: Frontend Developer\n',
  'identities/fe2.md': '---\nrole: Frontend Developer\n---\nI am fe2.\n',
};

describe('fleet role names as the registry takes them', () => {
  it('library: fleet.yaml and identity frontmatter name the role "Frontend Developer"', () => {
    const { snapshot, diagnostics } = memPack(PACK);
    expect(diagnostics).toEqual([]);
    expect(snapshot!.fleet.map((a) => [a.id, a.role])).toEqual([
      ['fe1', 'Frontend Developer'],
      ['fe2', 'Frontend Developer'],
    ]);
    for (const agent of ['fe1', 'fe2']) {
      const out = tryCompose(snapshot!, { agent });
      expect(out.ok && out.result.text).toBe('You build UIs.');
    }
  });

  it('a role name no registry would take is still BAD_NAME (path characters, ..)', () => {
    for (const role of ['a/b', '../x', 'plugin:scoped', ' lead']) {
      const { diagnostics } = memPack({
        ...PACK,
        'fleet.yaml': `agents:\n  - id: x\n    role: ${JSON.stringify(role)}\n`,
      });
      expect(diagnostics.map((d) => [d.code, d.file, d.line])).toEqual([['BAD_NAME', 'fleet.yaml', 3]]);
    }
  });

  it('CLI and HTTP API compose for the agent', async () => {
    const dir = tempDir('strata-fleet-names-');
    writeFiles(dir, PACK);
    expect(await cli(['compose', '--dir', dir, '--agent', 'fe1'])).toEqual({
      code: 0,
      stdout: 'You build UIs.',
      stderr: '',
    });
    const fleet = await cli(['fleet', '--dir', dir, '--json']);
    expect(fleet.code).toBe(0);
    expect(fleet.stdout).toContain('"Frontend Developer"');
    const { app } = await appFor(dir);
    for (const agent of ['fe1', 'fe2']) {
      const res = await app.request(`/api/agents/${agent}/prompt`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { text: string }).text).toBe('You build UIs.');
    }
  });
});
