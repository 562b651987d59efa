import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a roboco-style pack with `roles` roles: roles.yaml with every record, and per
 * role a role prompt, a tool directive and a verb table, plus base.md and 10 teams; with
 * `agents`, a fleet: fleet.yaml listing each agent (role and team) and its identity file
 * (the same role and team in frontmatter, as examples/roboco has them). Returns the number
 * of files written.
 */
export function generatePack(dir: string, roles: number, agents = 0): number {
  mkdirSync(join(dir, 'roles'), { recursive: true });
  mkdirSync(join(dir, 'tools'), { recursive: true });
  mkdirSync(join(dir, '_generated'), { recursive: true });
  mkdirSync(join(dir, 'teams'), { recursive: true });
  writeFileSync(join(dir, 'base.md'), `${'Base rule: be precise, verify, and cite sources.\n'.repeat(40)}`);
  for (let t = 0; t < 10; t++)
    writeFileSync(join(dir, 'teams', `team-${t}.md`), `Team ${t} charter.\n`.repeat(20));
  const records: string[] = ['roles:'];
  for (let i = 0; i < roles; i++) {
    const id = `role-${i}`;
    records.push(
      `  ${id}:`,
      `    name: Role ${i}`,
      `    description: Does task family ${i}.`,
      `    tags: [t${i % 7}]`,
      '    model: model-a',
    );
    writeFileSync(
      join(dir, 'roles', `${id}.md`),
      `---\nname: Role ${i}\n---\n# Role ${i}\n\n${'You own one slice of the product and keep it healthy.\n'.repeat(12)}`,
    );
    writeFileSync(join(dir, 'tools', `${id}.md`), `# Tools for role ${i}\n\n${'A tool line.\n'.repeat(8)}`);
    writeFileSync(
      join(dir, '_generated', `${id}.md`),
      `| verb | signature |\n| --- | --- |\n| do_${i} | \`do_${i}(x: str)\` |\n`,
    );
  }
  writeFileSync(join(dir, 'roles.yaml'), `${records.join('\n')}\n`);
  if (agents > 0) generateFleet(dir, roles, agents);
  return roles * 3 + 12 + (agents > 0 ? agents + 1 : 0);
}

/** fleet.yaml and one identity file per agent: agent-i has role-(i mod roles) and team-(i mod 10). */
function generateFleet(dir: string, roles: number, agents: number): void {
  mkdirSync(join(dir, 'identities'), { recursive: true });
  const lines = ['agents:'];
  for (let a = 0; a < agents; a++) {
    const [role, team] = [`role-${a % roles}`, `team-${a % 10}`];
    lines.push(`  - id: agent-${a}`, `    role: ${role}`, `    team: ${team}`);
    writeFileSync(
      join(dir, 'identities', `agent-${a}.md`),
      `---\nrole: ${role}\nteam: ${team}\n---\nYou are agent ${a}, one of the ${team} crew.\n`,
    );
  }
  writeFileSync(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
}

/** Limits high enough for the largest generated pack (the defaults protect a service, not a benchmark). */
export const BENCH_LIMITS = {
  maxFileBytes: 64 * 2 ** 20,
  maxPackBytes: 4 * 2 ** 30,
  maxFiles: 1_000_000,
  readTimeoutMs: 600_000,
};

/**
 * A benchmark's `--agents` value: a number of agents, or `roles` for as many agents as
 * the pack has roles (each size its own fleet).
 */
export function agentsFor(value: string | undefined, roles: number): number {
  if (value === undefined) return 0;
  return value === 'roles' ? roles : Number(value);
}
