import { cp, mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { loadPack } from '../../src/source/load.js';
import { EXAMPLES } from '../helpers.js';
import { eventStream, waitFor } from './helpers.js';

const TOKEN = 'guard-token';
const AGENTS = ['ada', 'linus', 'frances', 'grace', 'ken', 'margaret', 'barbara', 'edsger'];
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A running service (real socket, real watcher) over a fresh copy of examples/roboco. */
async function serveRoboco(options: { allowLayerLoss?: boolean } = {}) {
  const base = await mkdtemp(join(tmpdir(), 'strata-guard-'));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  const dir = join(base, 'pack');
  await cp(join(EXAMPLES, 'roboco'), dir, { recursive: true });
  const started = await startService({
    dir,
    env: {},
    port: 0,
    debounceMs: 50,
    pollMs: 0,
    adminToken: TOKEN,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  const service: RunningService = started.service;
  cleanups.push(() => service.close());
  const res = await fetch(`${service.url}/api/events`);
  const events = eventStream(res);
  cleanups.push(() => events.close());
  expect((await events.next())[0]!.event).toBe('hello');
  const prompts = await promptsOf(service.url);
  return { dir, url: service.url, events, prompts, version: service.store.state!.snapshot.version };
}

async function promptsOf(url: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const agent of AGENTS) out[agent] = await promptOf(url, agent);
  return out;
}

/** An agent's prompt; waits out 503s (token counting warming up on a loaded machine). */
function promptOf(url: string, agent: string): Promise<string> {
  return waitFor(
    async () => {
      const res = await fetch(`${url}/api/agents/${agent}/prompt`, { headers: { accept: 'text/plain' } });
      if (res.status === 503) return undefined;
      expect(res.status, agent).toBe(200);
      return res.text();
    },
    60_000,
    `the prompt of ${agent}`,
  );
}

async function status(url: string) {
  return (await (await fetch(`${url}/api/status`)).json()) as {
    version: string;
    held: null | {
      version: string;
      members: Array<{ member: string; removed: boolean; fallback: boolean; lost: Array<{ layer: string }> }>;
      layers: string[];
      diagnostics: Array<{ code: string }>;
    };
  };
}

/** The version the pack on disk now has (what the service will hold). */
async function versionOnDisk(dir: string): Promise<string> {
  const { snapshot } = await loadPack(dir, { env: {} });
  return snapshot!.version;
}

// biome-ignore lint/suspicious/noExplicitAny: event payloads are checked field by field
type EventData = Record<string, any>;

async function nextEvent(
  events: ReturnType<typeof eventStream>,
  name: string,
  match: (data: EventData) => boolean,
): Promise<EventData> {
  for (;;) {
    const [e] = await events.next(1, 15_000);
    if (e!.event === name && match(e!.data as EventData)) return e!.data as EventData;
  }
}

function reload(url: string, query = '', init: RequestInit = {}) {
  return fetch(`${url}/api/prompts/reload${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    ...init,
  });
}

const MISTAKES: Array<{
  name: string;
  change: (dir: string) => Promise<void>;
  members: string[];
  layers: string[];
  codes: string[];
}> = [
  {
    name: 'a manifest that keeps only the base layer',
    change: (dir) =>
      writeFile(
        join(dir, 'strata.yaml'),
        'extends: roboco\nlayers:\n' +
          ['tools', 'lifecycle', 'role', 'verbs', 'team', 'identity']
            .map((id) => `  - { id: ${id}, remove: true }\n`)
            .join(''),
      ),
    members: AGENTS,
    layers: ['identity', 'lifecycle', 'role', 'team', 'tools', 'verbs'],
    codes: ['LAYER_LOST'],
  },
  {
    name: 'deleting base.md',
    change: (dir) => unlink(join(dir, 'base.md')),
    members: AGENTS,
    layers: ['base'],
    codes: ['LAYER_LOST'],
  },
  {
    name: 'deleting a role file (roles/developer.md)',
    change: (dir) => unlink(join(dir, 'roles/developer.md')),
    members: ['ada', 'linus', 'frances'],
    layers: ['role'],
    codes: ['LAYER_LOST'],
  },
  {
    name: 'emptying the pack',
    change: async (dir) => {
      for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
    },
    members: AGENTS,
    layers: ['base', 'identity', 'lifecycle', 'role', 'team', 'tools', 'verbs'],
    codes: ['MEMBER_REMOVED'],
  },
];

describe('a reload that would degrade members is held', () => {
  it.each(MISTAKES)('$name: held, named in status and SSE, served again only when accepted', async (m) => {
    const s = await serveRoboco();
    await m.change(s.dir);
    const held = await versionOnDisk(s.dir);

    // 1. The SSE event names the held version, the members and the layers.
    const event = await nextEvent(s.events, 'held', (d) => d.held === held);
    expect(event.version).toBe(s.version);
    expect(event.members.map((x: { member: string }) => x.member).sort()).toEqual([...m.members].sort());
    expect(event.layers).toEqual(m.layers);
    expect([...new Set(event.diagnostics.map((d: { code: string }) => d.code))]).toEqual(m.codes);

    // 2. /api/status says the same; the last good prompts are still served.
    const st = await status(s.url);
    expect(st.version).toBe(s.version);
    expect(st.held).toMatchObject({ version: held, layers: m.layers });
    expect(st.held!.members.map((x) => x.member).sort()).toEqual([...m.members].sort());
    expect(await promptsOf(s.url)).toEqual(s.prompts);
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).toMatch(/^strata_reload_holds_total\{trigger="watch"\} [1-9]/m);
    expect(metrics).toMatch(/^strata_reload_held 1$/m);

    // 3. A reload without accept, or without the token, changes nothing.
    const again = await reload(s.url);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      outcome: 'held',
      version: s.version,
      held,
      error: { code: 'RELOAD_HELD' },
    });
    expect((await reload(s.url, `?accept=${held}`, { headers: {} })).status).toBe(401);
    expect((await reload(s.url, '?accept=0123456789abcdef')).status).toBe(409);
    expect((await status(s.url)).version).toBe(s.version);

    // 4. Accepting the held version with the token swaps it in.
    const accepted = await reload(s.url, `?accept=${held}`);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ outcome: 'swapped', version: held, accepted: true });
    const reloadEvent = await nextEvent(s.events, 'reload', (d) => d.version === held);
    expect(reloadEvent).toMatchObject({ previous: s.version, accepted: true, trigger: 'manual' });
    expect(await status(s.url)).toMatchObject({ version: held, held: null });
  });

  it('refuses a one-line manifest without extends (name: acme) outright: NO_LAYERS, last good served', async () => {
    const s = await serveRoboco();
    await writeFile(join(s.dir, 'strata.yaml'), 'name: acme\n');
    const event = await nextEvent(s.events, 'reload-failed', () => true);
    expect(event.version).toBe(s.version);
    expect(event.diagnostics.map((d: { code: string }) => d.code)).toEqual(['NO_LAYERS']);
    const st = (await (await fetch(`${s.url}/api/status`)).json()) as {
      version: string;
      lastError: { diagnostics: Array<{ code: string; file?: string }> };
    };
    expect(st.version).toBe(s.version);
    expect(st.lastError.diagnostics.map((d) => [d.code, d.file])).toEqual([['NO_LAYERS', 'strata.yaml']]);
    expect(await promptsOf(s.url)).toEqual(s.prompts);
  });

  it('accepts with {"accept": true} in the body', async () => {
    const s = await serveRoboco();
    await unlink(join(s.dir, 'base.md'));
    const held = await versionOnDisk(s.dir);
    await nextEvent(s.events, 'held', (d) => d.held === held);
    const res = await reload(s.url, '', {
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ accept: true }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'swapped', version: held, accepted: true });
    const { snapshot } = await loadPack(s.dir, { env: {} });
    expect(await promptOf(s.url, 'ada')).toBe(compose(snapshot!, { agent: 'ada' }).text);
  });

  it('serves a text-only edit (no hold)', async () => {
    const s = await serveRoboco();
    const base = join(s.dir, 'base.md');
    await writeFile(base, 'A reworded base.\n');
    const version = await versionOnDisk(s.dir);
    const event = await nextEvent(s.events, 'reload', (d) => d.version === version);
    expect(event.accepted).toBeUndefined();
    expect(event.changed.agents.sort()).toEqual([...AGENTS].sort());
    const ada = await waitFor(async () => {
      const text = await promptOf(s.url, 'ada');
      return text.includes('A reworded base.') ? text : undefined;
    }, 30_000);
    expect(ada).not.toBe(s.prompts.ada);
    expect((await status(s.url)).held).toBeNull();
  });

  it('serves a degrading version at once with allowLayerLoss (serve --allow-layer-loss)', async () => {
    const s = await serveRoboco({ allowLayerLoss: true });
    await unlink(join(s.dir, 'base.md'));
    const version = await versionOnDisk(s.dir);
    await nextEvent(s.events, 'reload', (d) => d.version === version);
    expect(await status(s.url)).toMatchObject({ version, held: null, service: { allowLayerLoss: true } });
  });

  it('clears the hold when the pack is put back', async () => {
    const s = await serveRoboco();
    const base = join(s.dir, 'base.md');
    const text = await (await import('node:fs/promises')).readFile(base);
    await unlink(base);
    const held = await versionOnDisk(s.dir);
    await nextEvent(s.events, 'held', (d) => d.held === held);
    await writeFile(base, text);
    await nextEvent(s.events, 'recovered', (d) => d.version === s.version);
    expect(await status(s.url)).toMatchObject({ version: s.version, held: null });
  });
});
