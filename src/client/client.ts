import { SseParser } from './sse.js';

/** What the client asks the prompt service for. */
export interface PromptClientOptions {
  /** Base URL of the service, e.g. `http://strata:7411`. */
  url: string;
  /** Fetch this fleet member's prompt (its role and team come from the fleet). */
  agent?: string;
  /** Fetch this role's prompt (with `agent`: overrides the fleet's role). */
  role?: string;
  team?: string;
  /** Setting overrides, sent as `set.KEY=VALUE`. */
  settings?: Readonly<Record<string, string | number | boolean>>;
  /** The prompt to use before the first successful fetch (e.g. a copy baked into the image). */
  fallback?: string;
  /** Per-request timeout (default 5 s). */
  timeoutMs?: number;
  /** First delay before reconnecting the event stream; doubles up to 30 s (default 1 s). */
  reconnectMs?: number;
  /** Called with the new prompt whenever its text changes. */
  onChange?: (prompt: ClientPrompt) => void;
  /** Called when the service cannot be reached or refuses the request. */
  onError?: (error: PromptServiceError) => void;
  /** Injected fetch (default: the global one). */
  fetch?: typeof fetch;
}

/** A prompt as the client holds it. */
export interface ClientPrompt {
  text: string;
  /** sha256 of the text (undefined for the configured fallback). */
  sha256?: string;
  /** The pack version it was composed from. */
  version?: string;
  /** `service`: fresh (200 or 304); `stale`: the last good copy while the service fails; `fallback`: the configured text. */
  source: 'service' | 'stale' | 'fallback';
}

/** Why the service could not answer: `UNAVAILABLE` (network, timeout, 5xx) or the service's error code. */
export class PromptServiceError extends Error {
  override name = 'PromptServiceError';
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The runtime client for agent processes: fetches the agent's prompt with ETag
 * revalidation (an unchanged prompt costs a 304), keeps the last good prompt while the
 * service is down (and serves a configured fallback before the first success), and can
 * subscribe to `/api/events` to refresh as soon as the pack changes.
 *
 * @example
 * const prompts = new PromptClient({ url: 'http://127.0.0.1:7411', agent: 'ada', fallback: 'You are a developer.' });
 * const { text } = await prompts.get();
 * prompts.subscribe(); // refresh on every new pack version
 */
export class PromptClient {
  #options: PromptClientOptions;
  #fetch: typeof fetch;
  #last: { text: string; sha256: string; version: string; etag: string } | undefined;
  #stream: AbortController | undefined;
  #closed = false;
  #inflight: Promise<ClientPrompt> | undefined;

  constructor(options: PromptClientOptions) {
    if (options.agent === undefined && options.role === undefined)
      throw new TypeError('PromptClient needs an agent or a role');
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The prompt held now (undefined before the first fetch when there is no fallback). */
  get current(): ClientPrompt | undefined {
    if (this.#last)
      return {
        text: this.#last.text,
        sha256: this.#last.sha256,
        version: this.#last.version,
        source: 'service',
      };
    return this.#options.fallback === undefined
      ? undefined
      : { text: this.#options.fallback, source: 'fallback' };
  }

  /**
   * Fetches the prompt (revalidating the copy held). When the service fails, answers the
   * last good prompt (`stale`), else the fallback; throws only when it has neither.
   */
  get(): Promise<ClientPrompt> {
    this.#inflight ??= this.#refresh().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /**
   * Listens to the service's `/api/events` and refreshes on every `reload` event (and
   * after each reconnect, in case one was missed). Returns a function that stops it.
   */
  subscribe(): () => void {
    if (!this.#stream) {
      this.#stream = new AbortController();
      void this.#listen(this.#stream.signal);
    }
    return () => this.close();
  }

  /** Stops the event stream. */
  close(): void {
    this.#closed = true;
    this.#stream?.abort();
    this.#stream = undefined;
  }

  // --- internal ---

  async #refresh(): Promise<ClientPrompt> {
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (this.#last) headers['if-none-match'] = this.#last.etag;
      const res = await this.#fetch(this.#promptUrl(), {
        headers,
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5000),
      });
      if (res.status === 304 && this.#last) return this.current!;
      if (!res.ok) throw await serviceError(res);
      const body = (await res.json()) as { text: string; sha256: string; version: string };
      const changed = this.#last?.sha256 !== body.sha256;
      this.#last = {
        text: body.text,
        sha256: body.sha256,
        version: body.version,
        etag: res.headers.get('etag') ?? `"${body.sha256}"`,
      };
      const prompt = this.current!;
      if (changed) this.#options.onChange?.(prompt);
      return prompt;
    } catch (e) {
      const error =
        e instanceof PromptServiceError
          ? e
          : new PromptServiceError(
              'UNAVAILABLE',
              `prompt service unreachable: ${e instanceof Error ? e.message : String(e)}`,
            );
      this.#options.onError?.(error);
      if (this.#last)
        return {
          text: this.#last.text,
          sha256: this.#last.sha256,
          version: this.#last.version,
          source: 'stale',
        };
      if (this.#options.fallback !== undefined) return { text: this.#options.fallback, source: 'fallback' };
      throw error;
    }
  }

  #promptUrl(): string {
    const { url, agent, role, team, settings } = this.#options;
    const base = url.replace(/\/+$/, '');
    const query = new URLSearchParams();
    let path: string;
    if (agent !== undefined) {
      path = `/api/agents/${encodeURIComponent(agent)}/prompt`;
      if (role !== undefined) query.set('role', role);
    } else path = `/api/prompts/${encodeURIComponent(role!)}`;
    if (team !== undefined) query.set('team', team);
    for (const [key, value] of Object.entries(settings ?? {})) query.set(`set.${key}`, String(value));
    const qs = query.toString();
    return `${base}${path}${qs ? `?${qs}` : ''}`;
  }

  async #listen(signal: AbortSignal): Promise<void> {
    const first = this.#options.reconnectMs ?? 1000;
    let delay = first;
    while (!signal.aborted && !this.#closed) {
      try {
        const res = await this.#fetch(`${this.#options.url.replace(/\/+$/, '')}/api/events`, {
          headers: { accept: 'text/event-stream' },
          signal,
        });
        if (!res.ok || !res.body) throw await serviceError(res);
        const parser = new SseParser();
        const decoder = new TextDecoder();
        const reader = res.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const event of parser.push(decoder.decode(value, { stream: true }))) {
            if (event.retry !== undefined) delay = event.retry;
            if (event.event === 'hello' || event.event === 'reload') {
              delay = first;
              void this.get().catch(() => undefined);
            }
          }
        }
      } catch (e) {
        if (signal.aborted) return;
        this.#options.onError?.(
          e instanceof PromptServiceError
            ? e
            : new PromptServiceError(
                'UNAVAILABLE',
                `event stream failed: ${e instanceof Error ? e.message : String(e)}`,
              ),
        );
      }
      if (signal.aborted) return;
      await sleep(delay, signal);
      delay = Math.min(delay * 2, 30_000);
    }
  }
}

// --- internal ---

async function serviceError(res: Response): Promise<PromptServiceError> {
  let code = res.status >= 500 ? 'UNAVAILABLE' : 'HTTP_ERROR';
  let message = `prompt service answered ${res.status}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = `${message}: ${body.error.message}`;
  } catch {
    // not JSON: keep the status
  }
  return new PromptServiceError(code, message, res.status);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
