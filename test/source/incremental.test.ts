import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeMember, packMembers } from '../../src/core/members.js';
import { buildSnapshot, type LoadResult, type Snapshot } from '../../src/core/snapshot.js';
import { patchedPaths } from '../../src/core/snapshot-patch.js';
import { openPack } from '../../src/source/open.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { FileReuse, SETTLED_MS } from '../../src/source/reuse.js';
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
    expect(second.files.get('roles/qa.md')).toBe(first.files.get('roles/qa.md'));
    expect(second.files.get('base.md')).not.toBe(first.files.get('base.md'));
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
      if (path === 'teams/platform.md') expect(bytes).not.toBe(first.files.get(path));
      else expect(bytes, path).toBe(first.files.get(path));
    }
    expect(new TextDecoder().decode(second.files.get('teams/platform.md'))).toContain('Platform note.');
  });

  it('start the build from the previous snapshot when a body edit allows it', async () => {
    const before = (await incremental()).snapshot!;
    await apply({ kind: 'append', file: 'doctrine/fable.md', text: 'A fable note.' });
    const after = (await incremental()).snapshot!;
    // (A file written within a second of its last read is read again, so the edits of the
    // tests before may be among the paths too.)
    expect(patchedPaths(before, after)).toContain('doctrine/fable.md');
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
  it('never trusts an identity that was taken within the settling time of a change', () => {
    const reuse = new FileReuse();
    const bytes = new Uint8Array([1]);
    reuse.keep('/p', new Map([['a.md', { identity: 'id', bytes, readAtMs: 10_000 }]]));
    expect(reuse.get('/p', 'a.md', 'id', 10_000 - SETTLED_MS - 1)?.bytes).toBe(bytes);
    expect(reuse.get('/p', 'a.md', 'id', 10_000 - SETTLED_MS)).toBeUndefined();
    expect(reuse.get('/p', 'a.md', 'other', 0)).toBeUndefined();
    expect(reuse.get('/q', 'a.md', 'id', 0)).toBeUndefined();
  });

  it('keeps at most a few roots', () => {
    const reuse = new FileReuse();
    for (let i = 0; i < 6; i++)
      reuse.keep(`/p${i}`, new Map([['a', { identity: 'x', bytes: new Uint8Array(), readAtMs: 1e9 }]]));
    expect(reuse.get('/p0', 'a', 'x', 0)).toBeUndefined();
    expect(reuse.get('/p5', 'a', 'x', 0)).toBeDefined();
  });
});
