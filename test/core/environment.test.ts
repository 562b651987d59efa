import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { serviceOptions } from '../../src/cli/commands/serve.js';
import { UsageError } from '../../src/cli/io.js';
import { PromptError } from '../../src/core/text/diagnostics.js';
import { systemPrompt } from '../../src/runtime/system-prompt.js';
import { startService } from '../../src/server/node/start.js';
import { cli, EXAMPLES, ROOT } from '../helpers.js';
import { CommandExited, mcpInProcess } from '../mcp/helpers.js';

/**
 * The environment contract (README, "Environment"), as a table: each row's environment
 * through `strata compose`, `systemPrompt()`, `strata serve` (POST /api/compose with an
 * empty body) and `strata mcp` (the compose tool without arguments) gives the same prompt
 * bytes, or the same refusal.
 */

type Env = Record<string, string | undefined>;
/** What a surface answers: the prompt bytes, an error code, or a usage refusal. */
type Answer = { text: string } | { code: string } | { refusal: RegExp };

interface Row {
  name: string;
  env: Env;
  /** The --preset flag / preset option, when the row gives one. */
  preset?: string;
  expect: Answer | ((surface: Surface) => Answer);
}

type Surface = 'compose' | 'systemPrompt' | 'serve' | 'mcp';

const chorus = join(EXAMPLES, 'chorus');
const roboco = join(EXAMPLES, 'roboco');
const golden = (name: string) => readFileSync(join(ROOT, 'test', 'golden', name), 'utf8');
const arbiter = { text: golden('chorus/arbiter.txt') };
const NO_PACK = /no pack directory/;
const FALLBACK = { text: 'You are a helpful assistant.' };

const ROWS: Row[] = [
  {
    name: 'STRATA_PROMPTS_DIR (relative) and STRATA_ROLE',
    env: { STRATA_PROMPTS_DIR: 'examples/chorus', STRATA_ROLE: 'arbiter' },
    expect: arbiter,
  },
  {
    name: 'CHORUS_PROMPTS_DIR and CHORUS_ROLE',
    env: { CHORUS_PROMPTS_DIR: chorus, CHORUS_ROLE: 'arbiter' },
    expect: arbiter,
  },
  {
    name: 'an empty STRATA_PROMPTS_DIR is unset',
    env: { STRATA_PROMPTS_DIR: '', CHORUS_PROMPTS_DIR: chorus, CHORUS_ROLE: 'arbiter' },
    expect: arbiter,
  },
  {
    name: 'an empty STRATA_ROLE is unset',
    env: { STRATA_PROMPTS_DIR: chorus, STRATA_ROLE: '', CHORUS_ROLE: 'arbiter' },
    expect: arbiter,
  },
  {
    name: 'STRATA_ROLE before CHORUS_ROLE, STRATA_PROMPTS_DIR before CHORUS_PROMPTS_DIR',
    env: {
      STRATA_PROMPTS_DIR: roboco,
      CHORUS_PROMPTS_DIR: chorus,
      STRATA_ROLE: 'developer',
      CHORUS_ROLE: 'arbiter',
    },
    expect: { text: golden('roboco/role-developer.txt') },
  },
  { name: 'no role: the role-less prompt', env: { STRATA_PROMPTS_DIR: chorus }, expect: { text: '' } },
  {
    name: 'an unknown role',
    env: { STRATA_PROMPTS_DIR: chorus, CHORUS_ROLE: 'nobody' },
    expect: { code: 'UNKNOWN_ROLE' },
  },
  {
    name: 'a pack directory that does not exist',
    env: { STRATA_PROMPTS_DIR: '/nonexistent/strata-pack' },
    expect: { code: 'PACK_NOT_FOUND' },
  },
  {
    name: 'preset chorus with nothing mounted',
    env: { CHORUS_ROLE: 'arbiter' },
    preset: 'chorus',
    expect: FALLBACK,
  },
  { name: 'preset roboco with nothing mounted', env: {}, preset: 'roboco', expect: { refusal: NO_PACK } },
  {
    name: 'nothing mounted, no preset: systemPrompt() is the chorus drop-in',
    env: { STRATA_PROMPTS_DIR: '', CHORUS_PROMPTS_DIR: '' },
    expect: (surface) => (surface === 'systemPrompt' ? FALLBACK : { refusal: NO_PACK }),
  },
];

