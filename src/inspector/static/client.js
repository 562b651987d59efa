// The page's calls to the strata service (README, "The prompt service"), all same-origin.

/** An error answer of the service: `{ error: { code, message } }` and its HTTP status. */
export class ApiError extends Error {
  constructor(status, body) {
    const err = body?.error ?? {};
    super(err.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = err.code ?? `HTTP_${status}`;
    this.diagnostics = err.diagnostics ?? body?.diagnostics ?? [];
  }
}

export const getFleet = () => call('GET', '/api/fleet');
export const getRoles = () => call('GET', '/api/roles');
export const getSettings = () => call('GET', '/api/settings');
export const getStatus = () => call('GET', '/api/status');

/** Composes a prompt: `POST /api/compose` (`version: 'previous'` for the last good version before). */
export function compose(request) {
  return call('POST', '/api/compose', request);
}

/**
 * Subscribes to `GET /api/events`: `onHello(data)` when a stream starts, `onReload(data)`
 * per new version, `onError(data)` when a reload fails (`reload-failed`), `onHeld(data)` when a
 * new version is held back because it would degrade members, `onRecovered(data)` when a good
 * pack is back, `onState('live'|'down')` as the connection comes and goes.
 */
export function subscribe({ onHello, onReload, onError, onHeld, onRecovered, onState }) {
  const source = new EventSource('/api/events');
  source.addEventListener('open', () => onState('live'));
  source.addEventListener('hello', (e) => onHello(parse(e.data)));
  source.addEventListener('reload', (e) => onReload(parse(e.data)));
  source.addEventListener('recovered', (e) => onRecovered(parse(e.data)));
  source.addEventListener('reload-failed', (e) => onError(parse(e.data)));
  source.addEventListener('held', (e) => onHeld(parse(e.data)));
  // `error` is only the browser's own: the connection dropped (it reconnects by itself).
  source.addEventListener('error', () => onState('down'));
  return source;
}

// --- internal ---

async function call(method, path, body) {
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  const data = text ? parse(text) : {};
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}
