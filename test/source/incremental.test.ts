import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadResult, Snapshot } from '../../src/core/build/snapshot.js';
import { composeMember, packMembers } from '../../src/core/compose/members.js';
import { buildSnapshot, defaultEngine } from '../../src/engine/default-engine.js';
import { sameBytes } from '../../src/engine/incremental/same-bytes.js';
import { openPack } from '../../src/source/open.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { FileReuse, KeptFiles, SETTLED_MS } from '../../src/source/reuse.js';
import { readStablePack } from '../../src/source/stable-read.js';
import { EXAMPLES } from '../helpers.js';

// A reload reads only what changed (by file identity) and reuses the decoding and parsing
// of unchanged files (by bytes object). Whatever the edits, the snapshot it builds must be
// the one a build from scratch gives: same version, same bytes and provenance for every
// member.

let base: string;
let pack: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'strata-incremental-'));
  pack = join(base, 'pack');
  await cp(join(EXAMPLES, 'roboco'), pack, { recursive: true });
  // Files changed less than SETTLED_MS ago are always read again; let the copy settle so
  // the unchanged files are reused (setup, not a timing assertion).
  await new Promise((r) => setTimeout(r, SETTLED_MS + 200));
});

afterAll(() => rm(base, { recursive: true, force: true }));

/** Everything observable about a load: version, warnings, every member's result. */
function observe(result: LoadResult) {
  const snapshot = result.snapshot;
  if (!snapshot) return { diagnostics: result.diagnostics };
  return {
    version: snapshot.version,
    roles: [...snapshot.roles.keys()],
    fleet: snapshot.fleet.map((a) => [a.id, a.role, a.team]),
    warnings: snapshot.warnings,
    members: packMembers(snapshot).map((m) => {
      const outcome = composeMember(snapshot, m, { fable_mode_enabled: true });
      return outcome.ok ? { text: outcome.result.text, layers: outcome.result.layers } : outcome.diagnostics;
    }),
  };
}

/** A build from scratch: fresh bytes objects, so no memo can be hit. */
async function fromScratch(): Promise<LoadResult> {
  const read = await readPackDir(pack, { reuse: new FileReuse() });
  const files = new Map([...read.files].map(([k, v]) => [k, new Uint8Array(v)]));
  return buildSnapshot({ ...read, files, readDiagnostics: read.diagnostics, env: {} });
}

/** The last snapshot an incremental load built: the next one starts from it, as a reload does. */
let last: Snapshot | undefined;

async function incremental(): Promise<LoadResult> {
  const result = await openPack({ kind: 'dir', dir: pack }, { env: {}, ...(last ? { previous: last } : {}) });
  if (result.snapshot) last = result.snapshot;
  return result;
}

const EDITABLE = [
  'base.md',
  'roles/developer.md',
  'identities/ada.md',
  'teams/platform.md',
  'fleet.yaml',
  'doctrine/fable.md',
];

type Edit =
  | { kind: 'append'; file: string; text: string }
  | { kind: 'delete'; file: string }
  | { kind: 'create'; file: string; text: string };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    file: fc.constantFrom(...EDITABLE),
    text: fc.string({ maxLength: 40 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.constantFrom(...EDITABLE) }),
  fc.record({
    kind: fc.constant('create' as const),
    file: fc.constantFrom('teams/new.md', 'identities/new.md', 'roles/newrole.md'),
    text: fc.string({ minLength: 1, maxLength: 40 }),
  }),
);

async function apply(e: Edit): Promise<void> {
  const path = join(pack, e.file);
  if (e.kind === 'delete') await unlink(path).catch(() => undefined);
  else if (e.kind === 'create') await writeFile(path, e.text);
  else {
    const before = await readFile(path, 'utf8').catch(() => '');
    await writeFile(path, `${before}\n${e.text}\n`);
  }
}

