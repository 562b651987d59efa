import { describe, expect, it } from 'vitest';
import {
  type ClientPrompt,
  type ClientWarning,
  PromptClient,
  PromptServiceError,
} from '../../src/client/client.js';
import { SseParser } from '../../src/client/sse.js';
import { sha256 } from '../../src/core/text/text.js';
import { checkedApp } from './contract.js';
import { memoryStore, SEP, waitFor } from './helpers.js';

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer }\n',
};

async function setup() {
  const mem = memoryStore(PACK);
  await mem.store.reload('initial');
  const service = checkedApp({ store: mem.store, heartbeatMs: 0 });
  const calls: Array<{ url: string; headers: Record<string, string>; status: number }> = [];
  let down = false;
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    if (down) throw new TypeError('fetch failed: ECONNREFUSED');
    const request = new Request(input, init);
    const res = await service.fetch(request);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    calls.push({ url: request.url, headers, status: res.status });
    return res;
  }) as typeof fetch;
  return { ...mem, service, calls, fetchFn, setDown: (v: boolean) => (down = v) };
}

describe('PromptClient', () => {
  it("fetches an agent's prompt, then revalidates with If-None-Match (304)", async () => {
    const { fetchFn, calls } = await setup();
    const client = new PromptClient({ url: 'http://strata/', agent: 'w1', fetch: fetchFn });
    const first = await client.get();
    expect(first).toMatchObject({ text: ['Base.', 'Writer.'].join(SEP), source: 'service' });
    expect(first.sha256).toBe(sha256(first.text));
    const again = await client.get();
    expect(again.text).toBe(first.text);
    expect(calls.map((c) => [new URL(c.url).pathname, c.status, c.headers['if-none-match'] ?? null])).toEqual(
      [
        ['/api/agents/w1/prompt', 200, null],
        ['/api/agents/w1/prompt', 304, expect.stringMatching(/^"[0-9a-f]{64}"$/)],
      ],
    );
  });

  it('sends role, team and settings as query parameters', async () => {
    const { fetchFn, calls } = await setup();
    await new PromptClient({
      url: 'http://strata',
      role: 'writer',
      team: 'blue',
      settings: { fable_mode_enabled: true },
      fetch: fetchFn,
    })
      .get()
      .catch(() => undefined);
    expect(calls[0]!.url).toBe('http://strata/api/prompts/writer?team=blue&set.fable_mode_enabled=true');
  });

  it('keeps the last good prompt while the service is down, and uses the fallback before the first success', async () => {
    const { fetchFn, setDown } = await setup();
    const errors: PromptServiceError[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fallback: 'You are helpful.',
      fetch: fetchFn,
      onError: (e) => errors.push(e),
    });
    setDown(true);
    expect(client.current).toEqual({ text: 'You are helpful.', source: 'fallback' });
    expect(await client.get()).toEqual({ text: 'You are helpful.', source: 'fallback' });
    setDown(false);
    const good = await client.get();
    setDown(true);
    expect(await client.get()).toEqual({ ...good, source: 'stale' });
    expect(errors.map((e) => e.code)).toEqual(['UNAVAILABLE', 'UNAVAILABLE']);
  });

  it('throws a PromptServiceError with the service code when it has nothing to serve', async () => {
    const { fetchFn } = await setup();
    const client = new PromptClient({ url: 'http://strata', role: 'nobody', fetch: fetchFn });
    const error = await client.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptServiceError);
    expect(error).toMatchObject({ code: 'UNKNOWN_ROLE', status: 404 });
  });

  it('refreshes on a reload event pushed over /api/events', async () => {
    const { fetchFn, store, set } = await setup();
    const changes: ClientPrompt[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fetch: fetchFn,
      onChange: (p) => changes.push(p),
    });
    const stop = client.subscribe();
    await waitFor(() => (changes.length === 1 ? true : undefined), 30_000, 'the first fetch (on hello)');
    set('roles/writer.md', 'Writer v2.');
    await store.reload('watch');
    await waitFor(() => (changes.length === 2 ? true : undefined), 30_000, 'the refresh');
    expect(changes[1]!.text).toBe(['Base.', 'Writer v2.'].join(SEP));
    expect(client.current!.version).toBe(store.state!.snapshot.version);
    stop();
  });
});

