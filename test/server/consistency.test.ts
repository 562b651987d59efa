import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/text.js';
import { copyFixture, SEP, spawnServe } from './helpers.js';

/** Two valid versions that differ in two files, so a mix of them has a third sha256. */
const VERSIONS = {
  a: { 'base.md': 'Base A.\n', 'roles/writer.md': 'Writer A.\n' },
  b: { 'base.md': 'Base B.\n', 'roles/writer.md': 'Writer B.\n' },
};
const PROMPTS = {
  a: ['Base A.', 'Writer A.'].join(SEP),
  b: ['Base B.', 'Writer B.'].join(SEP),
};
const MIXES = [['Base A.', 'Writer B.'].join(SEP), ['Base B.', 'Writer A.'].join(SEP)];
const REWRITES = 200;
const CLIENTS = 4;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Rewrite = (version: 'a' | 'b', i: number) => Promise<void>;

/**
 * A plain folder where each file is saved by writing a temp file and renaming it over
 * the old one (as editors and deploy tools do): between the two renames the folder holds
 * a mix of the versions, which the watcher must never serve.
 */
async function renameSaves(): Promise<{ dir: string; rewrite: Rewrite }> {
  const { dir, cleanup } = await copyFixture();
  cleanups.push(cleanup);
  const rewrite: Rewrite = async (v) => {
    for (const [path, text] of Object.entries(VERSIONS[v])) {
      const temp = join(dir, `${path}.tmp~`);
      writeFileSync(temp, text);
      renameSync(temp, join(dir, path));
    }
  };
  await rewrite('a', 0);
  return { dir, rewrite };
}

// The rewriters use synchronous file calls: the clients keep this process's event loop
// busy, and each awaited call would wait behind their responses.

/**
 * A ConfigMap-style volume: each version is a new timestamped folder (written before the
 * swap, as the kubelet does), swapped in by renaming a ..data_tmp symlink over ..data;
 * the old folder is then deleted.
 */
async function configMap(): Promise<{ dir: string; rewrite: Rewrite }> {
  const { dir: src, cleanup } = await copyFixture();
  cleanups.push(cleanup);
  for (const [path, text] of Object.entries(VERSIONS.a)) await writeFile(join(src, path), text);
  const dir = join(src, '..', 'volume');
  const staging = join(src, '..', 'staging');
  await mkdir(dir);
  await mkdir(staging);
  // Folders for every version up front, so each rewrite is just the kubelet's swap.
  const files = await readTree(src);
  for (let i = 1; i <= REWRITES; i++) {
    const version = VERSIONS[i % 2 === 1 ? 'b' : 'a'];
    for (const [path, text] of Object.entries({ ...files, ...version })) {
      mkdirSync(dirname(join(staging, `..v${i}`, path)), { recursive: true });
      writeFileSync(join(staging, `..v${i}`, path), text);
    }
  }
  let current = '..v0';
  await rename(src, join(dir, current));
  await symlink(current, join(dir, '..data'));
  for (const name of ['base.md', 'fleet.yaml', 'roles', 'doctrine', 'teams', 'identities'])
    await symlink(`..data/${name}`, join(dir, name));
  const rewrite: Rewrite = async (_v, i) => {
    const next = `..v${i + 1}`;
    renameSync(join(staging, next), join(dir, next));
    symlinkSync(next, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    rmSync(join(dir, current), { recursive: true });
    current = next;
  };
  return { dir, rewrite };
}

async function readTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      out[relative(root, path)] = await readFile(path, 'utf8');
    }
  }
  return out;
}

describe('consistency under load', () => {
  it.each([
    // A ConfigMap swap can be served at once; a plain folder only once it is quiet.
    ['a ConfigMap volume swapped', configMap, 10],
    ['a plain folder rename-saved file by file', renameSaves, 3],
  ] as const)(
    `%s ${REWRITES} times: every answer is one whole version, never a mix`,
    async (_name, setup, minSwaps) => {
      const { dir, rewrite } = await setup();
      // The service runs in its own process, as in production; clients and writer run here.
      const service = await spawnServe([
        '--dir',
        dir,
        '--port',
        '0',
        '--debounce',
        '5',
        '--poll-interval',
        '0',
      ]);
      cleanups.push(async () => void (await service.stop()));

      const allowed = new Set([sha256(PROMPTS.a), sha256(PROMPTS.b)]);
      const seen = new Map<string, number>();
      const failures: string[] = [];
      let done = false;
      const client = async (n: number) => {
        let i = 0;
        while (!done) {
          i++;
          const res =
            (n + i) % 2 === 0
              ? await fetch(`${service.url}/api/prompts/writer`, { headers: { accept: 'text/plain' } })
              : await fetch(`${service.url}/api/compose`, {
                  method: 'POST',
                  body: JSON.stringify({ role: 'writer' }),
                  headers: { 'content-type': 'application/json' },
                });
          const body = await res.text();
          if (res.status !== 200) {
            failures.push(`${res.status} ${body}`);
            continue;
          }
          const text = res.headers.get('content-type')?.startsWith('text/plain')
            ? body
            : (JSON.parse(body) as { text: string }).text;
          const sum = sha256(text);
          seen.set(sum, (seen.get(sum) ?? 0) + 1);
          if (res.headers.get('etag') !== `"${sum}"`)
            failures.push(`etag ${res.headers.get('etag')} is not the text's sha256`);
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
      for (let i = 0; i < REWRITES; i++) {
        await rewrite(i % 2 === 0 ? 'b' : 'a', i);
        // Irregular pauses: most shorter than the debounce, every 7th long enough for a
        // reload (so the pauses fall on version a and b in turn).
        await new Promise((r) => setTimeout(r, i % 7 === 6 ? 200 : 1 + (i % 3)));
      }
      await new Promise((r) => setTimeout(r, 300));
      done = true;
      await Promise.all(clients);

      const total = [...seen.values()].reduce((a, b) => a + b, 0);
      expect(failures).toEqual([]);
      expect(total).toBeGreaterThan(200);
      expect([...seen.keys()].filter((s) => !allowed.has(s))).toEqual([]);
      expect(MIXES.map(sha256).some((s) => seen.has(s))).toBe(false);
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      const swaps = Number(
        /strata_reloads_total\{outcome="swapped",trigger="watch"\} (\d+)/.exec(metrics)?.[1] ?? 0,
      );
      expect(swaps).toBeGreaterThanOrEqual(minSwaps);
      // The last rewrite wrote version a (REWRITES is even): the service settles on it.
      expect(
        await (
          await fetch(`${service.url}/api/prompts/writer`, { headers: { accept: 'text/plain' } })
        ).text(),
      ).toBe(PROMPTS.a);
    },
    60_000,
  );
});
