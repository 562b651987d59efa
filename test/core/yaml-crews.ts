/** A CrewAI agents.yaml whose `agents` all merge one `&defaults` block, as crews are written. */
export function crewWithDefaults(agents: number): string {
  const lines = [
    'defaults: &defaults',
    '  llm: openai/gpt-4o-mini',
    '  allow_delegation: false',
    '  verbose: true',
  ];
  for (let i = 0; i < agents; i++)
    lines.push(
      `agent_${i}:`,
      '  <<: *defaults',
      `  role: Analyst ${i}`,
      `  goal: Cover {topic} ${i}`,
      '  backstory: B',
    );
  return `${lines.join('\n')}\n`;
}
