import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPack } from '../../src/source/open.js';
import { cli } from '../helpers.js';
import { spawnServe, waitFor } from '../server/helpers.js';
import { largeFleetPack } from './fleet.js';

/**
 * A fleet of 10,000 agents (one 500 KB fleet.yaml): read in one pass, every agent located
 * where it is written, listed by the CLI, and a one-line edit of it served while the
 * service keeps answering its probes.
 */
describe('a 10,000-agent fleet', () => {
  it('loads every agent, each located on its own line; an unknown role is said where it is written', async () => {
    const ok = await openPack({ kind: 'dir', dir: largeFleetPack(10_000) }, { env: {} });
    expect(ok.diagnostics).toEqual([]);
    const fleet = ok.snapshot!.fleet;
    expect(fleet.length).toBe(10_008);
    expect(fleet[9_999]).toMatchObject({ id: 'agent-9999', role: 'developer', team: 'platform' });
    expect(fleet[9_999]!.at).toEqual({ file: 'fleet.yaml', line: 2 + 3 * 9_999, col: 5 });

    const bad = await openPack({ kind: 'dir', dir: largeFleetPack(10_000, { 9000: 'ghost' }) }, { env: {} });
    expect(bad.diagnostics.map((d) => [d.code, d.file, d.line, d.col])).toEqual([
      ['UNKNOWN_ROLE', 'fleet.yaml', 2 + 3 * 9_000, 5],
    ]);
  });

  it('strata fleet lists every agent and exits 0', async () => {
    const { code, stdout } = await cli(['fleet', '--dir', largeFleetPack(10_000), '--json']);
    expect(code).toBe(0);
    const { agents } = JSON.parse(stdout) as { agents: Array<{ id: string; team: string }> };
    expect(agents.length).toBe(10_008);
    expect(agents[5_000]).toEqual({
      id: 'agent-5000',
      role: 'architect',
      team: 'growth',
      source: 'fleet.yaml',
    });
  });

  it('a one-line edit is served, and /healthz answers 200 to every probe while it reloads', async () => {
    const dir = largeFleetPack(10_000);
    const served = await spawnServe(['--dir', dir, '--port', '0', '--debounce', '20']);
    onTestFinished(() => {
      served.child.kill('SIGKILL');
    });
    try {
      const prompt = async () => {
        const res = await fetch(`${served.url}/api/agents/agent-5000/prompt`, {
          headers: { accept: 'text/plain' },
        });
        expect(res.status).toBe(200);
        return res.text();
      };
      expect(await prompt()).toContain('# Team: Growth');
      const file = join(dir, 'fleet.yaml');
      const text = readFileSync(file, 'utf8');
      const line = '  - id: agent-5000\n    role: architect\n    team: growth\n';
      writeFileSync(file, text.replace(line, line.replace('growth', 'payments')));
      // Probes while the service reads, builds and compares the new fleet.
      const statuses: number[] = [];
      await waitFor(
        async () => {
          statuses.push((await fetch(`${served.url}/healthz`)).status);
          return (await prompt()).includes('# Team: Payments') ? true : undefined;
        },
        60_000,
        'the edited fleet to be served',
      );
      expect(new Set(statuses)).toEqual(new Set([200]));
      const status = (await (await fetch(`${served.url}/api/status`)).json()) as {
        counts: { agents: number };
        lastError: unknown;
      };
      expect(status).toMatchObject({ counts: { agents: 10_008 }, lastError: null });
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });
});