describe('PromptClient, subscribed', () => {
  it('answers get() from the copy it holds while its event stream is connected, and refetches after a reload event', async () => {
    const { fetchFn, calls, store, set } = await setup();
    const changes: ClientPrompt[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fetch: fetchFn,
      onChange: (p) => changes.push(p),
    });
    const stop = client.subscribe();
    await waitFor(() => (changes.length === 1 ? true : undefined), 30_000, 'the first fetch (on hello)');
    const prompts = () => calls.filter((c) => c.url.includes('/prompt')).length;
    const before = prompts();
    for (let i = 0; i < 5; i++) expect((await client.get()).text).toBe(['Base.', 'Writer.'].join(SEP));
    expect(prompts()).toBe(before); // no request per get() while the stream is trusted
    set('roles/writer.md', 'Writer v2.');
    await store.reload('watch');
    await waitFor(() => (changes.length === 2 ? true : undefined), 30_000, 'the refresh on reload');
    expect((await client.get()).text).toBe(['Base.', 'Writer v2.'].join(SEP));
    expect(prompts()).toBe(before + 1);
    stop();
    // Unsubscribed: every get() revalidates again (a 304 here).
    await client.get();
    expect(prompts()).toBe(before + 2);
    expect(calls.at(-1)!.status).toBe(304);
  });
});

describe('PromptClient, subscribed again', () => {
  it('follows reload events again when subscribed after close()', async () => {
    const { fetchFn, calls, store, set } = await setup();
    const changes: ClientPrompt[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fetch: fetchFn,
      onChange: (p) => changes.push(p),
    });
    client.subscribe();
    await waitFor(() => (changes.length === 1 ? true : undefined), 30_000, 'the first fetch (on hello)');
    client.close();
    const streams = () => calls.filter((c) => c.url.endsWith('/api/events')).length;
    expect(streams()).toBe(1);
    const stop = client.subscribe();
    await waitFor(() => (streams() === 2 ? true : undefined), 30_000, 'the second event stream');
    set('roles/writer.md', 'Writer v2.');
    await store.reload('watch');
    await waitFor(() => (changes.length === 2 ? true : undefined), 30_000, 'the refresh on reload');
    expect(changes[1]!.text).toBe(['Base.', 'Writer v2.'].join(SEP));
    stop();
  });
});

describe('PromptClient, a silent event stream', () => {
  it('gives up a stream that brings nothing, stops trusting it and reconnects', async () => {
    const { service } = await setup();
    const encoder = new TextEncoder();
    const streams: string[] = [];
    let prompts = 0;
    const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname !== '/api/events') {
        prompts++;
        return service.fetch(request);
      }
      streams.push(request.url);
      // The first stream says hello, then nothing more, as a connection whose host is gone;
      // the second never says anything.
      const first = streams.length === 1;
      return new Response(
        new ReadableStream<Uint8Array>({
          start: (controller) => {
            if (first) controller.enqueue(encoder.encode('event: hello\ndata: {}\nid: b.1\n\n'));
          },
        }),
      );
    }) as typeof fetch;
    const errors: PromptServiceError[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fetch: fetchFn,
      reconnectMs: 1,
      idleTimeoutMs: 50,
      onError: (e) => errors.push(e),
    });
    const stop = client.subscribe();
    await waitFor(() => (prompts === 1 ? true : undefined), 30_000, 'the refresh on hello');
    await waitFor(() => (streams.length === 2 ? true : undefined), 30_000, 'the reconnect');
    // Not connected as far as anything shows: get() asks the service again.
    await client.get();
    expect(prompts).toBe(2);
    expect(errors[0]).toMatchObject({ code: 'UNAVAILABLE' });
    stop();
  });
});