describe('the environment contract, through compose, systemPrompt(), serve and mcp', () => {
  it.each(ROWS)('$name', async (row) => {
    const answers = {
      compose: await viaCompose(row),
      systemPrompt: await viaSystemPrompt(row),
      serve: await viaServe(row),
      mcp: await viaMcp(row),
    };
    const expected = (surface: Surface) =>
      typeof row.expect === 'function' ? row.expect(surface) : row.expect;
    for (const surface of ['compose', 'systemPrompt', 'serve', 'mcp'] as const) {
      const want = expected(surface);
      const got = answers[surface];
      if ('text' in want && want.text === '') {
        // The row checks agreement only: every surface gives the compose command's bytes.
        expect(got, surface).toEqual(answers.compose);
        expect('text' in got, surface).toBe(true);
      } else if ('refusal' in want) {
        expect(got, surface).toMatchObject({ refusal: expect.stringMatching(want.refusal) });
      } else expect(got, surface).toEqual(want);
    }
  });

  it('a row with an agent: the fleet member brings its role, STRATA_ROLE does not override it', async () => {
    const env = { STRATA_PROMPTS_DIR: roboco, STRATA_ROLE: 'qa' };
    const r = await cli(['compose', '--agent', 'ada'], env);
    expect(r.stdout).toBe(golden('roboco/ada.txt'));
    expect(await systemPrompt({ agent: 'ada', env })).toBe(golden('roboco/ada.txt'));
  });
});

// --- internal ---

type Got = { text: string } | { code: string } | { refusal: string };

async function viaCompose(row: Row): Promise<Got> {
  const argv = ['compose', ...(row.preset ? ['--preset', row.preset] : [])];
  const r = await cli(argv, row.env, ROOT);
  if (r.code === 0) return { text: r.stdout };
  if (r.code === 2) return { refusal: r.stderr };
  return { code: /^error (\w+)/m.exec(r.stderr)?.[1] ?? r.stderr };
}

async function viaMcp(row: Row): Promise<Got> {
  const argv = ['--no-watch', ...(row.preset ? ['--preset', row.preset] : [])];
  let mcp: Awaited<ReturnType<typeof mcpInProcess>>;
  try {
    mcp = await mcpInProcess(argv, row.env);
  } catch (e) {
    if (!(e instanceof CommandExited)) throw e;
    if (e.code === 2) return { refusal: e.stderr };
    return { code: /^error (\w+)/m.exec(e.stderr)?.[1] ?? e.stderr };
  }
  try {
    const result = (await mcp.client.callTool({ name: 'compose', arguments: {} })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
      _meta?: { 'strata/error'?: { code: string } };
    };
    if (result.isError) return { code: result._meta!['strata/error']!.code };
    return { text: result.content[0]!.text };
  } finally {
    await mcp.end();
  }
}

async function viaSystemPrompt(row: Row): Promise<Got> {
  try {
    return {
      text: await systemPrompt({ env: row.env, cwd: ROOT, ...(row.preset ? { preset: row.preset } : {}) }),
    };
  } catch (e) {
    if (!(e instanceof PromptError)) throw e;
    return e.code === 'PACK_NOT_FOUND' && NO_PACK.test(e.message) ? { refusal: e.message } : { code: e.code };
  }
}

async function viaServe(row: Row): Promise<Got> {
  let options: ReturnType<typeof serviceOptions>;
  try {
    const flags = {
      watch: false,
      port: '0',
      host: '127.0.0.1',
      pollInterval: '0',
      ...(row.preset ? { preset: row.preset } : {}),
    };
    options = serviceOptions(flags, { env: row.env, cwd: ROOT, stdout: () => {}, stderr: () => {} });
  } catch (e) {
    if (e instanceof UsageError) return { refusal: e.message };
    throw e;
  }
  // A generous token budget: the answer, not the machine's speed, is under test.
  const started = await startService({
    ...options,
    tokenBudgetMs: 600_000,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) return { code: started.diagnostics.find((d) => d.severity === 'error')!.code };
  try {
    const res = await fetch(`${started.service.url}/api/compose`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/plain' },
      body: '{}',
    });
    if (res.status === 200) return { text: await res.text() };
    const body = (await res.json()) as { error: { code: string } };
    return { code: body.error.code };
  } finally {
    await started.service.close();
  }
}
