import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/core/text/diagnostics.js';
import { memPack } from '../helpers.js';

const diagnostics = (manifest: string) =>
  memPack({ 'base.md': 'B', 'strata.yaml': manifest }).diagnostics.map(formatDiagnostic);

describe('setting and input declarations', () => {
  it('min greater than max is one BAD_MANIFEST at the declaration', () => {
    expect(
      diagnostics(
        'layers:\n  - id: base\n    file: base.md\nsettings:\n  n:\n    type: integer\n    default: 5\n    min: 10\n    max: 1\n',
      ),
    ).toEqual([
      'error BAD_MANIFEST: strata.yaml:5:3: setting n: min 10 is greater than max 1, so no value is accepted',
    ]);
    expect(
      diagnostics(
        'layers:\n  - id: base\n    file: base.md\ninputs:\n  k: { type: integer, min: 3, max: 2 }\n',
      ),
    ).toEqual([
      'error BAD_MANIFEST: strata.yaml:5:3: input k: min 3 is greater than max 2, so no value is accepted',
    ]);
  });

  it('min equal to max is one accepted value', () => {
    expect(
      diagnostics(
        'layers:\n  - id: base\n    file: base.md\nsettings:\n  n: { type: integer, default: 2, min: 2, max: 2 }\n',
      ),
    ).toEqual([]);
  });

  it.each([
    ['"A B"', 13],
    ['""', 13],
    ['"A=B"', 13],
    ['"1ABC"', 13],
  ])('env %s is no environment variable name: BAD_MANIFEST at the value', (env, col) => {
    expect(
      diagnostics(`layers:\n  - id: base\n    file: base.md\nsettings:\n  s: { env: ${env} }\n`),
    ).toEqual([
      `error BAD_MANIFEST: strata.yaml:5:${col}: setting s: env ${env} is no environment variable name (letters, digits and _, not starting with a digit)`,
    ]);
  });

  it('a valid env name is read', () => {
    const r = memPack(
      {
        'base.md': 'B',
        'strata.yaml': 'layers:\n  - id: base\n    file: base.md\nsettings:\n  s: { env: MY_S_1 }\n',
      },
      { env: { MY_S_1: 'x' } },
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.snapshot?.settings.values.s).toBe('x');
  });
});
