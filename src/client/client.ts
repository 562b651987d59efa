import type { ProviderFormat } from '../formats/registry.js';
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
  /** Request inputs the pack declares, sent as `var.KEY=VALUE` (or `vars` with `ambient`). */
  vars?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Ambient text for the pack's ambient layer. Composed with `POST /api/compose`, which has
   * no ETag: every uncached `get()` composes.
   */
  ambient?: string;
  /** Ask for a provider request body (`openai`, `anthropic`: see src/formats/) instead of the result; see {@link ClientPrompt.body}. */
  format?: ProviderFormat;
  /** The prompt to use before the first successful fetch (e.g. a copy baked into the image). */
  fallback?: string;
  /** Per-request timeout (default 5 s). */
  timeoutMs?: number;
  /**
   * First delay before reconnecting the event stream, until the service sends its own
   * (`retry:` on the stream, as an EventSource takes it); doubles up to 30 s (default 1 s).
   */
  reconnectMs?: number;
  /**
   * An event stream that brings no bytes for this long is taken as lost and reconnected,
   * and the prompt held is no longer trusted (default 45 s: the service sends a comment
   * every 15 s, so only a dead connection stays silent).
   */
  idleTimeoutMs?: number;
  /** Called with the new prompt whenever its text changes. */
  onChange?: (prompt: ClientPrompt) => void;
  /** Called when the service cannot be reached or refuses the request. */
  onError?: (error: PromptServiceError) => void;
  /**
   * Called with each warning the service gave with a prompt it sent (not again for a 304):
   * a team or role it does not know, the fallback text used, … Default:
   * `process.emitWarning` with the type `StrataWarning` and the warning's code
   * (`console.warn` where there is no `process`).
   */
  onWarning?: (warning: ClientWarning) => void;
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
  /** The role, team and agent it was composed for (as the service answered; not with `format`). */
  role?: string;
  team?: string;
  agent?: string;
  /** With the `format` option: the provider request body the service built. */
  body?: unknown;
  /** `service`: fresh (200 or 304); `stale`: the last good copy while the service fails; `fallback`: the configured text. */
  source: 'service' | 'stale' | 'fallback';
  /**
   * The warnings the service gave with this prompt (the result's `diagnostics`; with
   * `format`, the codes of its `X-Strata-Warnings` header); absent when there were none.
   */
  warnings?: ClientWarning[];
}

/** A warning the service gave with a prompt: its code, and where the answer says them, its message and place. */
export interface ClientWarning {
  code: string;
  message?: string;
  file?: string;
  line?: number;
  col?: number;
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

  /**
   * True for answers that retrying will not change (a 4xx other than 408 and 429: an
   * unknown agent, a bad name, a bad setting): the client throws these rather than hide
   * them behind a stale copy or the fallback.
   */
  get permanent(): boolean {
    return (
      this.status !== undefined &&
      this.status >= 400 &&
      this.status < 500 &&
      this.status !== 408 &&
      this.status !== 429
    );
  }
}

/**
 * The runtime client for agent processes: fetches the agent's prompt with ETag
 * revalidation (an unchanged prompt costs a 304), keeps the last good prompt while the
 * service is down (and serves a configured fallback before the first success), and can
 * subscribe to `/api/events`. While its event stream is connected it trusts it: `get()`
 * answers the prompt it holds with no request until a `reload` event (or a reconnect,
 * after which it revalidates once). A request the service refuses for good (an unknown
 * agent, a bad name: a 4xx) throws, fallback or not.
 *
 * @example
 * const prompts = new PromptClient({ url: 'http://127.0.0.1:7411', agent: 'ada', fallback: 'You are a developer.' });
 * prompts.subscribe(); // refresh on every new pack version; no request per get() meanwhile
 * const { text } = await prompts.get();
 */
export class PromptClient {
  #options: PromptClientOptions;
  #fetch: typeof fetch;
  #last: Held | undefined;
  #stream: AbortController | undefined;
  #closed = false;
  #inflight: Promise<ClientPrompt> | undefined;
  /** True while the event stream is connected and no event since the last fetch said the prompt may have changed. */
  #trusted = false;

