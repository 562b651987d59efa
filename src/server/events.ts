import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { SnapshotStore, StoreEvent } from '../reload/store.js';

export interface EventHubOptions {
  /** A comment line this often keeps proxies from closing idle streams (default 15 s; 0 disables). */
  heartbeatMs?: number;
  /** Called with the number of open streams whenever it changes. */
  onCount?: (n: number) => void;
}

/**
 * Server-Sent Events for `/api/events`. Each stream starts with a `hello` event
 * (`{ version }`), then gets:
 * - `reload`: `{ version, previous, changed: { agents, roles }, trigger }` once per new version;
 * - `error`: `{ version, diagnostics }` when a reload fails (the old version is still served);
 * - `recovered`: `{ version }` when a good pack is back without a new version.
 *
 * @example
 * const hub = new EventHub(store);
 * app.get('/api/events', (c) => hub.stream(c));
 */
export class EventHub {
  #clients = new Set<Client>();
  #store: SnapshotStore;
  #onCount: (n: number) => void;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #unsubscribe: () => void;

  constructor(store: SnapshotStore, options: EventHubOptions = {}) {
    this.#store = store;
    this.#onCount = options.onCount ?? (() => {});
    this.#unsubscribe = store.subscribe((event) => this.#onStoreEvent(event));
    const every = options.heartbeatMs ?? 15_000;
    if (every > 0) {
      this.#heartbeat = setInterval(
        () => this.#each((client) => enqueue(client, () => client.stream.write(': ping\n\n'))),
        every,
      );
      this.#heartbeat.unref?.();
    }
  }

  /** Number of open streams. */
  get size(): number {
    return this.#clients.size;
  }

  /** Answers one `/api/events` request with a stream that lasts until the client leaves. */
  stream(c: Context): Response {
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      let done!: () => void;
      const finished = new Promise<void>((resolve) => {
        done = resolve;
      });
      const client: Client = { stream, queue: Promise.resolve(), done };
      stream.onAbort(() => done());
      this.#clients.add(client);
      this.#onCount(this.#clients.size);
      send(client, 'hello', { version: this.#store.state?.snapshot.version ?? null }, 2000);
      await finished;
      this.#clients.delete(client);
      this.#onCount(this.#clients.size);
    });
  }

  /** Ends every open stream and stops listening to the store (for shutdown). */
  close(): void {
    this.#unsubscribe();
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    for (const client of this.#clients) client.done();
  }

  // --- internal ---

  #onStoreEvent(event: StoreEvent): void {
    switch (event.type) {
      case 'reload':
        this.#each((client) =>
          send(client, 'reload', {
            version: event.version,
            previous: event.previous ?? null,
            changed: event.changed,
            trigger: event.trigger,
          }),
        );
        break;
      case 'error':
        this.#each((client) =>
          send(client, 'error', { version: event.version ?? null, diagnostics: event.diagnostics }),
        );
        break;
      case 'recovered':
        this.#each((client) => send(client, 'recovered', { version: event.version }));
        break;
    }
  }

  #each(fn: (client: Client) => unknown): void {
    for (const client of this.#clients) fn(client);
  }
}

interface Client {
  stream: SSEStreamingApi;
  /** Writes to one stream run in order. */
  queue: Promise<unknown>;
  done: () => void;
}

function send(client: Client, event: string, data: unknown, retry?: number): void {
  const message =
    retry === undefined
      ? { event, data: JSON.stringify(data) }
      : { event, data: JSON.stringify(data), retry };
  enqueue(client, () => client.stream.writeSSE(message));
}

function enqueue(client: Client, write: () => Promise<unknown>): void {
  client.queue = client.queue.then(write).catch(() => client.done());
}
