import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { jsonBodyProblem } from '../core/text/json-check.js';
import { JSONRPC } from './errors.js';
import type { PromptServer } from './prompt-server.js';

export interface StdioOptions {
  /** The client's messages, one JSON-RPC message a line (the process's stdin; a stream is destroyed when the session ends). */
  input: AsyncIterable<Uint8Array | string>;
  /** Writes to the client (the process's stdout): nothing but JSON-RPC lines goes there. */
  write: (text: string) => void;
  /** A line longer than this many bytes is refused with an error, never buffered whole. */
  maxMessageBytes: number;
  /** Told of a line refused (too long, not JSON, not JSON-RPC), for the process's log. */
  onRefused?: (problem: string) => void;
  /** Ends the session when it aborts (the process's SIGTERM), as the input ending does. */
  signal?: AbortSignal;
}

/**
 * Serves one MCP session over stdio: newline-delimited JSON-RPC read from `input` and
 * written with `write`, one message a line. A line that is not JSON (`-32700`), not a
 * JSON-RPC message (`-32600`; a batch too, saying so) or over `maxMessageBytes` (`-32600`, read and dropped without being kept) is
 * answered with an error and the session goes on. Resolves when the input ends (the
 * client closed it), `signal` aborts or the session is closed; the input is let go.
 *
 * @example
 * await serveStdio(prompts, { input: process.stdin, write: (t) => process.stdout.write(t), maxMessageBytes: 65536 });
 */
export async function serveStdio(server: PromptServer, options: StdioOptions): Promise<void> {
  const transport = new LineTransport(options);
  const session = server.session();
  const closed = new Promise<void>((resolve) => {
    transport.onclosed = resolve;
  });
  await session.connect(transport);
  const stop = () => void transport.close();
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  await closed;
  options.signal?.removeEventListener('abort', stop);
  await session.close().catch(() => undefined);
}

// --- internal ---

/** The SDK transport over a line stream (as the SDK's stdio transport, with bounded lines). */
class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once, when the input ends or the transport is closed. */
  onclosed?: () => void;
  #options: StdioOptions;
  #closed = false;
  #iterator: AsyncIterator<Uint8Array | string> | undefined;

  constructor(options: StdioOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    this.#iterator = this.#options.input[Symbol.asyncIterator]();
    void this.#read();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    this.#options.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Not awaited: a read may be pending. A stream (the process's stdin) is destroyed, so
    // its handle no longer keeps the process alive.
    void this.#iterator?.return?.().catch(() => undefined);
    (this.#options.input as { destroy?: () => void }).destroy?.();
    this.onclose?.();
    this.onclosed?.();
  }

  async #read(): Promise<void> {
    const lines = new LineSplitter(this.#options.maxMessageBytes);
    try {
      for (;;) {
        const next = await this.#iterator!.next();
        if (next.done || this.#closed) break;
        const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        for (const line of lines.push(chunk)) this.#line(line);
      }
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
    // The answers to the last lines are on their way (every handler answers without I/O):
    // a turn of the event loop lets them out before the session ends.
    await new Promise((resolve) => setImmediate(resolve));
    await this.close();
  }

  #line(line: Uint8Array | 'too-long'): void {
    if (line !== 'too-long' && line.byteLength === 0) return;
    const read = this.#message(line);
    if ('refused' in read) this.#refuse(read.refused, read.id);
    else this.onmessage?.(read.message);
  }

  /** A line's message, or the error that refuses it. */
  #message(
    line: Uint8Array | 'too-long',
  ):
    | { message: JSONRPCMessage }
    | { refused: { code: number; message: string }; id: string | number | null } {
    const refused = (code: number, message: string, id: string | number | null = null) => ({
      refused: { code, message },
      id,
    });
    if (line === 'too-long')
      return refused(
        JSONRPC.INVALID_REQUEST,
        `BODY_TOO_LARGE: a message over ${this.#options.maxMessageBytes} bytes (--max-body-bytes)`,
      );
    let value: unknown;
    let text: string;
    try {
      text = DECODER.decode(line);
      value = JSON.parse(text);
    } catch (e) {
      return refused(
        JSONRPC.PARSE_ERROR,
        `Parse error: ${e instanceof Error ? e.message : 'not UTF-8 JSON'}`,
      );
    }
    const rawId = (value as { id?: unknown } | null)?.id;
    const id = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;
    // As an HTTP body: a key given twice (`"name":"ada","name":"grace"`, which JSON.parse
    // reads as the last) or a lone surrogate escape is refused, never composed from a guess.
    const problem = jsonBodyProblem(text);
    if (problem !== undefined) return refused(JSONRPC.INVALID_REQUEST, `BAD_REQUEST: ${problem}`, id);
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) return { message: parsed.data };
    // A batch is the HTTP transport's (MCP 2025-03-26); stdio, as the SDK's own stdio
    // transport, takes one message a line: say so rather than call it no JSON-RPC.
    if (Array.isArray(value))
      return refused(
        JSONRPC.INVALID_REQUEST,
        'Invalid Request: a batch (a JSON array) is not taken on stdio; send each message on a line of its own',
      );
    return refused(JSONRPC.INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message', id);
  }

  #refuse(error: { code: number; message: string }, id: string | number | null): void {
    this.#options.onRefused?.(error.message);
    this.#options.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`);
  }
}

const DECODER = new TextDecoder('utf-8', { fatal: true });

/**
 * Splits a byte stream into lines (without their `\n`, a `\r` before it dropped), keeping
 * at most `max` bytes of a line: a longer line is given as `'too-long'` once its end
 * arrives, its bytes dropped as they come.
 */
class LineSplitter {
  #parts: Uint8Array[] = [];
  #size = 0;
  #tooLong = false;

  constructor(readonly max: number) {}

  *push(chunk: Uint8Array): Generator<Uint8Array | 'too-long'> {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.byteLength : end);
      this.#take(piece);
      if (end === -1) return;
      yield this.#finish();
      start = end + 1;
    }
  }

  #take(piece: Uint8Array): void {
    if (this.#tooLong || piece.byteLength === 0) return;
    this.#size += piece.byteLength;
    if (this.#size > this.max + 1) {
      this.#tooLong = true;
      this.#parts = [];
    } else this.#parts.push(piece.slice());
  }

  #finish(): Uint8Array | 'too-long' {
    const tooLong = this.#tooLong;
    let line = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
    this.#parts = [];
    this.#size = 0;
    this.#tooLong = false;
    if (line.at(-1) === CR) line = line.subarray(0, -1);
    if (tooLong || line.byteLength > this.max) return 'too-long';
    return line;
  }
}

const NEWLINE = 0x0a;
const CR = 0x0d;