  constructor(options: PromptClientOptions) {
    if (options.agent === undefined && options.role === undefined)
      throw new TypeError('PromptClient needs an agent or a role');
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The prompt held now (undefined before the first fetch when there is no fallback). */
  get current(): ClientPrompt | undefined {
    if (this.#last) return held(this.#last, 'service');
    return this.#options.fallback === undefined
      ? undefined
      : { text: this.#options.fallback, source: 'fallback' };
  }

  /**
   * The prompt. While subscribed and connected, the copy held (no request). Otherwise it
   * revalidates the copy held; when the service fails (network, timeout, 5xx) it answers
   * the last good prompt (`stale`), else the fallback, and throws only when it has
   * neither — or when the service refused the request for good (a 4xx).
   */
  get(): Promise<ClientPrompt> {
    if (this.#trusted && this.#last) return Promise.resolve(held(this.#last, 'service'));
    this.#inflight ??= this.#refresh().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /**
   * Listens to the service's `/api/events`: refreshes on every `reload` event and after
   * each (re)connect, and answers `get()` from the copy held in between. Returns a
   * function that stops it.
   */
  subscribe(): () => void {
    if (!this.#stream) {
      this.#closed = false;
      this.#stream = new AbortController();
      void this.#listen(this.#stream.signal);
    }
    return () => this.close();
  }

  /** Stops the event stream (a later {@link subscribe} starts it again). */
  close(): void {
    this.#closed = true;
    this.#trusted = false;
    this.#stream?.abort();
    this.#stream = undefined;
  }

  // --- internal ---

  async #refresh(): Promise<ClientPrompt> {
    // An event arriving while this request is under way must not be lost.
    const trustAfter = this.#trusting;
    try {
      const res = await this.#request();
      if (res.status === 304 && this.#last) {
        if (trustAfter === this.#trusting && this.#connected) this.#trusted = true;
        return held(this.#last, 'service');
      }
      if (!res.ok) throw await serviceError(res);
      const next = await readPrompt(res, this.#options.format);
      const changed = this.#last?.etag !== next.etag || this.#last?.text !== next.text;
      this.#last = next;
      if (trustAfter === this.#trusting && this.#connected) this.#trusted = true;
      const prompt = held(next, 'service');
      for (const w of next.warnings ?? []) (this.#options.onWarning ?? emitWarning)(w);
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
      if (error.permanent) throw error;
      if (this.#last) return held(this.#last, 'stale');
      if (this.#options.fallback !== undefined) return { text: this.#options.fallback, source: 'fallback' };
      throw error;
    }
  }

  /** Counts events that may change the prompt, so a refresh knows whether one came meanwhile. */
  #trusting = 0;
  #connected = false;

  #request(): Promise<Response> {
    const { url, agent, role, team, settings, vars, ambient, format } = this.#options;
    const base = url.replace(/\/+$/, '');
    const signal = AbortSignal.timeout(this.#options.timeoutMs ?? 5000);
    if (ambient !== undefined) {
      const body: Record<string, unknown> = { ambient };
      if (agent !== undefined) body.agent = agent;
      if (role !== undefined) body.role = role;
      if (team !== undefined) body.team = team;
      if (settings && Object.keys(settings).length > 0) body.settings = settings;
      if (vars && Object.keys(vars).length > 0) body.vars = vars;
      if (format !== undefined) body.format = format;
      return this.#fetch(`${base}/api/compose`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
    }
    const query = new URLSearchParams();
    let path: string;
    if (agent !== undefined) {
      path = `/api/agents/${encodeURIComponent(agent)}/prompt`;
      if (role !== undefined) query.set('role', role);
    } else path = `/api/prompts/${encodeURIComponent(role!)}`;
    if (team !== undefined) query.set('team', team);
    for (const [key, value] of Object.entries(settings ?? {})) query.set(`set.${key}`, String(value));
    for (const [key, value] of Object.entries(vars ?? {})) query.set(`var.${key}`, String(value));
    if (format !== undefined) query.set('format', format);
    const qs = query.toString();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#last?.etag) headers['if-none-match'] = this.#last.etag;
    return this.#fetch(`${base}${path}${qs ? `?${qs}` : ''}`, { headers, signal });
  }

  async #listen(signal: AbortSignal): Promise<void> {
    // The first delay is the option's until the service says its own (`retry:`, as an
    // EventSource takes it); each failed try after that doubles it.
    let first = this.#options.reconnectMs ?? 1000;
    let delay = first;
    while (!signal.aborted && !this.#closed) {
      // A connection that died without closing (a host gone) sends nothing: give it up.
      const idle = idleWatch(signal, this.#options.idleTimeoutMs ?? 45_000);
      try {
        const res = await this.#fetch(`${this.#options.url.replace(/\/+$/, '')}/api/events`, {
          headers: { accept: 'text/event-stream' },
          signal: idle.signal,
        });
        if (!res.ok || !res.body) throw await serviceError(res);
        const parser = new SseParser();
        const decoder = new TextDecoder();
        const reader = res.body.getReader();
        idle.onExpire(() => void reader.cancel().catch(() => undefined));
        for (;;) {
          idle.reset();
          const { done, value } = await reader.read();
          if (done) {
            if (idle.signal.aborted && !signal.aborted) throw idle.signal.reason;
            break;
          }
          for (const event of parser.push(decoder.decode(value, { stream: true }))) {
            if (event.retry !== undefined) delay = first = event.retry;
            if (event.event === 'hello' || event.event === 'reload') {
              // Connected (again), or a new version: revalidate once, then trust the stream.
              delay = first;
              this.#connected = true;
              this.#trusting++;
              this.#trusted = false;
              // A refresh already under way may have been answered before this event: wait
              // for it, then ask again (get() fetches, since it did not restore trust).
              const pending = this.#inflight;
              const refreshed = pending ? pending.catch(() => undefined).then(() => this.get()) : this.get();
              void refreshed.catch(() => undefined);
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
      } finally {
        idle.stop();
        // Disconnected: nothing tells us about changes now, so every get() revalidates.
        this.#connected = false;
        this.#trusted = false;
      }
      if (signal.aborted) return;
      await sleep(delay, signal);
      delay = Math.min(delay * 2, 30_000);
    }
  }
}

// --- internal ---

/** The prompt held: its text, its representation's ETag, and what the service said of it. */
interface Held {
  text: string;
  sha256?: string;
  version?: string;
  role?: string;
  team?: string;
  agent?: string;
  etag?: string;
  body?: unknown;
  warnings?: ClientWarning[];
}

function held(h: Held, source: ClientPrompt['source']): ClientPrompt {
  const prompt: ClientPrompt = { text: h.text, source };
  if (h.sha256 !== undefined) prompt.sha256 = h.sha256;
  if (h.version !== undefined) prompt.version = h.version;
  for (const key of ['role', 'team', 'agent'] as const) if (h[key] !== undefined) prompt[key] = h[key];
  if (h.body !== undefined) prompt.body = h.body;
  if (h.warnings !== undefined) prompt.warnings = h.warnings.map((w) => ({ ...w }));
  return prompt;
}

/** Reads a 200 answer: the JSON result, or a provider body (whose text is its system content). */
async function readPrompt(res: Response, format: PromptClientOptions['format']): Promise<Held> {
  const etag = res.headers.get('etag') ?? undefined;
  const json = (await res.json()) as Record<string, unknown>;
  if (format === undefined) {
    const body = json as {
      text: string;
      sha256: string;
      version: string;
      role?: string;
      team?: string;
      agent?: string;
      diagnostics?: unknown;
    };
    const out: Held = { text: body.text, sha256: body.sha256, version: body.version, etag };
    for (const key of ['role', 'team', 'agent'] as const)
      if (typeof body[key] === 'string') out[key] = body[key];
    const warnings = resultWarnings(body.diagnostics);
    if (warnings.length > 0) out.warnings = warnings;
    return out;
  }
  const version = res.headers.get('x-strata-version') ?? undefined;
  const out: Held = { text: providerText(json), version, etag, body: json };
  const codes = res.headers.get('x-strata-warnings');
  if (codes) out.warnings = codes.split(',').map((code) => ({ code: code.trim() }));
  return out;
}

/** The warnings of a result's `diagnostics`, each with its code, message and place. */
function resultWarnings(diagnostics: unknown): ClientWarning[] {
  if (!Array.isArray(diagnostics)) return [];
  const out: ClientWarning[] = [];
  for (const d of diagnostics as Record<string, unknown>[]) {
    if (d === null || typeof d !== 'object' || d.severity !== 'warning' || typeof d.code !== 'string')
      continue;
    const w: ClientWarning = { code: d.code };
    if (typeof d.message === 'string') w.message = d.message;
    if (typeof d.file === 'string') w.file = d.file;
    if (typeof d.line === 'number') w.line = d.line;
    if (typeof d.col === 'number') w.col = d.col;
    out.push(w);
  }
  return out;
}

/** The default `onWarning`: a process warning, as node's own are given (else the console). */
function emitWarning(w: ClientWarning): void {
  const place =
    w.file === undefined ? '' : `${[w.file, w.line, w.col].filter((x) => x !== undefined).join(':')}: `;
  const message = `${place}${w.message ?? 'the prompt service gave this warning with the prompt'}`;
  const proc = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process;
  if (typeof proc?.emitWarning === 'function')
    proc.emitWarning(message, { type: 'StrataWarning', code: w.code });
  else console.warn(`StrataWarning ${w.code}: ${message}`);
}

/** The prompt text inside a provider body: OpenAI's system message, or Anthropic's system blocks joined. */
function providerText(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ role: string; content: string }> | undefined;
  if (messages) return messages.find((m) => m.role === 'system')?.content ?? '';
  const system = body.system as Array<{ text: string }> | string | undefined;
  return typeof system === 'string' ? system : (system ?? []).map((b) => b.text).join('');
}

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

/**
 * A signal that follows `signal` and also aborts when `reset()` was not called for `ms`;
 * `onExpire` runs then too (to end a read the abort does not reach).
 */
function idleWatch(signal: AbortSignal, ms: number) {
  const controller = new AbortController();
  const follow = () => controller.abort(signal.reason);
  signal.addEventListener('abort', follow, { once: true });
  let expired: () => void = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reset = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      controller.abort(new Error(`event stream silent for ${ms} ms`));
      expired();
    }, ms);
  };
  reset();
  return {
    signal: controller.signal,
    reset,
    onExpire: (fn: () => void) => {
      expired = fn;
    },
    stop: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', follow);
    },
  };
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
