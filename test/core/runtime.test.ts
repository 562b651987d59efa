import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { PromptError } from '../../src/core/text/diagnostics.js';
import { systemPrompt } from '../../src/runtime/system-prompt.js';
import { loadPackStrict } from '../../src/source/load.js';
import { EXAMPLES, ROOT, tempDir, writeFiles } from '../helpers.js';

describe('systemPrompt (the agent runtime one-call helper)', () => {
  it('reads the pack and role from CHORUS env vars', async () => {
    const text = await systemPrompt({
      env: { CHORUS_PROMPTS_DIR: join(EXAMPLES, 'chorus'), CHORUS_ROLE: 'arbiter' },
    });
    expect(text).toBe(readFileSync(join(ROOT, 'test/golden/chorus/arbiter.txt'), 'utf8'));
  });

  it('reads STRATA_PROMPTS_DIR and takes an agent', async () => {
    const text = await systemPrompt({ agent: 'ada', env: { STRATA_PROMPTS_DIR: join(EXAMPLES, 'roboco') } });
    expect(text).toBe(readFileSync(join(ROOT, 'test/golden/roboco/ada.txt'), 'utf8'));
  });

  it('falls back when nothing is mounted', async () => {
    expect(await systemPrompt({ env: {} })).toBe('You are a helpful assistant.');
  });

  it('throws a PromptError with the code when the pack is broken', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'roles.yaml': 'roles: [\n' });
    await expect(systemPrompt({ env: { CHORUS_PROMPTS_DIR: dir } })).rejects.toMatchObject({
      code: 'YAML_SYNTAX',
    });
    await expect(systemPrompt({ env: { CHORUS_PROMPTS_DIR: dir } })).rejects.toBeInstanceOf(PromptError);
  });

  it('tells a missing input the library way (vars), where the CLI and the API say --var', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'strata.yaml': 'inputs:\n  sector: {}\nlayers:\n  - id: a\n    text: "In {{sector}}."\n',
    });
    const env = { STRATA_PROMPTS_DIR: dir };
    const failure = await systemPrompt({ role: 'x', env }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PromptError);
    expect((failure as PromptError).code).toBe('MISSING_INPUT');
    expect((failure as PromptError).message).toBe(
      'error MISSING_INPUT: input sector has no value: layer a (role x) uses it; give it in the request: vars: { sector: … }',
    );
    const outcome = tryCompose(await loadPackStrict(dir), { role: 'x' });
    const missing = outcome.ok ? [] : outcome.diagnostics.filter((d) => d.code === 'MISSING_INPUT');
    expect(missing.map((d) => d.message)).toEqual([
      'input sector has no value: layer a (role x) uses it; give --var sector=VALUE (API: vars.sector)',
    ]);
    expect(await systemPrompt({ role: 'x', vars: { sector: 'retail' }, env })).toBe('In retail.');
  });
});
