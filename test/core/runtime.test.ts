import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { type Diagnostic, PromptError } from '../../src/core/text/diagnostics.js';
import { systemPrompt, systemPromptResult } from '../../src/runtime/system-prompt.js';
import { loadPackStrict } from '../../src/source/load.js';
import { EXAMPLES, ROOT, tempDir, writeFiles } from '../helpers.js';

describe('systemPrompt (the agent runtime one-call helper)', () => {
  it('reads the pack and role from CHORUS env vars', async () => {
    const text = await systemPrompt({
      env: { CHORUS_PROMPTS_DIR: join(EXAMPLES, 'chorus'), CHORUS_ROLE: 'arbiter' },
      onWarning: () => {},
    });
    expect(text).toBe(readFileSync(join(ROOT, 'test/golden/chorus/arbiter.txt'), 'utf8'));
  });

  it('reads STRATA_PROMPTS_DIR and takes an agent', async () => {
    const text = await systemPrompt({ agent: 'ada', env: { STRATA_PROMPTS_DIR: join(EXAMPLES, 'roboco') } });
    expect(text).toBe(readFileSync(join(ROOT, 'test/golden/roboco/ada.txt'), 'utf8'));
  });

  it('falls back when nothing is mounted, and says so', async () => {
    const given: Diagnostic[] = [];
    expect(await systemPrompt({ env: {}, onWarning: (w) => given.push(w) })).toBe(
      'You are a helpful assistant.',
    );
    expect(given.map((w) => [w.severity, w.code])).toEqual([
      ['warning', 'PACK_NOT_FOUND'],
      ['warning', 'FALLBACK_USED'],
    ]);
    expect(given[0]!.message).toBe(
      'no pack directory: neither dir nor STRATA_PROMPTS_DIR nor CHORUS_PROMPTS_DIR is set; the chorus fallback is the prompt',
    );
  });

  it("gives the load's and the compose's warnings to onWarning and in the result", async () => {
    const given: Diagnostic[] = [];
    const env = { CHORUS_PROMPTS_DIR: join(EXAMPLES, 'chorus') };
    const prompt = await systemPromptResult({
      role: 'arbiter',
      team: 'nobody',
      env,
      onWarning: (w) => given.push(w),
    });
    expect(prompt.text).toBe(readFileSync(join(ROOT, 'test/golden/chorus/arbiter.txt'), 'utf8'));
    expect(prompt.warnings.map((w) => [w.code, w.file])).toEqual([
      ['DUPLICATE_ROLE', 'site-roles.yaml'],
      ['UNKNOWN_TEAM', undefined],
    ]);
    expect(given).toEqual(prompt.warnings);
    // A pack without warnings gives none.
    const clean = await systemPromptResult({
      agent: 'ada',
      env: { STRATA_PROMPTS_DIR: join(EXAMPLES, 'roboco') },
      onWarning: (w) => given.push(w),
    });
    expect(clean.warnings).toEqual([]);
    expect(given).toHaveLength(2);
  });

  it('emits each warning as a StrataWarning process warning by default', async () => {
    const seen: Error[] = [];
    const listener = (w: Error) => seen.push(w);
    process.on('warning', listener);
    try {
      await systemPrompt({ env: { CHORUS_PROMPTS_DIR: join(EXAMPLES, 'chorus'), CHORUS_ROLE: 'arbiter' } });
      await new Promise((done) => setImmediate(done));
    } finally {
      process.off('warning', listener);
    }
    const ours = seen.filter((w) => w.name === 'StrataWarning');
    expect(ours.map((w) => (w as Error & { code: string }).code)).toEqual(['DUPLICATE_ROLE']);
    expect(ours[0]!.message).toMatch(/^site-roles\.yaml:\d+:\d+: /);
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
