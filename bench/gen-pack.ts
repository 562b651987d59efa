import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a roboco-style pack with `roles` roles: roles.yaml with every record, and per
 * role a role prompt, a tool directive and a verb table, plus base.md and 10 teams.
 * Returns the number of files written.
 */
export function generatePack(dir: string, roles: number): number {
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
  return roles * 3 + 12;
}

/** Limits high enough for the largest generated pack (the defaults protect a service, not a benchmark). */
export const BENCH_LIMITS = {
  maxFileBytes: 64 * 2 ** 20,
  maxPackBytes: 4 * 2 ** 30,
  maxFiles: 1_000_000,
  readTimeoutMs: 600_000,
};
