import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, ROOT } from '../helpers.js';
import { copyFixture, MINI, MINI_PROMPTS, waitFor } from '../server/helpers.js';
import { mcpInProcess, promptText } from './helpers.js';

// `strata mcp`: the MCP server on stdin and stdout, in-process with the SDK's client, and
// once as a real process with the SDK's stdio transport.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('strata mcp', () => {
  it('lists and gets the prompts, byte-identical to strata compose, with only JSON-RPC on stdout', async () => {
    const mcp = await mcpInProcess(['--dir', MINI, '--no-watch']);
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['critic', 'writer', 'w1', 'c1']);
    const got = await mcp.client.getPrompt({ name: 'w1' });
    expect(promptText(got)).toBe(MINI_PROMPTS.w1);
    expect(promptText(got)).toBe((await cli(['compose', '--dir', MINI, '--agent', 'w1'])).stdout);
    await mcp.client.close();
    expect(await mcp.end()).toBe(0);
    expect(mcp.stdout.length).toBeGreaterThan(2);
    for (const line of mcp.stdout) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    // Logs are JSON lines on stderr.
    expect(mcp.stderr()).toMatch(/"msg":"serving MCP on stdio"/);
    expect(mcp.stderr()).toMatch(/"reason":"end of input"/);
  });

  it('answers a line that is too long, not JSON or not JSON-RPC with an error, and goes on', async () => {
    const mcp = await mcpInProcess(['--dir', MINI, '--no-watch', '--max-body-bytes', '200']);
    const errorLine = (code: number) => (line: string) => line.includes(`"code":${code}`);
    let answer = mcp.nextLine(errorLine(-32600));
    mcp.writeLine(`{"jsonrpc":"2.0","id":99,"method":"ping","params":{"pad":"${'x'.repeat(300)}"}}`);
    expect(JSON.parse(await answer)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'BODY_TOO_LARGE: a message over 200 bytes (--max-body-bytes)' },
    });
    answer = mcp.nextLine(errorLine(-32700));
    mcp.writeLine('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(JSON.parse(await answer).error.message).toMatch(/^Parse error: /);
    answer = mcp.nextLine(errorLine(-32600));
    mcp.writeLine('{"jsonrpc":"1.0","id":7,"method":"ping"}');
    expect(JSON.parse(await answer)).toMatchObject({
      id: 7,
      error: { message: 'Invalid Request: not a JSON-RPC 2.0 message' },
    });
    answer = mcp.nextLine(errorLine(-32600));
    mcp.writeLine('[{"jsonrpc":"2.0","id":8,"method":"ping"}]');
    expect(JSON.parse(await answer)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message:
          'Invalid Request: a batch (a JSON array) is not taken on stdio; send each message on a line of its own',
      },
    });
    // The session is whole.
    expect(await mcp.client.ping()).toEqual({});
    expect(mcp.stderr()).toMatch(/a message from the client was refused/);
    expect(await mcp.end()).toBe(0);
  });

  // JSON.parse reads a repeated key as its last value: prompts/get with "name":"w1","name":"c1"
  // answered c1's prompt, and a lone surrogate escape was composed, where HTTP refuses both.
  it.each([
    [
      'a key given twice',
      '{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"w1","name":"c1"}}',
      'BAD_REQUEST: the body gives key "name" twice in one object; give each key once',
    ],
    [
      'a lone surrogate escape',
      '{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"w1","arguments":{"ambient":"\\ud800"}}}',
      'BAD_REQUEST: a string of the body (at character 92) holds a \\u escape of a lone surrogate (D800-DFFF without its pair): it is not Unicode text',
    ],
  ])(
    'refuses a message with %s (-32600 BAD_REQUEST), as HTTP does, and goes on',
    async (_, line, message) => {
      const mcp = await mcpInProcess(['--dir', MINI, '--no-watch']);
      const answer = mcp.nextLine((l) => l.includes('"id":8'));
      mcp.writeLine(line);
      expect(JSON.parse(await answer)).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32600, message } });
      expect(await mcp.client.ping()).toEqual({});
      expect(await mcp.end()).toBe(0);
    },
  );

  it('sends list_changed and a log message when an edit of the pack is served', async () => {
    const pack = await copyFixture();
    cleanups.push(pack.cleanup);
    const mcp = await mcpInProcess(['--dir', pack.dir, '--debounce', '20', '--poll-interval', '0']);
    let changed = 0;
    const logs: unknown[] = [];
    mcp.client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      changed += 1;
    });
    mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    expect(promptText(await mcp.client.getPrompt({ name: 'writer' }))).toBe(MINI_PROMPTS.writer);
    await writeFile(join(pack.dir, 'roles', 'writer.md'), 'Writer, edited.\n');
    await waitFor(() => (changed > 0 ? true : undefined), 30_000, 'list_changed');
    expect(promptText(await mcp.client.getPrompt({ name: 'writer' }))).toBe(
      'Base.\n\n---\n\nWriter, edited.',
    );
    expect(logs).toContainEqual(
      expect.objectContaining({ event: 'reload', changed: { agents: ['w1'], roles: ['writer'] } }),
    );
    expect(await mcp.end()).toBe(0);
  });

  it('exits 1 with the diagnostics on stderr, and nothing on stdout, for a pack with errors', async () => {
    const pack = await copyFixture();
    cleanups.push(pack.cleanup);
    await writeFile(join(pack.dir, 'strata.yaml'), 'layers: [\n');
    const { PassThrough } = await import('node:stream');
    const direct = await cli(['mcp', '--dir', pack.dir, '--no-watch'], {}, ROOT, new PassThrough());
    expect(direct.code).toBe(1);
    expect(direct.stdout).toBe('');
    expect(direct.stderr).toMatch(/^error YAML_SYNTAX: strata.yaml:/);
  });

  it.each([
    ['--mcp-page-size', '0'],
    ['--max-body-bytes', 'x'],
    ['--log-level', 'loud'],
  ])('exits 2 with USAGE on %s %s', async (flag, value) => {
    const { code, stderr, stdout } = await cli(['mcp', '--dir', MINI, flag, value]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error USAGE: /);
  });
});

describe('strata mcp as a process', () => {
  it('serves the SDK stdio client, and stops when the client goes', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', join(ROOT, 'bin/strata.ts'), 'mcp', '--dir', MINI, '--no-watch'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'strata-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid!;
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['critic', 'writer', 'w1', 'c1']);
    expect(promptText(await client.getPrompt({ name: 'critic' }))).toBe(MINI_PROMPTS.critic);
    await client.close();
    await waitFor(() => (isGone(pid) ? true : undefined), 30_000, 'the process to exit');
  });

  it('stops on SIGTERM with exit status 0, having written nothing to stdout', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'bin/strata.ts'), 'mcp', '--dir', MINI],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor(() => (stderr.includes('serving MCP on stdio') ? true : undefined), 60_000, 'serving');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/"reason":"SIGTERM"/);
  });
});

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
