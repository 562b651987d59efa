import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { EXAMPLES } from '../helpers.js';
import { mcpTools } from './tools.js';

// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned, run on
// the Node 22 it needs) against /mcp of a running service: the server scenarios that
// apply to a prompt server. Each scenario's every check must be SUCCESS.

const SCENARIOS = [
  'server-initialize',
  'ping',
  'prompts-list',
  'dns-rebinding-protection',
  'logging-set-level',
  'completion-complete',
];

let conformance: [string, string];
let service: RunningService;
let out: string;

beforeAll(async () => {
  conformance = (await mcpTools()).conformance;
  out = await mkdtemp(join(tmpdir(), 'strata-conformance-'));
  const started = await startService({
    dir: join(EXAMPLES, 'roboco'),
    env: {},
    port: 0,
    watch: false,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  service = started.service;
}, 600_000);

afterAll(async () => {
  await service?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

describe('the MCP conformance suite against /mcp', () => {
  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const dir = join(out, scenario);
    const [node, suite] = conformance;
    const run = await promisify(execFile)(
      node,
      [suite, 'server', '--url', `${service.url}/mcp`, '--scenario', scenario, '-o', dir],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((e: { stdout?: string; stderr?: string }) => e);
    const [results] = await readdir(dir);
    const checks = JSON.parse(await readFile(join(dir, results!, 'checks.json'), 'utf8')) as Array<{
      id: string;
      status: string;
      errorMessage?: string;
    }>;
    expect(checks.length, run.stdout).toBeGreaterThan(0);
    expect(checks.map((c) => [c.id, c.status, c.errorMessage ?? ''])).toEqual(
      checks.map((c) => [c.id, 'SUCCESS', '']),
    );
  });
});
