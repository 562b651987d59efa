import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HonoRequest, MiddlewareHandler } from 'hono';
import { jsonBodyProblem } from '../../core/text/json-check.js';
import { type Answer, sendAnswer } from '../service/answer.js';
import type { AppEnv } from '../service/context.js';
import { errorAnswer } from '../service/errors.js';
import { continueBody } from './continue.js';
import { parseJson } from './json-parse.js';
import { decodeUtf8 } from './utf8-text.js';

/**
 * Reads every `POST` body once, with a byte cap, before the route sees it ({@link readBody}):
 * the route reads the decoded text from hono's body cache, and `c.req.json()` (the
 * validators) parses it with {@link parseJson}, whose strings are slices of it, so a body
 * is held once, as text. (`c.req.arrayBuffer()` gives that text's UTF-8 bytes; no route
 * reads raw bytes.) A body the node server already read for a route it then left to the
 * app ({@link stashBody}) is taken as read.
 *
 * @example
 * app.use('/api/*', readBodies(64 * 1024));
 */
export function readBodies(limit: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
    const read = await readBody(
      { incoming: env?.incoming, outgoing: env?.outgoing, stream: () => c.req.raw.body },
      (name) => c.req.header(name),
      limit,
    );
    if ('status' in read) return sendAnswer(c, read);
    (c.req.bodyCache as Record<string, Promise<unknown>>).text = Promise.resolve(read.text);
    // `c.req.json()` (what the validators read) parses that text as JSON.parse does, with
    // its strings taken as slices of it rather than second copies. One shared function,
    // not a closure per request: V8's young-generation collector keeps a closure stored
    // on the request alive, with all it holds (the request, its body, its answer), so
    // every request was copied and promoted and the old generation filled with them.
    c.req.json = jsonOfText as typeof c.req.json;
    return next();
  };
}

/** Where a body comes from: the node request (and its response, for `100 Continue`), else a web stream. */
export interface BodySource {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
  stream?: () => ReadableStream<Uint8Array> | null;
}

/** A request header by name (lower case), repeated ones joined. */
export type HeaderOf = (name: string) => string | undefined;

/**
 * Reads a `POST` body once, with a byte cap: a body with a `Content-Encoding` (gzip,
 * deflate, br: anything but identity) or a transfer coding other than `chunked` is
 * answered 415 before a byte is read (never inflated: no decompression bomb), a
 * `Content-Length` over the cap 413 before a byte is read, and a streamed body is counted
 * as it arrives and refused (413, connection closed) at the first byte past the cap, so no
 * request holds more than `limit` bytes. The bytes are read straight from the node socket
 * when there is one (no web stream), decoded once in the charset the body declares,
 * strictly (joined in a reused buffer when they came in several chunks), and let go. Gives
 * the text and its media type, or the error answer. The hono app reads bodies with it; the
 * node server's direct path with {@link readIncomingText}.
 */
export async function readBody(
  source: BodySource,
  header: HeaderOf,
  limit: number,
): Promise<BodyText | Answer> {
  const kept = source.incoming && stashed.get(source.incoming);
  if (kept) return kept;
  const refused = bodyRefusal(header, limit);
  if (refused) return refused;
  const read = bodyTextOf(await readCapped(source, limit), header, limit);
  return 'status' in read ? read : (jsonProblem(read) ?? read);
}

/**
 * {@link readBody} for a node request not read yet, but for its last step, the JSON check
 * ({@link jsonProblem}), handing its outcome to `done` rather than to a promise: at once
 * for a body refused unread, else from the request's last event, so the node server's
 * direct path answers in that same turn. That path looks the body's text up among its kept
 * answers first: a text answered before was checked then.
 */
export function readIncomingText(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  header: HeaderOf,
  limit: number,
  done: (read: BodyText | Answer) => void,
): void {
  const refused = bodyRefusal(header, limit);
  if (refused) {
    done(refused);
    return;
  }
  continueBody(incoming, outgoing);
  readIncoming(incoming, limit, (chunks) => done(bodyTextOf(chunks, header, limit)));
}

/**
 * The 400 for a JSON body that JSON.parse would take but that cannot mean what was sent:
 * a repeated key, a lone surrogate escape (see jsonBodyProblem); undefined when it is fine
 * or not JSON.
 */
export function jsonProblem(read: BodyText): Answer | undefined {
  const problem = read.mediaType.includes('json') ? jsonBodyProblem(read.text) : undefined;
  return problem === undefined ? undefined : errorAnswer(400, 'BAD_REQUEST', problem);
}

/** A body read whole: its text, and its media type (lower case, no parameters). */
export interface BodyText {
  text: string;
  mediaType: string;
}

/**
 * The answer to a body refused before a byte of it is read: a `Content-Encoding` other
 * than identity or a `Transfer-Encoding` other than chunked (415), a `Content-Length`
 * over the limit (413); undefined when it may be read.
 */
