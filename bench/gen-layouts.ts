import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Generated packs in the crewai, claude-agents and agents-md layouts, for the layout
 * benchmark: `n` agents (crewai, claude-agents) or `n` folders with AGENTS.md files
 * (agents-md). Returns the compose requests that cover the pack.
 */
export function generateLayout(
  dir: string,
  preset: 'crewai' | 'claude-agents' | 'agents-md',
  n: number,
): Array<{ role?: string; vars?: Record<string, string> }> {
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const para = (i: number) =>
    `Agent ${i} checks its work twice, cites every source it uses and says plainly what it could not verify. `.repeat(
      4,
    );
  if (preset === 'crewai') {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      lines.push(
        `agent_${i}:`,
        '  role: >',
        `    {topic} Analyst ${i}`,
        `  goal: Find what matters about {topic} for desk ${i}.`,
        '  backstory: >',
        `    ${para(i)}`,
        '  llm: openai/gpt-4o-mini',
        '  tools: [search, reader]',
      );
    }
    put('config/agents.yaml', `${lines.join('\n')}\n`);
    return Array.from({ length: n }, (_, i) => ({ role: `agent_${i}`, vars: { topic: 'Energy' } }));
  }
  if (preset === 'claude-agents') {
    for (let i = 0; i < n; i++) {
      put(
        `.claude/agents/group-${i % 20}/agent-${i}.md`,
        `---\nname: agent-${i}\ndescription: Use for task ${i}: reviews and reports.\ntools: Read, Grep\nmodel: sonnet\n---\n\n${para(i)}\n`,
      );
    }
    return Array.from({ length: n }, (_, i) => ({ role: `agent-${i}` }));
  }
  // agents-md: a tree of folders 4 deep, an AGENTS.md in each.
  put('AGENTS.md', `${para(0)}\n`);
  const leaves: string[] = [];
  for (let i = 0; i < n; i++) {
    const path = `a${i % 10}/b${i % 7}/c${i}`;
    put(`${path}/AGENTS.md`, `${para(i)}\n`);
    if (i % 10 === 0) put(`a${i % 10}/AGENTS.override.md`, `Override ${i}.\n`);
    leaves.push(path);
  }
  return leaves.map((cwd) => ({ vars: { cwd } }));
}
