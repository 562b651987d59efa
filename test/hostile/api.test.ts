import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compose, tryCompose } from '../../src/core/compose/compose.js';
import { PromptError } from '../../src/core/text/diagnostics.js';
import {
  createEngine,
  compose as packageCompose,
  loadPack as packageLoadPack,
  openPack as packageOpenPack,
  tryCompose as packageTryCompose,
} from '../../src/index.js';
import { loadPack, loadPackStrict } from '../../src/source/load.js';
import { cli, EXAMPLES, tempDir } from '../helpers.js';

const ROBOCO = join(EXAMPLES, 'roboco');

/**
 * The library called from untyped code (plain JavaScript, parsed JSON): a request of the
 * wrong shape is a coded diagnostic, never a TypeError from deep inside, and a limit
 * that is not a number never turns the limit off.
 */
const withoutMemo = createEngine({ accelerators: { memo: false } });

/** The core's functions, the package's (the default engine's, memoised) and an engine's without a memo. */
const ENTRIES: Array<[string, { compose: typeof compose; tryCompose: typeof tryCompose }]> = [
  ['core', { compose, tryCompose }],
  ['package', { compose: packageCompose, tryCompose: packageTryCompose }],
  [
    'engine without memo',
    { compose: (s, r) => withoutMemo.compose(s, r), tryCompose: (s, r) => withoutMemo.tryCompose(s, r) },
  ],
];

describe('hostile library calls', () => {
  it.each(ENTRIES)(
    'a compose request of the wrong shape is BAD_REQUEST, and tryCompose does not throw (%s)',
    async (_, { compose, tryCompose }) => {
      const snapshot = await loadPackStrict(ROBOCO);
      const bad: unknown[] = [
        null,
        undefined,
        'ada',
        [],
        { agent: 42 },
        { agent: ['ada'] },
        { role: { toString: () => 'qa' } },
        { agent: 'ada', ambient: 7 },
        { agent: 'ada', settings: 'fable_mode_enabled=on' },
        { agent: 'ada', settings: [1, 2] },
        { agent: 'ada', vars: 'x' },
        { agent: 'ada', vars: null },
      ];
      for (const request of bad) {
        const outcome = tryCompose(snapshot, request as never);
        expect(outcome.ok, JSON.stringify(request)).toBe(false);
        if (!outcome.ok) expect(outcome.diagnostics.map((d) => d.code)).toContain('BAD_REQUEST');
        expect(() => compose(snapshot, request as never)).toThrow(PromptError);
      }
      for (const notSnapshot of [null, undefined, {}, 'pack', 42]) {
        const outcome = tryCompose(notSnapshot as never, { agent: 'ada' });
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.diagnostics[0]!.code).toBe('BAD_REQUEST');
        expect(() => compose(notSnapshot as never, { agent: 'ada' })).toThrow(PromptError);
      }
      // The right shape still composes.
      expect(tryCompose(snapshot, { agent: 'ada' }).ok).toBe(true);
    },
  );

  it.each([
    [
      'loadPack(undefined)',
      () => packageLoadPack(undefined as never),
      'the pack folder is undefined, not a path (a string)',
    ],
    [
      'loadPack(42)',
      () => packageLoadPack(42 as never),
      'the pack folder is a number, not a path (a string)',
    ],
    [
      "openPack({ kind: 'x' })",
      () => packageOpenPack({ kind: 'x' } as never),
      'the pack source kind "x" is none of: dir, bundle, git, files',
    ],
    [
      'openPack(undefined)',
      () => packageOpenPack(undefined as never),
      "the pack source is undefined, not an object such as { kind: 'dir', dir }",
    ],
    [
      "openPack({ kind: 'dir' })",
      () => packageOpenPack({ kind: 'dir' } as never),
      "the dir source's dir is undefined, not a string",
    ],
    [
      "openPack({ kind: 'git', dir, rev: 1 })",
      () => packageOpenPack({ kind: 'git', dir: ROBOCO, rev: 1 } as never),
      "the git source's rev is a number, not a string",
    ],
    [
      "openPack({ kind: 'files', files: {} })",
      () => packageOpenPack({ kind: 'files', files: {} } as never),
      "the files source's files is an object, not a Map of path to text or bytes",
    ],
    [
      "openPack({ kind: 'files', files: Map { a.md → 1 } })",
      () => packageOpenPack({ kind: 'files', files: new Map([['a.md', 1]]) } as never),
      'the files source\'s "a.md" is a number, not text or bytes (a Uint8Array)',
    ],
    [
      'openPack(source, null)',
      () => packageOpenPack({ kind: 'dir', dir: ROBOCO }, null as never),
      'the open options are null, not an object',
    ],
  ])('%s is a BAD_REQUEST diagnostic, not a TypeError', async (_, call, message) => {
    const result = await call();
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics).toEqual([{ code: 'BAD_REQUEST', severity: 'error', message }]);
  });

  it('loadPackStrict of no folder throws a PromptError with BAD_REQUEST', async () => {
    await expect(loadPackStrict(undefined as never)).rejects.toMatchObject({
      name: 'PromptError',
      code: 'BAD_REQUEST',
    });
  });

  it('a setting value JSON cannot write (a bigint, a symbol) is INVALID_SETTING, not a TypeError', async () => {
    const snapshot = await loadPackStrict(ROBOCO);
    for (const value of [10n, Symbol('x'), () => 1]) {
      const outcome = tryCompose(snapshot, { agent: 'ada', settings: { ponytail_intensity: value } });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.diagnostics.map((d) => d.code)).toEqual(['INVALID_SETTING']);
    }
  });

  it('a pack limit that is not a positive integer is refused, not read as "no limit"', async () => {
    for (const bad of ['abc', Number.NaN, 0, -1, Number.POSITIVE_INFINITY, 1.5]) {
      await expect(loadPack(ROBOCO, { maxFiles: bad as never })).rejects.toThrow(
        /maxFiles must be a positive integer/,
      );
    }
    await expect(loadPack(ROBOCO, { maxFileBytes: '10' as never })).rejects.toThrow(RangeError);
    const { diagnostics } = await loadPack(ROBOCO, { maxFiles: 3 });
    expect(diagnostics.map((d) => d.code)).toContain('TOO_MANY_FILES');
  });

  it('a lock edited to name constructor/toString settings is compared on its own keys', async () => {
    const dir = tempDir();
    const lockPath = join(dir, 'lock.json');
    expect((await cli(['snapshot', '--dir', ROBOCO, '--out', lockPath])).code).toBe(0);
    const { readFileSync } = await import('node:fs');
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
    lock.settings = { ...lock.settings, constructor: 'x', toString: 3 };
    writeFileSync(lockPath, JSON.stringify(lock));
    const run = await cli(['snapshot', '--dir', ROBOCO, '--check', lockPath]);
    expect(run.stderr).toContain('constructor=unset (lock: x)');
    expect(run.stderr).toContain('toString=unset (lock: 3)');
    expect(run.stderr).not.toContain('native code');
  });
});