export function bodyRefusal(header: HeaderOf, limit: number): Answer | undefined {
  // A compressed body is refused before a byte of it is read or inflated (a small gzip
  // body may inflate to gigabytes): as a charset strata cannot read, 415, saying what it
  // reads. Unread, the body is left on the connection, so it closes.
  const encoding = header('content-encoding');
  if (encoding !== undefined && !isIdentity(encoding)) {
    return errorAnswer(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `the body's Content-Encoding ${JSON.stringify(encoding.slice(0, 100))} is not one strata reads; send the body uncompressed (identity)`,
      undefined,
      { connection: 'close', 'accept-encoding': 'identity' },
    );
  }
  // A transfer coding is a compression too (`Transfer-Encoding: gzip, chunked`): Node
  // takes the chunks off but leaves the gzip on, so the body would be read as the
  // compressed bytes (400 "not valid UTF-8", or text the client never meant as JSON).
  const transfer = header('transfer-encoding');
  if (transfer !== undefined && !isChunked(transfer)) {
    return errorAnswer(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `the body's Transfer-Encoding ${JSON.stringify(transfer.slice(0, 100))} is not one strata reads; send the body uncompressed (chunked or with a Content-Length)`,
      undefined,
      { connection: 'close', 'accept-encoding': 'identity' },
    );
  }
  const declared = header('content-length');
  if (declared !== undefined && Number(declared) > limit) return tooLarge(limit);
  return undefined;
}

/**
 * Whether a request's body is JSON as the app's route reads it: a `Content-Type` of
 * `application/json` (or `application/…+json`), with parameters, which the route's media
 * type check lets through and its validator parses. The node server's direct path reads
 * only such bodies; any other request goes to the app with its body unread.
 */
export function plainJsonBody(header: HeaderOf): boolean {
  const type = header('content-type');
  if (type === undefined) return false;
  if (type === lastJsonType) return true;
  if (!JSON_REQUEST.test(type)) return false;
  lastJsonType = type;
  return true;
}

/**
 * Keeps a body the node server read for a request it then hands to the app, which takes
 * it instead of reading the (spent) request again.
 */
export function stashBody(incoming: IncomingMessage, read: BodyText | Answer): void {
  stashed.set(incoming, read);
}

// --- internal ---

/** Whether a Content-Encoding names no coding at all: `identity` (any case), or nothing. */
function isIdentity(encoding: string): boolean {
  return encoding.split(',').every((coding) => {
    const name = coding.trim().toLowerCase();
    return name === '' || name === 'identity';
  });
}

/** Whether a Transfer-Encoding names only framing (`chunked`, `identity`, any case), no compression. */
function isChunked(transfer: string): boolean {
  return transfer.split(',').every((coding) => {
    const name = coding.split(';')[0]!.trim().toLowerCase();
    return name === '' || name === 'chunked' || name === 'identity';
  });
}

/** A body the client stopped sending (the connection closed before its end). */
const CUT = Symbol('cut');

const CLOSE = { connection: 'close' };
/** The JSON media types the route's media type check takes (`@hono/zod-openapi`'s own test). */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

const stashed = new WeakMap<IncomingMessage, BodyText | Answer>();
/** The last `Content-Type` found plain JSON (nearly every body of a service's clients declares the same one). */
let lastJsonType: string | undefined;

function tooLarge(limit: number): Answer {
  return errorAnswer(413, 'BODY_TOO_LARGE', `request body is over ${limit} bytes`, undefined, CLOSE);
}