describe("PromptClient, the service's retry", () => {
  it('reconnects after the delay the stream gives (retry:), not its own first delay', async () => {
    const { service } = await setup();
    const encoder = new TextEncoder();
    let streams = 0;
    const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname !== '/api/events') return service.fetch(request);
      streams++;
      // Each stream says hello with a retry of 1 ms, then ends.
      return new Response(
        new ReadableStream<Uint8Array>({
          start: (controller) => {
            controller.enqueue(encoder.encode('retry: 1\nevent: hello\ndata: {}\nid: b.1\n\n'));
            controller.close();
          },
        }),
      );
    }) as typeof fetch;
    // Its own first delay is an hour: only the service's retry brings a second stream.
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fetch: fetchFn,
      reconnectMs: 3_600_000,
    });
    const stop = client.subscribe();
    await waitFor(() => (streams >= 2 ? true : undefined), 30_000, 'the reconnect after retry: 1');
    stop();
  });
});

describe('PromptClient, a reload event during a refresh', () => {
  it('fetches again after a refresh that was under way when the event came', async () => {
    const { service, set, store } = await setup();
    // The event stream is fed by the test; a read of it waits for the next chunk.
    const encoder = new TextEncoder();
    let feed: ((text: string) => void) | undefined;
    const events = new ReadableStream<Uint8Array>(
      {
        pull: (controller) =>
          new Promise<void>((resolve) => {
            feed = (text) => {
              feed = undefined;
              controller.enqueue(encoder.encode(text));
              resolve();
            };
          }),
      },
      { highWaterMark: 0 },
    );
    // The first prompt request is answered from the version served when it came, but
    // only once the test releases it.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let prompts = 0;
    const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname === '/api/events') return new Response(events);
      const res = await service.fetch(request);
      if (++prompts === 1) await gate;
      return res;
    }) as typeof fetch;
    const changes: ClientPrompt[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fetch: fetchFn,
      onChange: (p) => changes.push(p),
    });
    const stop = client.subscribe();
    const reading = () => (feed ? feed : undefined);
    (await waitFor(reading, 30_000, 'the stream read'))('event: hello\ndata: {}\nid: b.1\n\n');
    await waitFor(() => (prompts === 1 ? true : undefined), 30_000, 'the refresh on hello');

    set('roles/writer.md', 'Writer v2.');
    const swapped = await store.reload('watch');
    (await waitFor(reading, 30_000, 'the stream read'))(
      `event: reload\ndata: ${JSON.stringify({ version: swapped.version })}\nid: b.2\n\n`,
    );
    await waitFor(reading, 30_000, 'the reload event taken');
    release();

    await waitFor(() => (changes.length === 2 ? true : undefined), 30_000, 'the refresh for the reload');
    expect(changes.map((p) => p.text)).toEqual([
      ['Base.', 'Writer.'].join(SEP),
      ['Base.', 'Writer v2.'].join(SEP),
    ]);
    expect(client.current!.version).toBe(swapped.version);
    stop();
  });
});

