import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/server/query.js';
import { EXAMPLES } from '../helpers.js';
import { appFor } from '../server/helpers.js';

const CREWAI = join(EXAMPLES, 'crewai');
const ROLE = 'market_analyst';

/**
 * Hostile HTTP input, one test per finding: a request the service cannot read exactly as
 * the client meant it is refused with a coded error, never composed from a guess.
 */
describe('hostile HTTP requests', () => {
  let service: Awaited<ReturnType<typeof appFor>>;
  beforeAll(async () => {
    service = await appFor(CREWAI);
  });
  afterAll(() => service.close());

  it.each([
    ['a var that is Latin-1, not UTF-8', `var.sector=caf%E9&var.quarter=Q1`, 'var.sector'],
    ['an overlong UTF-8 sequence', `var.sector=%C0%AE&var.quarter=Q1`, 'var.sector'],
    ['an encoded lone surrogate', `var.sector=%ED%A0%80&var.quarter=Q1`, 'var.sector'],
    ['ambient text with a % that begins no escape', `var.sector=a&var.quarter=Q1&ambient=100%`, 'ambient'],
    ['ambient text whose last byte is cut', `var.sector=a&var.quarter=Q1&ambient=caf%C3%A9%C3`, 'ambient'],
    ['a key that does not decode', `var.sector=a&var.quarter=Q1&set.%FF=1`, 'set.%FF'],
  ])('%s is 400 BAD_REQUEST naming the parameter, not composed', async (_, query, name) => {
    const res = await service.app.request(`/api/prompts/${ROLE}?${query}`, {
      headers: { accept: 'text/plain' },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.message).toContain(JSON.stringify(name));
  });

  it('a query that decodes is read the same by every reader (+ is a space, escapes are UTF-8)', async () => {
    expect(parseQuery('a=x+y&b=%2B&c=caf%C3%A9&&d&e=')).toEqual([
      ['a', 'x y'],
      ['b', '+'],
      ['c', 'café'],
      ['d', ''],
      ['e', ''],
    ]);
    const res = await service.app.request(`/api/prompts/${ROLE}?var.sector=caf%C3%A9+bar&var.quarter=Q1`, {
      headers: { accept: 'text/plain' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('café bar');
  });

  it('a body whose bytes are not UTF-8 (Latin-1 sent as UTF-8) is 400, not composed with U+FFFD', async () => {
    const body = new Uint8Array([
      ...new TextEncoder().encode(`{"role":"${ROLE}","vars":{"sector":"caf`),
      0xe9,
      ...new TextEncoder().encode('","quarter":"Q1"}}'),
    ]);
    for (const type of ['application/json', 'application/json; charset=utf-8']) {
      const res = await service.app.request('/api/compose', {
        method: 'POST',
        headers: { 'content-type': type, accept: 'text/plain' },
        body,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; message: string } }).error).toEqual({
        code: 'BAD_REQUEST',
        message: 'the request body is not valid UTF-8',
      });
    }
  });

  it('a body is read in the charset it declares; a charset nothing can read is 415', async () => {
    const json = `{"role":"${ROLE}","vars":{"sector":"café","quarter":"Q1"}}`;
    const latin1 = new Uint8Array([...json].map((ch) => ch.charCodeAt(0)));
    const utf16 = new Uint8Array(Buffer.from(`\ufeff${json}`, 'utf16le'));
    for (const [type, body] of [
      ['application/json; charset=ISO-8859-1', latin1],
      ['application/json; charset="utf-16"', utf16],
    ] as const) {
      const res = await service.app.request('/api/compose', {
        method: 'POST',
        headers: { 'content-type': type, accept: 'text/plain' },
        body,
      });
      expect(res.status, type).toBe(200);
      expect(await res.text()).toContain('café');
    }
    const res = await service.app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=klingon' },
      body: json,
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