/** A body's text from its chunks (as {@link readCapped} gives them), or the error answer. */
function bodyTextOf(
  chunks: Uint8Array[] | undefined | typeof CUT,
  header: HeaderOf,
  limit: number,
): BodyText | Answer {
  if (chunks === undefined) return tooLarge(limit);
  if (chunks === CUT) {
    // The client went away mid-body: nobody reads this answer, but it is an answer, not a fault.
    return errorAnswer(400, 'BAD_REQUEST', 'the request body ended before its end', undefined, CLOSE);
  }
  const { mediaType, decoder } = contentTypeOf(header('content-type') ?? '');
  if (mediaType === '' && chunks.length > 0) {
    return errorAnswer(415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
  }
  // The body is read in the charset it declares (UTF-8 when it declares none), strictly:
  // bytes that are not that charset are refused, never decoded to U+FFFD and composed.
  if (typeof decoder === 'string') {
    return errorAnswer(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `the body's charset ${JSON.stringify(decoder)} is not one strata can read; send UTF-8`,
    );
  }
  // The text is decoded here, once, and the bytes let go: the request holds one copy of
  // its body, as text.
  const text = decode(chunks, decoder);
  if (text === undefined) {
    return errorAnswer(
      400,
      'BAD_REQUEST',
      `the request body is not valid ${decoder.encoding === 'utf-8' ? 'UTF-8' : decoder.encoding}`,
    );
  }
  return { text, mediaType };
}

/** The body's chunks (none when it is empty), undefined past `limit`, or CUT. */
function readCapped(source: BodySource, limit: number): Promise<Uint8Array[] | undefined | typeof CUT> {
  const { incoming } = source;
  if (incoming && !incoming.readableDidRead) {
    // `Expect: 100-continue`: the client sends the body once told to, now that it is read.
    continueBody(incoming, source.outgoing);
    return new Promise((resolve) => readIncoming(incoming, limit, resolve));
  }
  return readStream(source.stream?.() ?? null, limit);
}

/**
 * Reads a node request's body, handing `done` its chunks, undefined past `limit`, or CUT.
 * Node emits a request's `error` only to a listener (none here): a request cut off
 * mid-body closes before its end. The listeners stay on the request, settled.
 */
function readIncoming(
  incoming: IncomingMessage,
  limit: number,
  done: (chunks: Uint8Array[] | undefined | typeof CUT) => void,
): void {
  let chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const finish = (value: Uint8Array[] | undefined | typeof CUT) => {
    if (settled) return;
    settled = true;
    chunks = []; // the listeners left on the request hold no bytes
    done(value);
  };
  incoming.on('data', (chunk: Buffer) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size > limit) {
      // Stop reading: the answer closes the connection, so the rest is never buffered.
      incoming.pause();
      finish(undefined);
    } else if (chunk.byteLength > 0) chunks.push(chunk);
  });
  incoming.on('end', () => finish(chunks));
  incoming.on('close', () => {
    if (!incoming.readableEnded) finish(CUT);
  });
}

async function readStream(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array[] | undefined> {
  if (!body) return [];
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
    if (value.byteLength > 0) chunks.push(value);
  }
  return chunks;
}

/** `c.req.json()`: the cached text, parsed by {@link parseJson}. */
function jsonOfText(this: HonoRequest): Promise<unknown> {
  return this.text().then(parseJson);
}

/** UTF-8 as `Request.text()` decodes it (a BOM is skipped), except that bad bytes are refused. */
const DECODER = new TextDecoder('utf-8', { fatal: true });

/** A `Content-Type`'s media type (lower case, no parameters) and the decoder of its charset. */
interface ContentType {
  mediaType: string;
  decoder: TextDecoder | string;
}

/** The last `Content-Type` read: nearly every body of a service's clients declares the same one. */
let lastType: { header: string; read: ContentType } | undefined;

function contentTypeOf(header: string): ContentType {
  if (lastType?.header !== header) {
    const read = { mediaType: header.split(';')[0]!.trim().toLowerCase(), decoder: decoderFor(header) };
    lastType = { header, read };
  }
  return lastType.read;
}

/**
 * The decoder of a body's `charset` parameter (none: UTF-8), fatal on bytes that are not
 * that charset; the label itself when no decoder knows it.
 */
function decoderFor(contentType: string): TextDecoder | string {
  const charset = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]*))/i.exec(contentType);
  const label = (charset?.[1] ?? charset?.[2] ?? '').trim().toLowerCase();
  if (label === '' || label === 'utf-8' || label === 'utf8') return DECODER;
  try {
    return new TextDecoder(label, { fatal: true });
  } catch {
    return label;
  }
}
/** Bodies in several chunks up to this size are joined in one reused buffer, not a new one each. */
const SCRATCH_BYTES = 256 * 1024;
let scratch: Buffer | undefined;

/** The chunks' text, decoded at once (a character split between chunks is whole); undefined when it does not decode. */
function decode(chunks: Uint8Array[], decoder: TextDecoder): string | undefined {
  try {
    return decodeOrThrow(chunks, decoder);
  } catch {
    return undefined;
  }
}

function decodeOrThrow(chunks: Uint8Array[], decoder: TextDecoder): string {
  if (chunks.length === 0) return '';
  // UTF-8 (nearly every body) through the buffer functions; other charsets through their decoder.
  const decodeBytes = (bytes: Uint8Array) => {
    if (decoder !== DECODER) return decoder.decode(bytes);
    const text = decodeUtf8(bytes);
    if (text === undefined) throw new TypeError('not UTF-8');
    return text;
  };
  if (chunks.length === 1) return decodeBytes(chunks[0]!);
  let size = 0;
  for (const chunk of chunks) size += chunk.byteLength;
  if (size > SCRATCH_BYTES) return decodeBytes(Buffer.concat(chunks, size));
  // Joined and decoded before anything else runs: the buffer is free again after.
  scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  let at = 0;
  for (const chunk of chunks) {
    scratch.set(chunk, at);
    at += chunk.byteLength;
  }
  return decodeBytes(scratch.subarray(0, size));
}
