import { request } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { appFor, MINI, MINI_PROMPTS } from './helpers.js';

// Request bodies on a real socket: read once from the node stream, within the limit,
// decoded across chunk boundaries.

let service: RunningService;
beforeAll(async () => {
  const started = await startService({
    dir: MINI,
    env: {},
    port: 0,
    watch: false,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  service = started.service;
});
afterAll(() => service.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs the chunks one by one (chunked unless `length` is given). */
function post(chunks: Buffer[], headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(`${service.url}/api/compose`, { method: 'POST', headers }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString() }),
      );
    });
    // Once answered, the rest of a refused body may meet a closed socket: not an error here.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    const write = (i: number) => {
      if (answered || req.destroyed) return;
      if (i === chunks.length) return req.end();
      req.write(chunks[i], () => setTimeout(() => write(i + 1), 5));
    };
    write(0);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('request bodies on the socket', () => {
  it('decodes a body whose chunks split a multi-byte character', async () => {
    const bytes = Buffer.from(JSON.stringify({ agent: 'w1', ambient: '中文 ambient' }));
    const cut = bytes.indexOf(Buffer.from('中')) + 1; // inside the character's three bytes
    const res = await post([bytes.subarray(0, cut), bytes.subarray(cut)], {
      ...JSON_TYPE,
      accept: 'text/plain',
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe(`${MINI_PROMPTS.w1}\n\n---\n\n中文 ambient`);
  });

  it('refuses a declared Content-Length over the limit before reading, and closes', async () => {
    const body = Buffer.from(JSON.stringify({ ambient: 'x'.repeat(70 * 1024) }));
    const res = await post([body], { ...JSON_TYPE, 'content-length': String(body.byteLength) });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('BODY_TOO_LARGE');
    expect(res.headers.connection).toBe('close');
  });

  it('refuses a streamed body at the first chunk past the limit', async () => {
    const chunk = Buffer.from('x'.repeat(16 * 1024));
    const chunks = [
      Buffer.from('{"ambient":"'),
      ...Array.from({ length: 6 }, () => chunk),
      Buffer.from('"}'),
    ];
    const res = await post(chunks, JSON_TYPE);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('BODY_TOO_LARGE');
  });

  it('answers 415 to a body without a content type, 400 to malformed JSON', async () => {
    const noType = await post([Buffer.from('{"role":"writer"}')], {});
    expect(noType.status).toBe(415);
    expect(JSON.parse(noType.body).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const bad = await post([Buffer.from('{"role":')], JSON_TYPE);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe('BAD_REQUEST');
  });

  it('answers 415 to a compressed body (Content-Encoding other than identity) before reading it, naming what it reads', async () => {
    const json = Buffer.from(JSON.stringify({ role: 'writer' }));
    for (const [encoding, body] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
      ['GZIP, identity', gzipSync(json)],
    ] as const) {
      const res = await post([body], { ...JSON_TYPE, 'content-encoding': encoding });
      expect(res.status).toBe(415);
      expect(res.headers['accept-encoding']).toBe('identity');
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(res.body).error).toEqual({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: `the body's Content-Encoding ${JSON.stringify(encoding)} is not one strata reads; send the body uncompressed (identity)`,
      });
    }
    // A decompression bomb is refused without a byte of it inflated: 16 KiB of gzip that
    // would inflate to 16 MiB.
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, 32), { level: 9 });
    const refused = await post([bomb], { ...JSON_TYPE, 'content-encoding': 'gzip' });
    expect(refused.status).toBe(415);
    // identity (any case) is no coding at all.
    const plain = await post([json], { ...JSON_TYPE, 'content-encoding': 'Identity', accept: 'text/plain' });
    expect([plain.status, plain.body]).toEqual([200, MINI_PROMPTS.writer]);
  });

  it('answers 415 to a transfer coding other than chunked (gzip, chunked) before reading it, as to a Content-Encoding', async () => {
    const json = Buffer.from(JSON.stringify({ role: 'writer' }));
    for (const [coding, body] of [
      ['gzip, chunked', gzipSync(json)],
      ['deflate, chunked', json], // not even deflated: it was composed as it came
      ['x-custom;a=1, chunked', json],
    ] as const) {
      const res = await post([body], { ...JSON_TYPE, 'transfer-encoding': coding, accept: 'text/plain' });
      expect(res.status).toBe(415);
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(res.body).error).toEqual({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: `the body's Transfer-Encoding ${JSON.stringify(coding)} is not one strata reads; send the body uncompressed (chunked or with a Content-Length)`,
      });
    }
    // chunked alone (any case) is framing, not a coding of the body.
    const plain = await post([json], { ...JSON_TYPE, 'transfer-encoding': 'Chunked', accept: 'text/plain' });
    expect([plain.status, plain.body]).toEqual([200, MINI_PROMPTS.writer]);
  });

  it('the app answers the same without a socket', async () => {
    const { app } = await appFor(MINI);
    const res = await app.request('/api/compose', {
      method: 'POST',
      headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.from('{"role":"writer"}')),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