describe('incremental reloads', () => {
  it('reuse the bytes of a file that did not change, and read the one that did', async () => {
    await incremental();
    const first = await readPackDir(pack);
    await apply({ kind: 'append', file: 'base.md', text: 'One more rule.' });
    const second = await readPackDir(pack);
    expect(sameBytes(second.files.get('roles/qa.md'), first.files.get('roles/qa.md'))).toBe(true);
    expect(sameBytes(second.files.get('base.md'), first.files.get('base.md'))).toBe(false);
    expect(new TextDecoder().decode(second.files.get('base.md'))).toContain('One more rule.');
  });

  it('a consistent read reads the changed file again and reuses the bytes of the rest', async () => {
    const reuse = new FileReuse();
    // Let earlier edits settle, as a running service's files have (setup, not a timing assertion).
    await new Promise((r) => setTimeout(r, SETTLED_MS + 200));
    const first = await readStablePack(pack, { quietMs: 20, reuse });
    await apply({ kind: 'append', file: 'teams/platform.md', text: 'Platform note.' });
    const second = await readStablePack(pack, { quietMs: 20, reuse });
    expect(second.diagnostics).toEqual([]);
    expect([...second.files.keys()]).toEqual([...first.files.keys()]);
    for (const [path, bytes] of second.files) {
      expect(sameBytes(bytes, first.files.get(path)), path).toBe(path !== 'teams/platform.md');
    }
    expect(new TextDecoder().decode(second.files.get('teams/platform.md'))).toContain('Platform note.');
  });

  it('start the build from the previous snapshot when a body edit allows it', async () => {
    const before = (await incremental()).snapshot!;
    await apply({ kind: 'append', file: 'doctrine/fable.md', text: 'A fable note.' });
    const after = (await incremental()).snapshot!;
    // (A file written within a second of its last read is read again, so the edits of the
    // tests before may be among the paths too.)
    expect(defaultEngine.patchedPaths(before, after)).toContain('doctrine/fable.md');
    expect(observe({ snapshot: after, diagnostics: after.warnings })).toEqual(observe(await fromScratch()));
  });

  it('build the same snapshot as a load from scratch, whatever the edits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 4 }), async (edits) => {
        for (const e of edits) await apply(e);
        expect(observe(await incremental())).toEqual(observe(await fromScratch()));
      }),
      { numRuns: 15 },
    );
  });
});

describe('FileReuse', () => {
  const changedAt = (ms: number) => ({ ino: 7, size: 1, mtimeMs: ms - 5, ctimeMs: ms });
  const keptOne = (rel: string, bytes: Uint8Array, st = changedAt(0), readAtMs = 1e9) => {
    const kept = new KeptFiles();
    kept.set(rel, bytes, st, readAtMs);
    return kept;
  };

  it('never trusts an identity that was taken within the settling time of a change', () => {
    const reuse = new FileReuse();
    const bytes = new Uint8Array([1]);
    const settled = changedAt(10_000 - SETTLED_MS - 1);
    const recent = changedAt(10_000 - SETTLED_MS);
    const kept = new KeptFiles();
    kept.set('a.md', bytes, settled, 10_000);
    kept.set('b.md', bytes, recent, 10_000);
    reuse.keep('/p', kept);
    expect(sameBytes(reuse.get('/p', 'a.md', settled), bytes)).toBe(true);
    expect(reuse.get('/p', 'b.md', recent)).toBeUndefined();
    expect(reuse.get('/p', 'a.md', { ...settled, size: 2 })).toBeUndefined();
    expect(reuse.get('/p', 'a.md', { ...settled, ino: 8 })).toBeUndefined();
    expect(reuse.get('/p', 'a.md', { ...settled, mtimeMs: settled.mtimeMs + 0.25 })).toBeUndefined();
    expect(reuse.get('/p', 'a.md', settled, 'a real path elsewhere')).toBeUndefined();
    expect(reuse.get('/q', 'a.md', settled)).toBeUndefined();
  });

  it('compares the real path of a file kept with one', () => {
    const reuse = new FileReuse();
    const bytes = new Uint8Array([1]);
    const st = changedAt(0);
    const kept = keptOne('a.md', bytes, st);
    kept.set('b.md', bytes, st, 1e9, 'there');
    reuse.keep('/p', kept);
    expect(sameBytes(reuse.get('/p', 'b.md', st, 'there'), bytes)).toBe(true);
    expect(reuse.get('/p', 'b.md', st)).toBeUndefined();
    expect(reuse.get('/p', 'b.md', st, 'elsewhere')).toBeUndefined();
  });

  it('keeps at most a few roots', () => {
    const reuse = new FileReuse();
    for (let i = 0; i < 6; i++) reuse.keep(`/p${i}`, keptOne('a', new Uint8Array()));
    expect(reuse.get('/p0', 'a', changedAt(0))).toBeUndefined();
    expect(reuse.get('/p5', 'a', changedAt(0))).toBeDefined();
  });
});

