import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { McpErrorData } from '../../src/mcp/errors.js';
import {
  createPromptServer,
  type PromptServer,
  type PromptServerOptions,
} from '../../src/mcp/prompt-server.js';
import type { SnapshotStore } from '../../src/reload/store.js';

/** An SDK client connected in-process to a strata MCP server over `source`. */
export async function connected(
  source: Pick<SnapshotStore, 'state' | 'subscribe'>,
  options: Partial<PromptServerOptions> = {},
): Promise<{ client: Client; server: PromptServer; close(): Promise<void> }> {
  const server = createPromptServer({ source, version: '0.0.0-test', ...options });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.session().connect(serverSide);
  const client = new Client({ name: 'strata-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    server,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The JSON-RPC error a call fails with (code, message without the SDK's prefix, data). */
export async function rpcError(
  call: Promise<unknown>,
): Promise<{ code: number; message: string; data: McpErrorData }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  const e = error as McpError;
  return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, ''), data: e.data as McpErrorData };
}

/** The text of a prompts/get answer's one message (it must be one `user` text message). */
export function promptText(result: { messages: Array<{ role: string; content: { type: string } }> }): string {
  expect(result.messages).toHaveLength(1);
  expect(result.messages[0]!.role).toBe('user');
  expect(result.messages[0]!.content.type).toBe('text');
  return (result.messages[0]!.content as unknown as { text: string }).text;
}

/**
 * `strata mcp` run in-process (the CLI's `run`, stdin a PassThrough) with an SDK client
 * on its stdin and stdout, and everything it wrote to each.
 */
export async function mcpInProcess(
  argv: string[],
  env: Record<string, string | undefined> = {},
): Promise<{
  client: Client;
  stdout: string[];
  stderr: () => string;
  /** Writes a raw line to its stdin (the client's own messages go the same way). */
  writeLine(line: string): void;
  /** The next line it writes that `match` accepts. */
  nextLine(match: (line: string) => boolean): Promise<string>;
  /** Closes its stdin: resolves with its exit status. */
  end(): Promise<number>;
}> {
  const { PassThrough } = await import('node:stream');
  const { run } = await import('../../src/cli/run.js');
  const input = new PassThrough();
  const stdout: string[] = [];
  let pending = '';
  let stderr = '';
  const waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let onLine: ((line: string) => void) | undefined;
  const exited = run(['mcp', ...argv], {
    stdout: (text) => {
      pending += text;
      for (let i = pending.indexOf('\n'); i !== -1; i = pending.indexOf('\n')) {
        const line = pending.slice(0, i);
        pending = pending.slice(i + 1);
        stdout.push(line);
        const waiter = waiters.findIndex((w) => w.match(line));
        if (waiter !== -1) waiters.splice(waiter, 1)[0]!.resolve(line);
        onLine?.(line);
      }
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    cwd: process.cwd(),
    input,
  });
  const transport: Transport = {
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    async start() {
      onLine = (line) => transport.onmessage?.(JSON.parse(line) as JSONRPCMessage);
    },
    async send(message: unknown) {
      input.write(`${JSON.stringify(message)}\n`);
    },
    async close() {
      transport.onclose?.();
    },
  };
  const client = new Client({ name: 'strata-test', version: '1.0.0' });
  // A command that exits before it serves (a usage error, a pack with errors) says why.
  await Promise.race([
    client.connect(transport),
    exited.then((code) => {
      throw new CommandExited(code, stderr);
    }),
  ]);
  return {
    client,
    stdout,
    stderr: () => stderr,
    writeLine: (line) => input.write(`${line}\n`),
    nextLine: (match) => new Promise((resolve) => waiters.push({ match, resolve })),
    end: async () => {
      input.end();
      return exited;
    },
  };
}

/** `strata mcp` exited before it served: its exit status and stderr. */
export class CommandExited extends Error {
  constructor(
    readonly code: number,
    readonly stderr: string,
  ) {
    super(`strata mcp exited ${code}: ${stderr}`);
  }
}
