/** One Server-Sent Event. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

/**
 * An incremental `text/event-stream` parser (the WHATWG rules: `event`, `data`, `id`,
 * `retry` fields, comment lines, CRLF/LF/CR line ends, events dispatched at a blank line).
 *
 * @example
 * const parser = new SseParser();
 * for (const e of parser.push('event: reload\ndata: {}\n\n')) console.log(e.event);
 */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #id: string | undefined;
  #retry: number | undefined;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    this.#buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      if (!match) break;
      // A lone CR at the end may be the first half of CRLF: wait for more.
      if (match[0] === '\r' && match.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      const event = this.#line(line);
      if (event) out.push(event);
    }
    return out;
  }

  // --- internal ---

  #line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        return undefined;
      }
      const event: SseEvent = { event: this.#event || 'message', data: this.#data.join('\n') };
      if (this.#id !== undefined) event.id = this.#id;
      if (this.#retry !== undefined) event.retry = this.#retry;
      this.#event = '';
      this.#data = [];
      this.#retry = undefined;
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#event = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        break;
    }
    return undefined;
  }
}