describe('PromptClient options and permanent errors', () => {
  it('throws for an unknown agent even with a fallback (a permanent 4xx), and says so through onError', async () => {
    const { fetchFn } = await setup();
    const errors: PromptServiceError[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'nobody',
      fallback: 'You are helpful.',
      fetch: fetchFn,
      onError: (e) => errors.push(e),
    });
    const error = await client.get().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNKNOWN_AGENT', status: 404, permanent: true });
    expect(errors.map((e) => e.code)).toEqual(['UNKNOWN_AGENT']);
  });

  it('keeps the fallback for an outage (not permanent)', async () => {
    const { fetchFn, setDown } = await setup();
    setDown(true);
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      fallback: 'You are helpful.',
      fetch: fetchFn,
    });
    expect(await client.get()).toEqual({ text: 'You are helpful.', source: 'fallback' });
  });

  it('composes ambient text with POST /api/compose', async () => {
    const { fetchFn, calls } = await setup();
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      ambient: 'Ship it.',
      fetch: fetchFn,
    });
    expect((await client.get()).text).toBe(['Base.', 'Writer.', 'Ship it.'].join(SEP));
    expect(calls.at(-1)!.url).toBe('http://strata/api/compose');
  });

  it('asks for a provider format and holds the body, with the prompt text from it', async () => {
    const { fetchFn, calls } = await setup();
    const client = new PromptClient({ url: 'http://strata', agent: 'w1', format: 'openai', fetch: fetchFn });
    const prompt = await client.get();
    expect(prompt.body).toEqual({ messages: [{ role: 'system', content: ['Base.', 'Writer.'].join(SEP) }] });
    expect(prompt.text).toBe(['Base.', 'Writer.'].join(SEP));
    await client.get();
    expect(calls.at(-1)).toMatchObject({ status: 304 });
    expect(calls.at(-1)!.url).toBe('http://strata/api/agents/w1/prompt?format=openai');
  });

  it('holds the warnings the service gave with a prompt and says each once, not again for a 304', async () => {
    const { fetchFn, calls } = await setup();
    const given: ClientWarning[] = [];
    const client = new PromptClient({
      url: 'http://strata',
      role: 'writer',
      team: 'blue',
      fetch: fetchFn,
      onWarning: (w) => given.push(w),
    });
    const first = await client.get();
    expect(first.warnings).toEqual([{ code: 'UNKNOWN_TEAM', message: expect.stringContaining('"blue"') }]);
    const again = await client.get();
    expect(calls.map((c) => c.status)).toEqual([200, 304]);
    expect(again.warnings).toEqual(first.warnings);
    expect(given).toEqual(first.warnings);
    // A provider body's warnings are the codes of X-Strata-Warnings.
    const body = new PromptClient({
      url: 'http://strata',
      role: 'writer',
      team: 'blue',
      format: 'anthropic',
      fetch: fetchFn,
      onWarning: (w) => given.push(w),
    });
    expect((await body.get()).warnings).toEqual([{ code: 'UNKNOWN_TEAM' }]);
    expect(given.map((w) => w.code)).toEqual(['UNKNOWN_TEAM', 'UNKNOWN_TEAM']);
    // Without warnings the prompt has none, and by default each is a StrataWarning.
    expect(
      (await new PromptClient({ url: 'http://strata', role: 'writer', fetch: fetchFn }).get()).warnings,
    ).toBe(undefined);
    const seen: Error[] = [];
    const listener = (w: Error) => seen.push(w);
    process.on('warning', listener);
    try {
      await new PromptClient({ url: 'http://strata', role: 'writer', team: 'blue', fetch: fetchFn }).get();
      await new Promise((done) => setImmediate(done));
    } finally {
      process.off('warning', listener);
    }
    expect(
      seen.filter((w) => w.name === 'StrataWarning').map((w) => (w as Error & { code: string }).code),
    ).toEqual(['UNKNOWN_TEAM']);
  });

  it('sends request inputs as var.KEY', async () => {
    const { fetchFn, calls } = await setup();
    const client = new PromptClient({
      url: 'http://strata',
      agent: 'w1',
      vars: { sector: 'Energy' },
      fetch: fetchFn,
    });
    await client.get().catch(() => undefined);
    expect(calls.at(-1)!.url).toBe('http://strata/api/agents/w1/prompt?var.sector=Energy');
  });
});

describe('SseParser', () => {
  it.each([
    ['event: reload\ndata: {"a":1}\n\n', [{ event: 'reload', data: '{"a":1}' }]],
    ['data: one\ndata: two\n\n', [{ event: 'message', data: 'one\ntwo' }]],
    [': ping\n\nevent: x\r\ndata: y\r\n\r\n', [{ event: 'x', data: 'y' }]],
    ['retry: 2000\nevent: hello\ndata:{}\nid: 7\n\n', [{ event: 'hello', data: '{}', id: '7', retry: 2000 }]],
    ['event: lonely\n\n', []],
  ])('%j', (input, expected) => {
    expect(new SseParser().push(input)).toEqual(expected);
  });

  it('handles events split across chunks, including a CRLF split in two', () => {
    const parser = new SseParser();
    expect(parser.push('event: re')).toEqual([]);
    expect(parser.push('load\r')).toEqual([]);
    expect(parser.push('\ndata: 1\r\n\r')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'reload', data: '1' }]);
  });
});
