import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Digests } from '../../src/core/build/digests.js';
import { DecodedFile, decodePackFile, NOT_UTF8, splitPackFile } from '../../src/core/build/pack-file.js';
import { splitFrontmatter } from '../../src/core/text/frontmatter.js';
import { decodeLossy, decodeText, utf8Length } from '../../src/core/text/text.js';
import { buildSnapshot } from '../../src/engine/default-engine.js';
import { sameBytes } from '../../src/engine/incremental/same-bytes.js';

// A loaded pack keeps one copy of each file: its bytes. Text, prompt and prompt hash are
// derived from them (the prompt and its hash once, on first use), and must be exactly
// what decoding and splitting the bytes gives.

const enc = (s: string) => new TextEncoder().encode(s);

function build(files: Record<string, Uint8Array>, manifest?: string) {
  const map = new Map(Object.entries(files));
  if (manifest !== undefined) map.set('strata.yaml', enc(manifest));
  const result = buildSnapshot({ files: map, env: {} });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return { snapshot: result.snapshot!, map };
}

const FILES = {
  'base.md': enc('\ufeffBase rule.\r\nSecond line.\r\n\r\n'),
  'roles/dev.md': enc('---\nname: Dev\ndescription: Builds things.\n---\n\n  # Dev\n\nShips é and ✓.  \n'),
  'roles/qa.md': enc('No frontmatter here.\n\n'),
  'notes/raw.txt': new Uint8Array([0x41, 0xff, 0x42, 0x0a]),
  'roles.yaml': enc('roles:\n  dev: { name: Dev }\n  qa: { name: QA }\n'),
};
const MANIFEST =
  'layers:\n  - id: base\n    file: base.md\n  - id: role\n    file: "roles/{role}.md"\nraw:\n  - "notes/*.txt"\n';

describe('loaded pack files', () => {
  it('derive text, prompt and sizes from their bytes, as decoding and splitting gives them', () => {
    const { snapshot } = build(FILES, MANIFEST);
    for (const [path, bytes] of Object.entries(FILES)) {
      const file = snapshot.files.get(path)!;
      const raw = path.endsWith('.txt');
      const text = raw ? decodeLossy(bytes) : decodeText(bytes)!;
      expect(file.text, path).toBe(text);
      const split = path.endsWith('.md') ? splitFrontmatter(text, path) : undefined;
      const prompt = (split ? split.body : text).trim();
      expect(file.bodyOffset, path).toBe(split?.bodyOffset ?? 0);
      expect(file.prompt, path).toBe(prompt);
      expect(file.prompt, path).toBe(file.prompt); // the same string once made
      expect(file.promptBytes, path).toBe(utf8Length(prompt));
      expect(raw ? sameBytes(file.raw, bytes) : file.raw === undefined, path).toBe(true);
    }
    expect(snapshot.files.get('roles/dev.md')!.meta).toEqual({ name: 'Dev', description: 'Builds things.' });
  });

  it('hold no decoded text of their own', () => {
    const { snapshot } = build(FILES, MANIFEST);
    for (const file of snapshot.files.values()) {
      // Own fields: path, content hash, metadata, offsets; no text or prompt string.
      for (const [key, value] of Object.entries(file))
        if (key !== 'sha256' && key !== 'path') expect(typeof value, key).not.toBe('string');
      expect(Object.keys(file)).not.toContain('text');
      expect(Object.keys(file)).not.toContain('prompt');
    }
  });

  it("are the last build's for unchanged bytes objects, and made again for changed ones", () => {
    const { snapshot: first, map } = build(FILES, MANIFEST);
    // Full builds (the manifest's bytes are a new object each time: nothing is patched).
    const next = (edits: Record<string, string>) =>
      new Map([
        ...map,
        ['strata.yaml', enc(MANIFEST)],
        ...Object.entries(edits).map(([p, t]) => [p, enc(t)] as const),
      ]);
    const again = buildSnapshot({ files: next({}), env: {}, previous: first }).snapshot!;
    // A file with a diagnostic to give again (notes/raw.txt is no UTF-8 text: a warning)
    // is decoded again, to the same file.
    for (const [path, file] of first.files)
      if (path === 'notes/raw.txt') expect(again.files.get(path), path).toEqual(file);
      else if (path !== 'strata.yaml') expect(again.files.get(path), path).toBe(file);
    const edited = next({ 'roles/qa.md': 'Changed.\n' });
    const changed = buildSnapshot({ files: edited, env: {}, previous: again }).snapshot!;
    expect(changed.files.get('roles/qa.md')).not.toBe(first.files.get('roles/qa.md'));
    expect(changed.files.get('roles/qa.md')!.prompt).toBe('Changed.');
    expect(changed.files.get('base.md')).toBe(first.files.get('base.md'));
    expect(changed.version).not.toBe(first.version);
    // Without the last build, every file is decoded again (nothing is held per bytes object).
    const fresh = buildSnapshot({ files: edited, env: {} }).snapshot!;
    expect(fresh.files.get('base.md')).not.toBe(first.files.get('base.md'));
    expect(fresh.version).toBe(changed.version);
  });

  it('are decoded again when the frontmatter mode or the raw globs changed, or when they gave a warning', () => {
    const { snapshot: first, map } = build(FILES, MANIFEST);
    const other = buildSnapshot({
      files: new Map([...map, ['strata.yaml', enc(`frontmatter: none\n${MANIFEST}`)]]),
      env: {},
      previous: first,
    }).snapshot!;
    expect(other.files.get('roles/qa.md')).not.toBe(first.files.get('roles/qa.md'));
    expect(other.files.get('roles/dev.md')!.meta).toEqual({});
    const rawGlobs = buildSnapshot({
      files: new Map([...map, ['strata.yaml', enc(MANIFEST.replace('notes/*.txt', 'notes/*'))]]),
      env: {},
      previous: first,
    }).snapshot!;
    expect(rawGlobs.files.get('base.md')).not.toBe(first.files.get('base.md'));

    const lenient = `frontmatter: lenient\n${MANIFEST}`;
    const warned = { ...FILES, 'roles/qa.md': enc('---\n[not, a, mapping]\n---\nQ.\n') };
    const once = buildSnapshot({
      files: new Map([...Object.entries(warned), ['strata.yaml', enc(lenient)]]),
      env: {},
    });
    const codes = (r: typeof once) => r.diagnostics.map((d) => `${d.code} ${d.file}`);
    expect(codes(once)).toContain('BAD_FRONTMATTER roles/qa.md');
    const twice = buildSnapshot({
      files: new Map([...Object.entries(warned), ['strata.yaml', enc(lenient)]]),
      env: {},
      previous: once.snapshot!,
    });
    expect(codes(twice)).toEqual(codes(once));
    expect(twice.snapshot!.files.get('base.md')).toBe(once.snapshot!.files.get('base.md'));
  });

  it('locate frontmatter values for diagnostics by parsing the file again, lenient mode too', () => {
    const manifest =
      'frontmatter: lenient\nlayers:\n  - id: role\n    file: "roles/{role}.md"\nfleet:\n  file: fleet.yaml\n  identities: "identities/{agent}.md"\n';
    const files = {
      'strata.yaml': enc(manifest),
      'roles/dev.md': enc('D'),
      'roles/qa.md': enc('Q'),
      'fleet.yaml': enc('agents:\n  - { id: ada, role: dev }\n'),
      // An unquoted `: ` does not parse as YAML: the lenient mode quotes it and parses again.
      'identities/ada.md': enc('---\ntitle: Ada: the first\nrole: qa\n---\nAda.\n'),
    };
    const result = buildSnapshot({ files: new Map(Object.entries(files)), env: {} });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['FLEET_CONFLICT']);
    expect(result.diagnostics[0]).toMatchObject({ file: 'identities/ada.md', line: 3, col: 7 });
    expect(result.snapshot!.files.get('identities/ada.md')!.frontmatterRetried).toBe(true);
  });
});

