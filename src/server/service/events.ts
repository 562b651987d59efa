import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { SnapshotStore, StoreEvent } from '../../reload/store.js';

/** The events of `/api/events`, by name (none is a name EventSource gives a meaning to). */
export const SSE_EVENTS = ['hello', 'reload', 'reload-failed', 'recovered'] as const;
export type SseEventName = (typeof SSE_EVENTS)[number];

/** How many past events a reconnecting client can be sent (`Last-Event-ID`), at most. */
export const REPLAY_EVENTS = 256;
/** The replay ring's size bound, in bytes of event data. */
export const REPLAY_BYTES = 1024 * 1024;

export interface EventHubOptions {
  /** A comment line this often keeps proxies from closing idle streams (default 15 s; 0 disables). */
  heartbeatMs?: number;
  /** Called with the number of open streams whenever it changes. */
  onCount?: (n: number) => void;
  /** Past events kept for `Last-Event-ID` replay (default {@link REPLAY_EVENTS}). */
  replayEvents?: number;
  /** Byte bound of the kept events' data (default {@link REPLAY_BYTES}). */
  replayBytes?: number;
  /**
   * Events queued for one client that is not reading, at most (default
   * {@link MAX_PENDING_EVENTS}); the byte bound scales with it ({@link MAX_PENDING_BYTES}
   * per {@link MAX_PENDING_EVENTS} events). Past either, the client is cut off.
   */
  maxBacklog?: number;
  /** Called when a client is cut off, with what it had queued. */
  onDrop?: (backlog: { events: number; bytes: number }) => void;
}

