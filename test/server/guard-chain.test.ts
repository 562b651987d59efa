import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../src/server/node/start.js';
import { writeFiles } from '../helpers.js';
import { eventStream } from './helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// A project of AGENTS.md files: each working folder's prompt is its chain of files from
// the root, a member of the reload guard's own.
const PROJECT = {
  'AGENTS.md': 'Root rules.\n',
  'api/AGENTS.md': 'API rules.\n',
  'api/v2/AGENTS.md': 'V2 rules.\n',
  'web/AGENTS.md': 'Web rules.\n',
};

async function serveProject() {
  const dir = await mkdtemp(join(tmpdir(), 'strata-guard-chain-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  writeFiles(dir, PROJECT);
  const started = await startService({
    dir,
    env: {},
    port: 0,
    debounceMs: 50,
    pollMs: 0,
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
  const service = started.service;
  cleanups.push(() => service.close());
  const res = await fetch(`${service.url}/api/events`);
  const events = eventStream(res);
  cleanups.push(async () => events.close());
  expect((await events.next())[0]!.event).toBe('hello');
  return { dir, url: service.url, events, version: service.store.state!.snapshot.version };
}

const prompt = async (url: string, cwd: string) =>
  (
    await fetch(`${url}/api/compose`, {
      method: 'POST',
      headers: { accept: 'text/plain', 'content-type': 'application/json' },
      body: JSON.stringify({ vars: { cwd } }),
    })
  ).text();

describe('the reload guard over a chain of AGENTS.md files', () => {
  it('deleting a nested AGENTS.md is held, naming the working folders that lose it; a text edit is served', async () => {
    const s = await serveProject();
    expect(await prompt(s.url, 'api/v2')).toBe('Root rules.\n\n\nAPI rules.\n\n\nV2 rules.\n');

    await unlink(join(s.dir, 'api/AGENTS.md'));
    let event: Record<string, unknown> | undefined;
    while (!event) {
      const [e] = await s.events.next(1, 60_000);
      if (e!.event === 'held') event = e!.data as Record<string, unknown>;
    }
    expect(event.version).toBe(s.version);
    expect((event.members as Array<{ member: string }>).map((m) => m.member)).toEqual([
      'cwd=api',
      'cwd=api/v2',
    ]);
    expect(event.layers).toEqual(['agents']);
    // The last good version is served, its prompts whole.
    expect(await prompt(s.url, 'api/v2')).toBe('Root rules.\n\n\nAPI rules.\n\n\nV2 rules.\n');
    const status = (await (await fetch(`${s.url}/api/status`)).json()) as {
      held: { members: Array<{ member: string; lost: unknown[] }> };
    };
    expect(status.held.members.map((m) => [m.member, m.lost])).toEqual([
      ['cwd=api', [{ layer: 'agents', was: 'api/AGENTS.md', reason: 'missing', looked: 'api/AGENTS.md' }]],
      ['cwd=api/v2', [{ layer: 'agents', was: 'api/AGENTS.md', reason: 'missing', looked: 'api/AGENTS.md' }]],
    ]);

    // Put back, with other words: a change of text, served.
    await writeFile(join(s.dir, 'api/AGENTS.md'), 'API rules, reworded.\n');
    for (;;) {
      const [e] = await s.events.next(1, 60_000);
      if (e!.event === 'reload') break;
    }
    expect(await prompt(s.url, 'api/v2')).toBe('Root rules.\n\n\nAPI rules, reworded.\n\n\nV2 rules.\n');
  });
});