describe('KeptFiles', () => {
  it('a first read holds its files in buffers about their size: the last block is fitted to what it holds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-fit-'));
    try {
      // 25 files of 3,000 bytes: a first block of 64 KiB holds 21, a second 4 (12,000 of its 65,536 bytes).
      for (let i = 0; i < 25; i++)
        await writeFile(join(dir, `f${String(i).padStart(2, '0')}.md`), `${i % 10}`.repeat(3000));
      const read = await readPackDir(dir, { reuse: new FileReuse() });
      const buffers = new Set<ArrayBufferLike>();
      let bytes = 0;
      for (const [rel, b] of read.files) {
        expect(new TextDecoder().decode(b), rel).toBe(`${Number(rel.slice(1, 3)) % 10}`.repeat(3000));
        buffers.add(b.buffer);
        bytes += b.byteLength;
      }
      const held = [...buffers].reduce((n, b) => n + b.byteLength, 0);
      expect(bytes).toBe(75_000);
      // The first block's unused end (2,536 bytes) stays; the second is fitted to 12,000.
      expect(held).toBe(65_536 + 12_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps files by path through deletes and re-reads, as a map would', () => {
    const kept = new KeptFiles();
    const model = new Map<string, Uint8Array>();
    const st = (i: number) => ({ ino: i, size: i, mtimeMs: i + 0.5, ctimeMs: i + 0.75 });
    for (let i = 0; i < 500; i++) {
      const bytes = new Uint8Array([i & 255]);
      kept.set(`f${i % 300}`, bytes, st(i), 1e12);
      model.set(`f${i % 300}`, bytes);
      if (i % 3 === 0) {
        kept.delete(`f${(i * 7) % 300}`);
        model.delete(`f${(i * 7) % 300}`);
      }
    }
    kept.trim();
    // A clone changes apart from the original.
    const copy = kept.clone();
    copy.set('new', new Uint8Array([9]), st(1), 1e12);
    copy.delete('f1');
    expect(kept.has('new')).toBe(false);
    expect(kept.has('f1')).toBe(model.has('f1'));
    expect(copy.get('new')).toEqual(new Uint8Array([9]));
    expect(kept.size).toBe(model.size);
    expect(new Map(kept)).toEqual(model);
    expect([...kept.keys()].sort()).toEqual([...model.keys()].sort());
    for (const [rel, bytes] of model) {
      expect(sameBytes(kept.get(rel), bytes), rel).toBe(true);
      const i = Number(rel.slice(1));
      const last = i + 300 * Math.floor((499 - i) / 300);
      expect(sameBytes(kept.unchanged(rel, st(last)), bytes), rel).toBe(true);
    }
  });

  it('takes back the rows of dropped files, keeping what each kept file matches', () => {
    const kept = new KeptFiles();
    const st = (i: number) => ({ ino: i, size: i, mtimeMs: 1000 + i, ctimeMs: 1000 + i });
    for (let i = 0; i < 6000; i++)
      kept.add(`f${i}`, new Uint8Array([i & 255]), st(i), i % 7 === 0 ? 0 : 1e12);
    for (let i = 0; i < 6000; i++) if (i % 5 !== 0) kept.delete(`f${i}`);
    expect(kept.size).toBe(1200);
    for (let i = 0; i < 6000; i += 5) {
      expect(kept.get(`f${i}`)).toEqual(new Uint8Array([i & 255]));
      // A file kept before it had settled is still never reused.
      expect(kept.unchanged(`f${i}`, st(i)) !== undefined).toBe(i % 7 !== 0);
    }
  });
});
