import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, tempDir } from '../helpers.js';

const ROLES = ['developer', 'qa', 'architect'];
const TEAMS = ['platform', 'payments', 'growth'];

/**
 * The fleet.yaml of `agents` agents (`agent-0` …), three lines each after the `agents:`
 * line: agent i's `- id:` is on line 2 + 3i. `role` overrides one agent's role.
 */
export function fleetYaml(agents: number, role: Record<number, string> = {}): string {
  const lines = ['agents:'];
  for (let i = 0; i < agents; i++)
    lines.push(`  - id: agent-${i}`, `    role: ${role[i] ?? ROLES[i % 3]}`, `    team: ${TEAMS[i % 3]}`);
  return `${lines.join('\n')}\n`;
}

/** A copy of examples/roboco whose fleet.yaml lists `agents` agents (the identity files' 8 follow them). */
export function largeFleetPack(agents: number, role: Record<number, string> = {}): string {
  const dir = join(tempDir('strata-fleet-'), 'pack');
  cpSync(join(EXAMPLES, 'roboco'), dir, { recursive: true });
  writeFileSync(join(dir, 'fleet.yaml'), fleetYaml(agents, role));
  return dir;
}
