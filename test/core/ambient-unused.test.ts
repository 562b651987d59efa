import { describe, expect, it } from 'vitest';
import { compose, strictOutcome, tryCompose } from '../../src/core/compose/compose.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { createApp } from '../../src/server/app.js';
import { cli, EXAMPLES, okPack } from '../helpers.js';

// A request's `ambient` text goes into the layers that read it. A pack without one
// composed such a request as if the text had not been sent: the caller is told.

const MESSAGE =
  "the request's ambient text is in no layer: no layer of the pack reads it (a layer with `input: ambient`), so the prompt is composed without it";

const manifest = (layers: string) => `name: t\nlayers:\n${layers}`;
const WITHOUT = manifest('  - id: base\n    file: base.md\n');
const WITH = manifest('  - id: base\n    file: base.md\n  - id: now\n    input: ambient\n');
const IN_A_VARIANT = manifest(
  '  - id: base\n    file: base.md\n  - id: now\n    variants:\n      - when: { team: [ops] }\n        input: ambient\n      - file: base.md\n',
);

describe('AMBIENT_UNUSED', () => {
  it('warns when no layer of the pack reads the ambient text, and only then', () => {
    const without = okPack({ 'strata.yaml': WITHOUT, 'base.md': 'Base.' });
    const result = compose(without, { ambient: 'Release on Friday.' });
    expect(result.text).toBe('Base.');
    expect(result.diagnostics).toEqual([{ code: 'AMBIENT_UNUSED', severity: 'warning', message: MESSAGE }]);
    expect(compose(without, {}).diagnostics).toEqual([]);

    const withLayer = okPack({ 'strata.yaml': WITH, 'base.md': 'Base.' });
    const used = compose(withLayer, { ambient: 'Release on Friday.' });
    expect([used.text, used.diagnostics]).toEqual(['Base.\n\n---\n\nRelease on Friday.', []]);

    // A variant that reads it counts, whether or not its gate holds for this request:
    // the layer's own result says why it is left out.
    const variant = okPack({ 'strata.yaml': IN_A_VARIANT, 'base.md': 'Base.' });
    expect(compose(variant, { team: 'ops', ambient: 'Now.' }).text).toBe('Base.\n\n---\n\nNow.');
    expect(compose(variant, { team: 'dev', ambient: 'Now.' }).diagnostics.map((d) => d.code)).not.toContain(
      'AMBIENT_UNUSED',
    );
  });

  it('is an error under strict mode', () => {
    const snapshot = okPack({ 'strata.yaml': WITHOUT, 'base.md': 'Base.' });
    const outcome = strictOutcome(tryCompose(snapshot, { ambient: 'x' }));
    expect(outcome).toEqual({
      ok: false,
      diagnostics: [{ code: 'AMBIENT_UNUSED', severity: 'error', message: `${MESSAGE} (strict)` }],
    });
  });

  it('over HTTP: 200 with the warning; 400 under strict', async () => {
    const snapshot = okPack({ 'strata.yaml': WITHOUT, 'base.md': 'Base.' });
    const store = new SnapshotStore(async () => ({ snapshot, diagnostics: [] }));
    await store.reload('initial');
    const { app } = createApp({ store, heartbeatMs: 0 });
    const post = (body: object) =>
      app.request('/api/compose', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const res = await post({ ambient: 'Release on Friday.' });
    expect([res.status, res.headers.get('x-strata-warnings')]).toEqual([200, 'AMBIENT_UNUSED']);
    const strict = await post({ ambient: 'Release on Friday.', strict: true });
    expect(strict.status).toBe(400);
    expect(((await strict.json()) as { error: { code: string } }).error.code).toBe('AMBIENT_UNUSED');
  });

  it('on the CLI, for a layout without an ambient layer: exit 0 with the warning, 1 with --strict', async () => {
    const args = ['compose', '--dir', `${EXAMPLES}/crewai`, '--role', 'market_analyst'];
    args.push('--var', 'sector=energy', '--var', 'quarter=Q3');
    const plain = await cli([...args, '--ambient', 'Release on Friday.']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(`warning AMBIENT_UNUSED: ${MESSAGE}\n`);
    expect(plain.stdout).toBe((await cli(args)).stdout);
    const strict = await cli([...args, '--ambient', 'Release on Friday.', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(`error AMBIENT_UNUSED: ${MESSAGE} (strict)\n`);
  });
});
