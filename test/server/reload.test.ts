import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/engine/default-engine.js';
import { changedPrompts } from '../../src/reload/changes.js';
import { SnapshotStore, type StoreEvent } from '../../src/reload/store.js';
import { checkedApp } from './contract.js';
import { eventStream, memoryStore, SEP } from './helpers.js';

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
  'teams/blue.md': 'Blue.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer, team: blue }\n  - { id: c1, role: critic }\n',
};

describe('SnapshotStore', () => {
  it('swaps in a changed pack and names the members and roles whose prompts changed', async () => {
    const mem = memoryStore(PACK);
    const events: StoreEvent[] = [];
    mem.store.subscribe((e) => events.push(e));
    const first = await mem.store.reload('initial');
    expect(first).toMatchObject({
      outcome: 'swapped',
      changed: { agents: ['c1', 'w1'], roles: ['critic', 'writer'] },
    });

    mem.set('teams/blue.md', 'Blue team.');
    const second = await mem.store.reload('watch');
    expect(second).toMatchObject({
      outcome: 'swapped',
      previous: first.version,
      changed: { agents: ['w1'], roles: [] },
    });
    expect(mem.store.state!.previous!.version).toBe(first.version);

    mem.set('roles/critic.md', 'Critic!');
    expect((await mem.store.reload()).changed).toEqual({ agents: ['c1'], roles: ['critic'] });
    expect(events.filter((e) => e.type === 'reload').map((e) => e.type === 'reload' && e.trigger)).toEqual([
      'initial',
      'watch',
      'manual',
    ]);
  });

  it('answers unchanged for the same content', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload();
    const before = mem.store.state;
    expect((await mem.store.reload()).outcome).toBe('unchanged');
    expect(mem.store.state).toBe(before);
  });

  it('keeps the last good snapshot when the pack breaks, reports once, and recovers', async () => {
    const mem = memoryStore(PACK);
    await mem.store.reload();
    const good = mem.store.state!;
    const events: StoreEvent[] = [];
    mem.store.subscribe((e) => e.type !== 'attempt' && events.push(e));

    mem.set('roles/writer.md', '---\nname: Writer\nWriter.');
    const failed = await mem.store.reload('watch');
    expect(failed.outcome).toBe('failed');
    expect(failed.version).toBe(good.snapshot.version);
    expect(failed.diagnostics[0]).toMatchObject({
      code: 'BAD_FRONTMATTER',
      file: 'roles/writer.md',
      line: 1,
    });
    expect(mem.store.state).toBe(good);
    expect(mem.store.lastError?.diagnostics).toEqual(failed.diagnostics);
    await mem.store.reload('poll'); // the same failure again: not reported twice
    expect(events.map((e) => e.type)).toEqual(['error']);

    mem.set('roles/writer.md', 'Writer.');
    expect((await mem.store.reload('watch')).outcome).toBe('unchanged');
    expect(mem.store.lastError).toBeNull();
    expect(events.map((e) => e.type)).toEqual(['error', 'recovered']);
  });

  it('runs one reload at a time and serves concurrent requests with one follow-up', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const files = new Map(Object.entries(PACK).map(([k, v]) => [k, new TextEncoder().encode(v)]));
    const store = new SnapshotStore(async () => {
      calls++;
      if (calls === 1) await gate;
      return buildSnapshot({ files, env: {} });
    });
    const first = store.reload();
    expect(store.reload()).toBe(first); // not started yet: the same reload covers it
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toBe(1); // now reading: later requests need one more reload
    const rest = [store.reload(), store.reload(), store.reload()];
    release();
    await Promise.all([first, ...rest]);
    expect(calls).toBe(2);
    expect(rest[0]).toBe(rest[2]);
  });

  it('turns a throwing loader into a failed reload', async () => {
    const store = new SnapshotStore(async () => {
      throw new Error('disk on fire');
    });
    const outcome = await store.reload();
    expect(outcome.outcome).toBe('failed');
    expect(outcome.diagnostics[0]).toMatchObject({ code: 'READ_ERROR' });
    expect(store.state).toBeUndefined();
  });

  it('changedPrompts compares composed prompts, not files', () => {
    const build = (extra: Record<string, string>) =>
      buildSnapshot({
        files: new Map(
          Object.entries({ ...PACK, ...extra }).map(([k, v]) => [k, new TextEncoder().encode(v)]),
        ),
        env: {},
      }).snapshot!;
    const a = build({});
    const b = build({ 'teams/red.md': 'Red.', 'notes.txt': 'not a layer' });
    expect(a.version).not.toBe(b.version);
    expect(changedPrompts(a, b)).toEqual({ agents: [], roles: [] });
  });
});

