import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compose, strictOutcome, tryCompose } from '../../src/core/compose/compose.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { createApp } from '../../src/server/app.js';
import { cli, okPack } from '../helpers.js';

// A prompt's answer carries the load warnings of the files its text came from. They were
// said only at load (validate, /api/status, the CLI's stderr), so a client reading the
// prompt's own answer — its `diagnostics`, `X-Strata-Warnings` — was served U+FFFD from a
// Latin-1 file without a word.

const latin1 = (head: string, tail: string) =>
  Uint8Array.from([...new TextEncoder().encode(head), 0xe9, ...new TextEncoder().encode(tail)]);

const AGENTS_MD = {
  'AGENTS.md': 'Root rules.\n',
  'api/AGENTS.md': latin1('Caf', ' rules.\n'),
};

describe('load warnings of a prompt’s own files', () => {
  it('come with the prompt whose text holds the file, and not with another', () => {
    const snapshot = okPack(AGENTS_MD);
    const inApi = compose(snapshot, { vars: { cwd: 'api' } });
    expect(inApi.text).toBe('Root rules.\n\n\nCaf\ufffd rules.\n');
    expect(inApi.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
      'warning INVALID_UTF8 api/AGENTS.md:1:4',
    ]);
    expect(compose(snapshot, {}).diagnostics).toEqual([]);
  });

  it('--strict refuses such a prompt, as it refuses any prompt with a warning', () => {
    const snapshot = okPack(AGENTS_MD);
    const outcome = strictOutcome(tryCompose(snapshot, { vars: { cwd: 'api' } }));
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? [] : outcome.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual([
      'error INVALID_UTF8',
    ]);
  });

  it('a file of several role records keeps its warnings to the load: most are about another role', () => {
    const snapshot = okPack(
      {
        'agents.yaml': [
          'writer:',
          '  role: Writer',
          '  goal: Write.',
          '  backstory: A writer.',
          'editor:',
          '  role: Editor',
          '  goal: Edit.',
          '  backstory: An editor.',
          '  gaol: typo',
          'shared:',
          '  llm: gpt-4o',
          '',
        ].join('\n'),
      },
      { preset: 'crewai' },
    );
    expect(snapshot.warnings.length).toBeGreaterThan(0);
    expect(snapshot.warnings.every((d) => d.file === 'agents.yaml')).toBe(true);
    expect(compose(snapshot, { role: 'writer' }).diagnostics).toEqual([]);
  });

  it('over HTTP, in the answer’s diagnostics and X-Strata-Warnings; on the CLI, printed once', async () => {
    const snapshot = okPack(AGENTS_MD);
    const store = new SnapshotStore(async () => ({ snapshot, diagnostics: snapshot.warnings }));
    await store.reload('initial');
    const { app } = createApp({ store, heartbeatMs: 0 });
    const res = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ vars: { cwd: 'api' } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-strata-warnings')).toBe('INVALID_UTF8');
    const body = (await res.json()) as { diagnostics: Array<{ code: string; file: string }> };
    expect(body.diagnostics.map((d) => `${d.code} ${d.file}`)).toEqual(['INVALID_UTF8 api/AGENTS.md']);

    const dir = mkdtempSync(join(tmpdir(), 'strata-source-warnings-'));
    try {
      mkdirSync(join(dir, 'api'));
      for (const [path, bytes] of Object.entries(AGENTS_MD)) writeFileSync(join(dir, path), bytes);
      const plain = await cli(['compose', '--dir', dir, '--var', 'cwd=api']);
      expect(plain.code).toBe(0);
      expect(plain.stderr.match(/INVALID_UTF8/g)).toHaveLength(1);
      const json = await cli(['compose', '--dir', dir, '--var', 'cwd=api', '--json']);
      expect((JSON.parse(json.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics[0]!.code).toBe(
        'INVALID_UTF8',
      );
      const strict = await cli(['compose', '--dir', dir, '--var', 'cwd=api', '--strict']);
      expect(strict.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
