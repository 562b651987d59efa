import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeFiles } from '../helpers.js';

// A repository that holds a crew and AGENTS.md files is detected as a crew: a compose that
// gives only --var cwd=… (no role) says which --preset composes that folder.
describe('a folder that is a crew and an AGENTS.md tree', () => {
  const dir = tempDir();
  writeFiles(dir, {
    'crew/config/agents.yaml': 'r:\n  role: R\n  goal: G\n  backstory: B\n',
    'AGENTS.md': 'Root rules.\n',
    'svc/AGENTS.md': 'Service rules.\n',
  });
  const required =
    "error NO_ROLE: layer role_playing is required and is made of a role's fields: give a role (roles: r)";

  it('compose --var cwd=… is NO_ROLE naming --preset agents-md, which composes it', async () => {
    const run = await cli(['compose', '--dir', dir, '--var', 'cwd=svc']);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      `${required}; the folder is also a agents-md layout, which takes --var cwd: compose with --preset agents-md\n`,
    ]);
    const asked = await cli(['compose', '--dir', dir, '--var', 'cwd=svc', '--preset', 'agents-md']);
    expect([asked.code, asked.stdout]).toEqual([0, 'Root rules.\n\n\nService rules.\n']);
  });

  it('an input no other layout declares, or none at all, is NO_ROLE as it was', async () => {
    for (const args of [['--var', 'topic=x'], []]) {
      const run = await cli(['compose', '--dir', dir, ...args]);
      expect([run.code, run.stderr]).toEqual([1, `${required}\n`]);
    }
  });
});
