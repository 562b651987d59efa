// CrewAI agents files whose prompts strata must compose as CrewAI does: each case's golden
// file (test/golden/layouts/rows/<name>.txt) is checked against strata in the fast tier
// (crewai-rows.test.ts) and against PyYAML with CrewAI's own template in the slow tier
// (crewai-pyyaml.slow.test.ts, through test/layouts/reference/crewai_reference.py).

/** One agent of one agents.yaml. */
export interface CrewaiCase {
  name: string;
  /** The text of `config/agents.yaml`. */
  yaml: string;
  role: string;
  vars?: Record<string, string>;
}

/** The agents.yaml of a flow's crew, kept two levels down in a repository of projects. */
export const POEM_CREW =
  'poet:\n  role: >\n    Poet of {topic}\n  goal: Write a short poem about {topic}\n  backstory: |\n    You count syllables.\n    You never rhyme "love" with "above".';

export const CREWAI_CASES: readonly CrewaiCase[] = [
  // A folded block scalar ends the file without a final newline: PyYAML keeps no line break.
  { name: 'crewai-folded-at-eof', yaml: 'a:\n  role: R\n  goal: G\n  backstory: >\n    B', role: 'a' },
  {
    name: 'crewai-literal-at-eof',
    yaml: 'a:\n  role: R\n  goal: G\n  backstory: |\n    B\n    C',
    role: 'a',
  },
  { name: 'crewai-keep-at-eof', yaml: 'a:\n  role: R\n  goal: G\n  backstory: |+\n    B', role: 'a' },
  // The last line is blank: the line break before it is kept (keep chomping).
  {
    name: 'crewai-keep-blank-at-eof',
    yaml: 'a:\n  role: R\n  goal: G\n  backstory: |+\n    B\n    ',
    role: 'a',
  },
  // The goal is the last field, folded, with a placeholder.
  {
    name: 'crewai-goal-at-eof',
    yaml: 'writer:\n  role: >\n    {topic} Writer\n  backstory: Careful.\n  goal: >\n    Write about {topic}\n    in plain words',
    role: 'writer',
    vars: { topic: 'AI' },
  },
  // A crew two levels down in a flow, in a repository of several projects (crewai-rows.test.ts).
  { name: 'crewai-deep-crew-poet', yaml: POEM_CREW, role: 'poet', vars: { topic: 'rain' } },
  // With a final newline: the line break is there.
  { name: 'crewai-folded-newline', yaml: 'a:\n  role: R\n  goal: G\n  backstory: >\n    B\n', role: 'a' },
];
