import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { expectGolden, memPack } from '../helpers.js';
import { CREWAI_CASES } from './rows/crewai-cases.js';

// CrewAI agents as CrewAI composes them: each golden prompt is PyYAML's and CrewAI's
// (checked in the slow tier against crewai_reference.py).

describe('crewai: agents files as PyYAML reads them', () => {
  it.each(CREWAI_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = memPack({ 'config/agents.yaml': c.yaml });
    const out = tryCompose(result.snapshot!, { role: c.role, vars: c.vars ?? {} });
    expect(out.ok).toBe(true);
    expectGolden(`layouts/rows/${c.name}.txt`, out.ok ? out.result.text : '');
  });
});
