import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/server/node/start.js';
import { cli, EXAMPLES, ROOT } from '../helpers.js';
import { mcpTools } from './tools.js';

// The official Python SDK (`mcp`, pip, in a venv) as an independent client: against
// `strata mcp` over stdio and `/mcp` of `strata serve` over HTTP, it lists, gets a prompt
// (byte-exact with `strata compose`), asks for a prompt without its input and for an
// unknown one, then edits the pack and waits for list_changed (test/mcp/python_client.py).

let python: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  python = (await mcpTools()).python;
}, 600_000);

afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A copy of the CrewAI example, and what `strata compose` says of it before and after the edit. */
async function crewPack(): Promise<{ dir: string; analyst: string; checkerAfter: string; version: string }> {
  const base = await mkdtemp(join(tmpdir(), 'strata-mcp-python-'));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  const dir = join(base, 'pack');
  await cp(join(EXAMPLES, 'crewai'), dir, { recursive: true });
  const analyst = await cli([
    'compose',
    '--dir',
    dir,
    '--role',
    'market_analyst',
    '--var',
    'sector=AI agents',
    '--var',
    'quarter=Q3 2026',
  ]);
  const version = JSON.parse(
    (await cli(['compose', '--dir', dir, '--role', 'fact_checker', '--json'])).stdout,
  ).version;
  // The edit the client makes, on a second copy, for the bytes after it.
  const after = join(base, 'after');
  await cp(dir, after, { recursive: true });
  const agents = join(after, 'config', 'agents.yaml');
  await writeFile(
    agents,
    (await readFile(agents, 'utf8')).replace('Confirm every figure', 'Confirm each figure'),
  );
  const checkerAfter = (await cli(['compose', '--dir', after, '--role', 'fact_checker'])).stdout;
  return { dir, analyst: analyst.stdout, checkerAfter, version };
}

/** What python_client.py prints. */
interface Report {
  server: string;
  listChanged: boolean;
  prompts: unknown;
  get: { role: string; type: string; text: string; meta: Record<string, string> };
  missing: { code: number; message: string; data: unknown };
  unknown: unknown;
  list_changed: number;
  relisted: Record<string, string>;
  regot: { text: string; meta: Record<string, string> };
}

function runClient(args: string[], pack: string): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(ROOT, 'test/mcp/python_client.py'), ...args], {
      cwd: ROOT,
      env: { ...process.env, STRATA_MCP_PACK: pack },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`python client exited ${code}: ${stderr}`));
      resolve(JSON.parse(stdout) as Report);
    });
  });
}

function expectSession(out: Report, pack: Awaited<ReturnType<typeof crewPack>>): void {
  expect(out.server).toBe('strata');
  expect(out.listChanged).toBe(true);
  expect(out.prompts).toEqual([
    {
      name: 'fact_checker',
      description: 'Fact Checker: Confirm every figure in the brief against its source.',
      arguments: [],
    },
    {
      name: 'market_analyst',
      description: expect.stringMatching(/^\{sector\} Market Analyst: Find the three developments/),
      arguments: [
        { name: 'quarter', required: true },
        { name: 'sector', required: true },
      ],
    },
    {
      name: 'report_writer',
      description: "Briefing Writer: Turn the analyst's notes into a one-page brief for {audience}.",
      arguments: [{ name: 'audience', required: true }],
    },
  ]);
  expect(out.get.role).toBe('user');
  expect(out.get.type).toBe('text');
  expect(out.get.text).toBe(pack.analyst);
  expect(out.get.meta['strata/version']).toBe(pack.version);
  expect(out.missing).toMatchObject({ code: -32602, data: { code: 'MISSING_INPUT' } });
  expect(out.missing.message).toMatch(/^MISSING_INPUT: input audience has no value/);
  expect(out.unknown).toEqual({
    code: -32602,
    message:
      'UNKNOWN_PROMPT: unknown prompt "market_analist"; did you mean "market_analyst"?; known prompts: fact_checker, market_analyst, report_writer',
    data: { code: 'UNKNOWN_PROMPT', suggestions: ['market_analyst'] },
  });
  expect(out.list_changed).toBeGreaterThanOrEqual(1);
  expect(out.relisted.fact_checker).toBe(
    'Fact Checker: Confirm each figure in the brief against its source.',
  );
  expect(out.regot.text).toBe(pack.checkerAfter);
  expect(out.regot.meta['strata/version']).not.toBe(pack.version);
}

describe('the Python mcp package', () => {
  it('drives strata mcp over stdio', async () => {
    const pack = await crewPack();
    const out = await runClient(
      [
        'stdio',
        process.execPath,
        '--import',
        'tsx',
        join(ROOT, 'bin/strata.ts'),
        'mcp',
        '--dir',
        pack.dir,
        '--debounce',
        '20',
        '--poll-interval',
        '0',
      ],
      pack.dir,
    );
    expectSession(out, pack);
  });

  it('drives /mcp of strata serve over Streamable HTTP', async () => {
    const pack = await crewPack();
    const started = await startService({
      dir: pack.dir,
      env: {},
      port: 0,
      debounceMs: 20,
      pollMs: 0,
      logger: pino({ level: 'silent' }),
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    cleanups.push(() => started.service.close());
    const out = await runClient(['http', `${started.service.url}/mcp`], pack.dir);
    expectSession(out, pack);
  });
});