/**
 * Server-Sent Events for `/api/events`. Each stream starts with a `hello` event
 * (`{ version }`), then gets:
 * - `reload`: `{ version, previous, changed: { agents, roles }, trigger }` once per new version
 *   (with `accepted: true` and `degradation` when a held version was accepted);
 * - `held`: `{ version, held, members, layers, diagnostics, trigger }` when a new version is
 *   held back because it would degrade members (`version` is still served);
 * - `reload-failed`: `{ version, diagnostics }` when a reload fails (the old version is still served);
 * - `recovered`: `{ version }` when a good pack is back without a new version.
 *
 * Every event has an `id:` (`BOOT.N`: this process, then a counter; `hello` carries the
 * latest, or before a replay the id the client resumed from). A client that reconnects with `Last-Event-ID` is sent, after its `hello`, the
 * events it missed, from a ring of the last {@link REPLAY_EVENTS} (bounded in bytes too);
 * an id from another process or older than the ring gets no replay (the `hello` version
 * tells what is served now).
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
  #boot = bootId();
  #seq = 0;
  #ring: Array<Past & { seq: number }> = [];
  #ringBytes = 0;
  #maxEvents: number;
  #maxBytes: number;
  #backlog: Backlog;

  constructor(store: SnapshotStore, options: EventHubOptions = {}) {
    this.#store = store;
    this.#onCount = options.onCount ?? (() => {});
    this.#maxEvents = options.replayEvents ?? REPLAY_EVENTS;
    this.#maxBytes = options.replayBytes ?? REPLAY_BYTES;
    const events = options.maxBacklog ?? MAX_PENDING_EVENTS;
    this.#backlog = {
      events,
      bytes: Math.ceil((events * MAX_PENDING_BYTES) / MAX_PENDING_EVENTS),
      onDrop: options.onDrop ?? (() => {}),
    };
    this.#unsubscribe = store.subscribe((event) => this.#onStoreEvent(event));
    const every = options.heartbeatMs ?? 15_000;
    if (every > 0) {
      this.#heartbeat = setInterval(
        () =>
          this.#each((client) => enqueue(client, this.#backlog, 8, () => client.stream.write(': ping\n\n'))),
        every,
      );
      this.#heartbeat.unref?.();
    }
  }

  /** Number of open streams. */
  get size(): number {
    return this.#clients.size;
  }

  /** The id of the latest event (what `hello` carries). */
  get lastId(): string {
    return `${this.#boot}.${this.#seq}`;
  }

  /** Answers one `/api/events` request with a stream that lasts until the client leaves. */
  stream(c: Context): Response {
    c.header('X-Accel-Buffering', 'no');
    c.header('Cache-Control', 'no-cache');
    const missed = this.#missed(c.req.header('last-event-id'));
    return streamSSE(c, async (stream) => {
      let done!: () => void;
      const finished = new Promise<void>((resolve) => {
        done = resolve;
      });
      // A client too far behind is cut off (see enqueue): its socket is destroyed, since
      // an answer that cannot be written would never end on its own.
      const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing;
      let dropped = false;
      const drop = () => {
        if (!dropped) this.#backlog.onDrop({ events: client.pending, bytes: client.pendingBytes });
        dropped = true;
        outgoing?.destroy();
        stream.abort();
        done();
      };
      const client: Client = { stream, queue: Promise.resolve(), done, drop, pending: 0, pendingBytes: 0 };
      stream.onAbort(() => done());
      this.#clients.add(client);
      this.#onCount(this.#clients.size);
      const hello = JSON.stringify({ version: this.#store.state?.snapshot.version ?? null });
      // Before a replay, `hello` carries the id the client resumed from, not the latest: a
      // stream that drops before the replay arrives resumes from the same place again.
      const helloId = missed[0] ? `${this.#boot}.${missed[0].seq - 1}` : this.lastId;
      send(client, this.#backlog, { id: helloId, event: 'hello', data: hello, retry: 2000 });
      for (const past of missed) send(client, this.#backlog, past);
      await finished;
      this.#clients.delete(client);
      this.#onCount(this.#clients.size);
    });
  }

  /** Sends an event to every open stream (and keeps it for replay). */
  publish(event: string, data: unknown): void {
    this.#seq += 1;
    const past = { seq: this.#seq, id: `${this.#boot}.${this.#seq}`, event, data: JSON.stringify(data) };
    this.#ring.push(past);
    this.#ringBytes += past.data.length;
    while (
      this.#ring.length > this.#maxEvents ||
      (this.#ringBytes > this.#maxBytes && this.#ring.length > 1)
    ) {
      this.#ringBytes -= this.#ring.shift()!.data.length;
    }
    this.#each((client) => send(client, this.#backlog, past));
  }

  /** Ends every open stream and stops listening to the store (for shutdown). */
  close(): void {
    this.#unsubscribe();
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    for (const client of this.#clients) client.done();
  }

  // --- internal ---

  /** The kept events after `lastEventId`, or none when it is not one this ring can resume. */
  #missed(lastEventId: string | undefined): Array<Past & { seq: number }> {
    if (!lastEventId) return [];
    const dot = lastEventId.lastIndexOf('.');
    if (dot === -1 || lastEventId.slice(0, dot) !== this.#boot) return [];
    const seen = lastEventId.slice(dot + 1);
    if (!/^\d{1,15}$/.test(seen)) return [];
    const n = Number(seen);
    const firstSeq = this.#ring[0]?.seq ?? this.#seq + 1;
    // Events between `n` and the ring's first were dropped: nothing can be replayed whole.
    if (n > this.#seq || n < firstSeq - 1) return [];
    return this.#ring.filter((p) => p.seq > n);
  }

  #onStoreEvent(event: StoreEvent): void {
    switch (event.type) {
      case 'reload': {
        const data: Record<string, unknown> = {
          version: event.version,
          previous: event.previous ?? null,
          changed: event.changed,
          trigger: event.trigger,
        };
        if (event.degradation) {
          data.accepted = true;
          data.degradation = event.degradation;
        }
        this.publish('reload', data);
        break;
      }
      case 'held': {
        const { held } = event;
        this.publish('held', {
          version: event.version,
          held: held.version,
          members: held.report.members,
          layers: held.report.layers,
          diagnostics: held.diagnostics,
          trigger: held.trigger,
        });
        break;
      }
      case 'error':
        this.publish('reload-failed', { version: event.version ?? null, diagnostics: event.diagnostics });
        break;
      case 'recovered':
        this.publish('recovered', { version: event.version });
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
  /** Ends the stream now and destroys its socket (a client that stopped reading). */
  drop: () => void;
  /** Writes queued and not yet taken by the socket, and their bytes of data. */
  pending: number;
  pendingBytes: number;
}

/**
 * A client with more than this many events (or bytes of event data) queued and not yet
 * written — it stopped reading, so its socket takes nothing — is cut off, rather than its
 * queue (and every event in it, long after the replay ring let it go) growing for as long
 * as it stays connected. Twice the replay ring: a reconnecting client's `hello` and
 * replay fit, and a client cut off this way that reconnects with `Last-Event-ID` is sent
 * what the ring still holds.
 */
export const MAX_PENDING_EVENTS = 2 * REPLAY_EVENTS;
export const MAX_PENDING_BYTES = 2 * REPLAY_BYTES;

interface Past {
  seq?: number;
  id: string;
  event: string;
  data: string;
  retry?: number;
}

/** How far one client may fall behind, and what to call when it is cut off. */
interface Backlog {
  events: number;
  bytes: number;
  onDrop: (backlog: { events: number; bytes: number }) => void;
}

function send(client: Client, backlog: Backlog, message: Past): void {
  enqueue(client, backlog, message.data.length, () => client.stream.writeSSE(message));
}

function enqueue(client: Client, backlog: Backlog, bytes: number, write: () => Promise<unknown>): void {
  if (
    client.pending > 0 &&
    (client.pending >= backlog.events || client.pendingBytes + bytes > backlog.bytes)
  ) {
    client.drop();
    return;
  }
  client.pending += 1;
  client.pendingBytes += bytes;
  client.queue = client.queue.then(write).then(
    () => {
      client.pending -= 1;
      client.pendingBytes -= bytes;
    },
    () => client.done(),
  );
}

/** A short id for this process, so ids from another process (or a restart) are not resumed. */
function bootId(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
}
