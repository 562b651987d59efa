import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.js';
import { errorResponse } from './errors.js';
import { parseJson } from './json-parse.js';

/**
 * Reads every `POST` body once, with a byte cap, before the route sees it: a
 * `Content-Length` over the cap is answered 413 before a byte is read, and a streamed
 * body is counted as it arrives and refused (413, connection closed) at the first byte
 * past the cap, so no request holds more than `limit` bytes. The bytes are read straight
 * from the node socket when there is one (no web stream, no copy beyond the chunks),
 * decoded once, and handed to hono's body cache, which the handlers read; `c.req.json()`
 * (the validators) parses that text with {@link parseJson}, whose strings are slices of
 * it, so a body's long member is held once.
 *
 * @example
 * app.use('/api/*', readBodies(64 * 1024));
 */
export function readBodies(limit: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const tooLarge = () => {
      c.header('Connection', 'close');
      return errorResponse(c, 413, 'BODY_TOO_LARGE', `request body is over ${limit} bytes`);
    };
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > limit) return tooLarge();
    const bytes = await readCapped(c, limit);
    if (bytes === undefined) return tooLarge();
    if (bytes === CUT) {
      // The client went away mid-body: nobody reads this answer, but it is an answer, not a fault.
      c.header('Connection', 'close');
      return errorResponse(c, 400, 'BAD_REQUEST', 'the request body ended before its end');
    }
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType === '' && bytes.byteLength > 0) {
      return errorResponse(c, 415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
    }
    // The text is decoded here, once; the bytes stay available to `c.req.arrayBuffer()`.
    const text = DECODER.decode(bytes);
    const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
    cache.text = Promise.resolve(text);
    cache.arrayBuffer = Promise.resolve(arrayBufferOf(bytes));
    // `c.req.json()` (what the validators read) parses that text as JSON.parse does, with
    // its strings taken as slices of it rather than second copies.
    c.req.json = (() => new Promise<unknown>((resolve) => resolve(parseJson(text)))) as typeof c.req.json;
    return next();
  };
}

// --- internal ---

/** A body the client stopped sending (the connection closed before its end). */
const CUT = Symbol('cut');

/** The body's bytes, undefined past `limit`, or CUT. */
function readCapped(c: Context<AppEnv>, limit: number): Promise<Buffer | undefined | typeof CUT> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableDidRead) return readIncoming(incoming, limit);
  return readStream(c.req.raw.body, limit);
}

function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer | undefined | typeof CUT> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (value: Buffer | undefined | typeof CUT) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        // Stop reading: the answer closes the connection, so the rest is never buffered.
        incoming.pause();
        done(undefined);
      } else chunks.push(chunk);
    };
    const onEnd = () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = () => done(CUT);
    const onClose = () => {
      if (!incoming.readableEnded) done(CUT);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

async function readStream(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Buffer | undefined> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** UTF-8 as `Request.text()` decodes it: a BOM is skipped, bad bytes become U+FFFD. */
const DECODER = new TextDecoder();

function arrayBufferOf(bytes: Buffer): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? (bytes.buffer as ArrayBuffer)
    : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}
