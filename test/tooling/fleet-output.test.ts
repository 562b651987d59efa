import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, expectGolden, tempDir, writeFiles } from '../helpers.js';

// `strata validate` and `strata diff` of a fleet, byte for byte: what they print stays
// what it was while the work behind them is made faster. A roboco pack with 40 agents
// declared by fleet.yaml and their identity files, one of which disagrees (FLEET_CONFLICT)
// and one of which names a team without a prompt (UNKNOWN_TEAM).

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The fleet pack, in a folder of its own. */
function fleetPack(): string {
  const dir = tempDir('strata-fleet-output-');
  made.push(dir);
  const files: Record<string, string> = {
    'base.md': 'Base rules: be precise, and say what you did not check.\n',
    'roles.yaml': `roles:\n${[0, 1, 2, 3, 4].map((r) => `  role-${r}:\n    name: Role ${r}\n    model: model-${r % 2}\n`).join('')}`,
  };
  for (let r = 0; r < 5; r++) {
    files[`roles/role-${r}.md`] = `---\nname: Role ${r}\n---\n# Role ${r}\n\nYou own slice ${r}.\n`;
    files[`tools/role-${r}.md`] = `Tools of role ${r}.\n`;
  }
  for (let t = 0; t < 3; t++) files[`teams/team-${t}.md`] = `Team ${t} charter.\n`;
  const fleet = ['agents:'];
  for (let a = 0; a < 40; a++) {
    const [role, team] = [`role-${a % 5}`, `team-${a % 4}`];
    fleet.push(`  - id: agent-${a}`, `    role: ${role}`, `    team: ${team}`);
    const own = a === 7 ? 'role-1' : role;
    files[`identities/agent-${a}.md`] = `---\nrole: ${own}\nteam: ${team}\n---\nYou are agent ${a}.\n`;
  }
  files['fleet.yaml'] = `${fleet.join('\n')}\n`;
  writeFiles(dir, files);
  return dir;
}

describe('validate and diff of a fleet print what they printed', () => {
  it('validate (text and json)', async () => {
    const dir = fleetPack();
    const text = await cli(['validate', '--dir', '.'], {}, dir);
    expect(text.code).toBe(0);
    expectGolden('cli/validate-fleet.txt', text.stdout);
    const json = await cli(['validate', '--dir', '.', '--format', 'json'], {}, dir);
    expectGolden('cli/validate-fleet.json', json.stdout);
  });

  it('diff (every member changed, and one)', async () => {
    const before = fleetPack();
    const after = join(tempDir('strata-fleet-output-'), 'after');
    made.push(after);
    cpSync(before, after, { recursive: true });
    writeFiles(after, {
      'base.md': 'Base rules: be precise, and say what you did not check.\nCite the ticket.\n',
      'identities/agent-3.md': '---\nrole: role-3\nteam: team-3\n---\nYou are agent 3, the lead.\n',
    });
    const stat = await cli(['diff', '--dir', after, '--base-dir', before, '--stat']);
    expect(stat.code).toBe(0);
    expectGolden('cli/diff-fleet-stat.txt', stat.stdout);
    writeFiles(after, { 'base.md': 'Base rules: be precise, and say what you did not check.\n' });
    const one = await cli(['diff', '--dir', after, '--base-dir', before]);
    expectGolden('cli/diff-fleet-one.txt', one.stdout);
  });
});