describe('reloads through the service', () => {
  async function serviceOver(files = PACK) {
    const mem = memoryStore(files);
    await mem.store.reload('initial');
    const service = checkedApp({ store: mem.store, adminToken: 't', heartbeatMs: 0 });
    return { ...mem, service };
  }
  const auth = { method: 'POST', headers: { authorization: 'Bearer t' } };

  it('pushes hello, then one reload event per new version, over SSE', async () => {
    const { service, store, set } = await serviceOver();
    const v1 = store.state!.snapshot.version;
    const res = await service.app.request('/api/events');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = eventStream(res);
    expect(await events.next()).toEqual([{ event: 'hello', data: { version: v1 } }]);

    set('roles/writer.md', 'Writer v2.');
    const reload = await (await service.app.request('/api/prompts/reload', auth)).json();
    expect(reload).toMatchObject({
      outcome: 'swapped',
      previous: v1,
      changed: { agents: ['w1'], roles: ['writer'] },
    });
    const [pushed] = await events.next();
    expect(pushed).toEqual({
      event: 'reload',
      data: {
        version: reload.version,
        previous: v1,
        changed: { agents: ['w1'], roles: ['writer'] },
        trigger: 'manual',
      },
    });
    expect(service.events.size).toBe(1);
    await events.close();
    service.close();
  });

  it('reports a broken reload in the answer, /api/status, /metrics and SSE, and keeps serving', async () => {
    const { service, store, set } = await serviceOver();
    const v1 = store.state!.snapshot.version;
    const events = eventStream(await service.app.request('/api/events'));
    await events.next();

    set('fleet.yaml', 'agents:\n  - { id: w1, role: nobody }\n');
    const res = await service.app.request('/api/prompts/reload', auth);
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body).toMatchObject({ outcome: 'failed', version: v1, error: { code: 'RELOAD_FAILED' } });
    expect(body.diagnostics[0]).toMatchObject({ code: 'UNKNOWN_ROLE', file: 'fleet.yaml', line: 2 });

    const status = await (await service.app.request('/api/status')).json();
    expect(status.version).toBe(v1);
    expect(status.lastError.diagnostics[0]).toMatchObject({
      code: 'UNKNOWN_ROLE',
      file: 'fleet.yaml',
      line: 2,
      col: expect.any(Number),
    });
    expect(await (await service.app.request('/metrics')).text()).toContain('strata_reload_error 1');
    expect((await events.next())[0]).toMatchObject({
      event: 'reload-failed',
      data: { version: v1, diagnostics: [{ code: 'UNKNOWN_ROLE' }] },
    });
    const prompt = await service.app.request('/api/prompts/writer', { headers: { accept: 'text/plain' } });
    expect(await prompt.text()).toBe(['Base.', 'Writer.'].join(SEP));

    set('fleet.yaml', PACK['fleet.yaml']);
    expect((await service.app.request('/api/prompts/reload', auth)).status).toBe(200);
    expect((await (await service.app.request('/api/status')).json()).lastError).toBeNull();
    expect((await events.next())[0]).toEqual({ event: 'recovered', data: { version: v1 } });
    await events.close();
    service.close();
  });

  it('composes against the previous version with version=previous', async () => {
    const { service, set } = await serviceOver();
    expect((await service.app.request('/api/prompts/writer?version=previous')).status).toBe(404);
    set('roles/writer.md', 'Writer v2.');
    await service.app.request('/api/prompts/reload', auth);
    const text = async (path: string, init?: RequestInit) =>
      (await service.app.request(path, { ...init, headers: { accept: 'text/plain' } })).text();
    expect(await text('/api/prompts/writer')).toBe(['Base.', 'Writer v2.'].join(SEP));
    expect(await text('/api/prompts/writer?version=previous')).toBe(['Base.', 'Writer.'].join(SEP));
    const body = await (
      await service.app.request('/api/compose', {
        method: 'POST',
        body: JSON.stringify({ role: 'writer', version: 'previous' }),
        headers: { 'content-type': 'application/json' },
      })
    ).json();
    expect(body.text).toBe(['Base.', 'Writer.'].join(SEP));
    service.close();
  });

  it('ends event streams on close', async () => {
    const { service } = await serviceOver();
    const res = await service.app.request('/api/events');
    const events = eventStream(res);
    await events.next();
    service.close();
    await expect(events.next(1)).rejects.toThrow('event stream ended');
    expect(service.events.size).toBe(0);
  });
});
