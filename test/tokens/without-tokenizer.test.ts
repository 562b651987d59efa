import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

// gpt-tokenizer is an optional peer dependency. In a process where it cannot be found
// (preloaded with without-tokenizer.cjs), nothing that does not need counts fails: the
// prompt, provider bodies, explain and the service work without counts and say so once;
// what asks for counts by name (--tokenizer, explain --cache) is TOKENIZER_MISSING;
// validate says the budgets are not checked (a warning: --strict fails).

type Ran = { code: number; stdout: string; stderr: string };
let out: Record<string, Ran> & {
  service: { status: number; body: Record<string, unknown>; logs: string[] };
};

const MISSING =
  'token counts need the optional package gpt-tokenizer, which is not installed (npm install gpt-tokenizer@4)';

beforeAll(async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--require',
      join(ROOT, 'test/tokens/without-tokenizer.cjs'),
      '--import',
      'tsx',
      join(ROOT, 'test/tokens/without-tokenizer-run.ts'),
    ],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  out = JSON.parse(stdout);
});

describe('without the optional tokenizer', () => {
  it('composes the same bytes and provider bodies, with nothing said', () => {
    expect(out.text).toMatchObject({ code: 0, stderr: '' });
    expect(out.text!.stdout).toMatch(/^# Your tools are ready/);
    expect(out.anthropic).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(out.anthropic!.stdout).system[0].text).toMatch(/^# Your tools are ready/);
  });

  it('explains and composes --json without counts, with one note', () => {
    const note = `info TOKENIZER_MISSING: the token counts are left out: ${MISSING}\n`;
    expect(out.explain).toMatchObject({ code: 0, stderr: note });
    expect(out.explain!.stdout).toContain(
      '#   layer      status                     source                             bytes  range\n',
    );
    expect(out.explain!.stdout).not.toContain('tokens');
    expect(out.json).toMatchObject({ code: 0, stderr: note });
    expect(JSON.parse(out.json!.stdout)).not.toHaveProperty('tokens');
  });

  it('refuses counts asked for by name: TOKENIZER_MISSING, exit 1', () => {
    expect(out.asked).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error TOKENIZER_MISSING: counting cl100k_base tokens: ${MISSING}\n`,
    });
    expect(out.cache).toMatchObject({
      code: 1,
      stderr: `error TOKENIZER_MISSING: counting o200k_base tokens: ${MISSING}\n`,
    });
  });

  it('validates, saying the budgets are not checked (a warning at budgets:)', () => {
    expect(out.budgets!.code).toBe(0);
    expect(out.budgets!.stdout).toContain(
      `warning TOKENIZER_MISSING: strata.yaml:11:3: the budgets are not checked: ${MISSING}\n`,
    );
    expect(out.strict!.code).toBe(1);
    expect(out.order!.stdout).toContain(
      'warning CACHE_ORDER: layer order defeats prefix caching: tools, lifecycle differ between the 8 members but stand before base, the same for all; better order: base, tools, lifecycle, fable, ponytail, role, verbs, team, identity, ambient\n',
    );
  });

  it('serves prompts without counts and logs why once at start-up', () => {
    expect(out.service.status).toBe(200);
    expect(out.service.body.text).toMatch(/^# Your tools are ready/);
    expect(out.service.body).not.toHaveProperty('tokens');
    const said = out.service.logs.map((l) => JSON.parse(l)).filter((l) => l.code === 'TOKENIZER_MISSING');
    expect(said.map((l) => [l.level, l.msg])).toEqual([[40, `answers carry no token counts: ${MISSING}`]]);
  });
});
