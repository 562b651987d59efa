import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PREFIX_MIN_CHARS, PrefixedTextHash } from '../../src/core/compose/prefix-hash.js';
import type { LayerResult } from '../../src/core/compose/types.js';
import { compose } from '../../src/engine/default-engine.js';
import { okPack } from '../helpers.js';

// A prompt that begins with files' prompts as they stand and ends with a text of its own
// (an ambient text) is hashed from the kept hash state of its beginning: its sha256 must be
// the whole text's, whichever beginning was kept before it.

const direct = (text: string) => createHash('sha256').update(text).digest('hex');

describe("a prompt's sha256 from the kept hash of its beginning", () => {
  // Long enough to be kept; multi-byte characters on both sides of the separators.
  const base = 'Base rule: be precise, verify, cite — ü € 𝄞.\n'.repeat(40);
  const pack = okPack({
    'base.md': base,
    'roles/writer.md': 'Writer: drafts — 𝄞.',
    'roles/editor.md': 'Editor: cuts.',
    'roles/developer.md': 'Developer: builds.',
    'doctrine/fable.md': 'Fable doctrine.',
    'doctrine/ponytail.md': 'Ponytail ladder.',
    'doctrine/ponytail-ethos.md': 'Ponytail ethos.',
    'teams/platform.md': 'Platform team.',
  });

  it('is the sha256 of the whole text, whichever role, team, settings and text follow', () => {
    expect(base.length).toBeGreaterThan(PREFIX_MIN_CHARS);
    fc.assert(
      fc.property(
        fc.constantFrom('writer', 'editor', 'developer'),
        fc.constantFrom(undefined, 'platform'),
        fc.boolean(),
        // Any UTF-16 code units: lone surrogates included.
        fc.string({ unit: 'binary', maxLength: 40 }),
        (role, team, fable, ambient) => {
          const result = compose(pack, {
            role,
            ...(team ? { team } : {}),
            settings: { fable_mode_enabled: fable },
            ambient: `Now: ${ambient}`,
          });
          expect(result.sha256).toBe(direct(result.text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tells apart beginnings of the same length made of other files', () => {
    // Two roles whose prompts have the same length: the kept state of one is not the other's.
    const same = okPack({ 'base.md': base, 'roles/aaa.md': 'Role A.', 'roles/bbb.md': 'Role B.' });
    const a = compose(same, { role: 'aaa', ambient: 'Now.' });
    const b = compose(same, { role: 'bbb', ambient: 'Now.' });
    expect(a.text.length).toBe(b.text.length);
    expect([a.sha256, b.sha256]).toEqual([direct(a.text), direct(b.text)]);
    expect(a.sha256).not.toBe(b.sha256);
  });

  it('hashes the whole text when the beginning would end inside a surrogate pair', () => {
    // (No pack can make one: files are UTF-8 and a manifest refuses lone surrogates.) A
    // high surrogate at the end of the beginning and its low half after it are one
    // character, 4 UTF-8 bytes; hashed apart they would be two U+FFFD.
    const snapshot = okPack({ 'base.md': base, 'roles/writer.md': 'Writer.' });
    const layers = [{ id: 'base', included: true, kind: 'file', source: 'base.md' }] as LayerResult[];
    const text = `${'x'.repeat(2000)}\uD834\uDD1E and on.`;
    const hash = new PrefixedTextHash(snapshot, { text }, layers, 1, 2001, 'ambient');
    expect(hash.hash()).toBe(direct(text));
    // Split where characters end, the kept beginning is used, and gives the same hash.
    const whole = `${'x'.repeat(2000)}\uD834\uDD1E`;
    const after = new PrefixedTextHash(
      snapshot,
      { text: `${whole} then.` },
      layers,
      1,
      whole.length,
      'ambient',
    );
    expect(after.hash()).toBe(direct(`${whole} then.`));
  });
});
