import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PromptError } from '../../src/core/text/diagnostics.js';
import { systemPrompt } from '../../src/runtime/system-prompt.js';
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
});