describe('hand-edited lock files', () => {
  it('a member listed twice, or a __proto__ setting or input, is BAD_LOCK, not silently merged or dropped', async () => {
    const { parseLock } = await import('../../src/tooling/lock/lock.js');
    const sha = 'a'.repeat(64);
    const member = { key: 'ada', sha256: sha, bytes: 1 };
    const twice = JSON.stringify({
      strata_lock: 1,
      settings: {},
      members: [member, { ...member, sha256: 'b'.repeat(64) }],
    });
    expect(parseLock(twice, 'l.json').diagnostics.map((d) => d.message)).toEqual([
      'not a strata lock file at members.1.key: member "ada" is listed twice',
    ]);
    for (const part of ['settings', 'vars']) {
      const text = `{"strata_lock":1,"settings":{},"members":[],"${part}":{"__proto__":"x"}}`.replace(
        '"settings":{},',
        part === 'settings' ? '' : '"settings":{},',
      );
      const { lock, diagnostics } = parseLock(text, 'l.json');
      expect(lock).toBeUndefined();
      expect(diagnostics.map((d) => d.code)).toEqual(['BAD_LOCK']);
      expect(diagnostics[0]!.message).toContain(`${part}.__proto__`);
    }
    const ok = JSON.stringify({ strata_lock: 1, settings: { a: 1 }, members: [member] });
    expect(parseLock(ok, 'l.json').diagnostics).toEqual([]);
  });
});