describe('a plain file read without decoding', () => {
  it('has the prompt size, offset and metadata that decoding, splitting and trimming give', () => {
    // Bytes drawn from what matters: white space of every ASCII kind, carriage returns,
    // dashes (frontmatter), letters, and a few bytes past ASCII.
    const alphabet = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x2d, 0x2d, 0x41, 0x61, 0x3a, 0xc3, 0xa9, 0xa0];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }),
          // Frontmatter-shaped: an opening fence, lines of YAML-ish text, maybe a closing
          // fence, a body.
          fc
            .tuple(
              fc.array(fc.constantFrom('a: 1', 'name: x', '---', ' - b', 'k: [', '', 'é: 2', 'x:\r'), {
                maxLength: 4,
              }),
              fc.boolean(),
              fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }),
            )
            .map(([lines, closed, body]) => [
              ...new TextEncoder().encode(
                `---\n${lines.join('\n')}${lines.length ? '\n' : ''}${closed ? '---\n' : ''}`,
              ),
              ...body,
            ]),
        ),
        fc.constantFrom('yaml', 'strict', 'lenient', 'none') as fc.Arbitrary<
          'yaml' | 'strict' | 'lenient' | 'none'
        >,
        (list, mode) => {
          const bytes = Uint8Array.from(list);
          const path = mode === 'yaml' ? 'x.yaml' : 'x.md';
          const fast = decodePackFile(path, bytes, mode, false, { digests: new Digests() });
          const text = decodeText(bytes);
          if (text === undefined) {
            expect(fast).toBe(NOT_UTF8);
            return;
          }
          const slow = splitPackFile(path, bytes.slice(), text, mode, false, { digests: new Digests() });
          const view = (d: typeof slow | typeof NOT_UTF8) => {
            if (d === NOT_UTF8) return d;
            const file = d instanceof DecodedFile ? d : d.file;
            return {
              split: d instanceof DecodedFile ? undefined : d.split.diagnostics,
              meta: file.meta,
              bodyOffset: file.bodyOffset,
              promptBytes: file.promptBytes,
              prompt: file.prompt,
              text: file.text,
            };
          };
          expect(view(fast)).toEqual(view(slow));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
