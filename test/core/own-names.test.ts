import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { cli, memPack, tempDir, writeFiles } from '../helpers.js';

// Names a pack or a request writes (`{constructor}`, `{{role.toString}}`, an input named
// `__proto__`) are looked up among the values given, never in Object.prototype: a value
// nobody gave is said missing (never "function Object() { [native code] }", never a
// crash), and a value given under such a name is used.

const AGENTS = 'a:\n  role: R {constructor}\n  goal: G {toString}\n  backstory: B {__proto__}\n';

describe('names that Object.prototype also has', () => {
  it('crewai: an input nobody gave is MISSING_INPUT, not a crash', () => {
    const snapshot = memPack({ 'agents.yaml': AGENTS }).snapshot!;
    const out = tryCompose(snapshot, { role: 'a' });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.diagnostics.map((d) => d.code)).toEqual(['MISSING_INPUT']);
  });

  it('crewai: inputs given under those names fill them, and the result holds them as own keys', () => {
    const snapshot = memPack({ 'agents.yaml': AGENTS }).snapshot!;
    const vars = JSON.parse('{"constructor": "x", "toString": "y", "__proto__": "z"}');
    const out = tryCompose(snapshot, { role: 'a', vars });
    expect(out.ok && out.result.text).toBe('You are R x. B z\nYour personal goal is: G y');
    expect(out.ok && JSON.stringify(out.result.inputs)).toBe(
      '{"constructor":"x","toString":"y","__proto__":"z"}',
    );
  });

  it('a role field named like a prototype member is missing, not native code', () => {
    const snapshot = memPack({
      'strata.yaml':
        'extends: chorus\nfallback: "Fallback."\nlayers:\n  - id: who\n    text: "I am {{role.constructor}}."\n',
      'roles.yaml': 'roles:\n  dev:\n    name: Dev\n',
    }).snapshot!;
    const out = tryCompose(snapshot, { role: 'dev' });
    expect(out.ok && out.result.text).toBe('Fallback.');
    expect(out.ok && out.result.diagnostics.map((d) => d.code)).toEqual(['LAYER_MISSING', 'FALLBACK_USED']);
  });

  it('the CLI: exit 1 with MISSING_INPUT, exit 0 with the values given', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'config/agents.yaml': AGENTS });
    const missing = await cli(['compose', '--dir', dir, '--role', 'a']);
    expect([missing.code, missing.stderr.split(':')[0]]).toEqual([1, 'error MISSING_INPUT']);
    const given = await cli([
      'compose',
      '--dir',
      dir,
      '--role',
      'a',
      '--var',
      'constructor=x',
      '--var',
      'toString=y',
      '--var',
      '__proto__=z',
    ]);
    expect([given.code, given.stdout]).toEqual([0, 'You are R x. B z\nYour personal goal is: G y']);
  });
});
