import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, ROOT, tempDir } from '../helpers.js';

/**
 * The modules a `strata` command loads, run as a process (`bin/strata.ts` under tsx):
 * every module file and package it loaded, ES modules and CommonJS alike.
 */
async function loads(args: string[]): Promise<{ files: string[]; packages: string[]; code: number | null }> {
  const trace = join(tempDir('strata-loads-'), 'loads.txt');
  const code = await new Promise<number | null>((done) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        join(ROOT, 'test/core/trace-loads.mjs'),
        join(ROOT, 'bin/strata.ts'),
        ...args,
      ],
      { cwd: ROOT, env: { ...process.env, TRACE_LOADS: trace }, stdio: 'ignore' },
    );
    child.once('exit', done);
  });
  const urls = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  const files = urls
    .filter((u) => u.startsWith(`file://${ROOT}/src/`))
    .map((u) => u.slice(`file://${ROOT}/`.length));
  const packages = urls.flatMap((u) => {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
    return m ? [m[1]!] : [];
  });
  return { files: [...new Set(files)].sort(), packages: [...new Set(packages)].sort(), code };
}

/** What only the service needs. */
const SERVER_PACKAGES = ['hono', '@hono/node-server', '@hono/zod-openapi', 'pino', 'prom-client', 'zod'];

describe('what a strata command loads', () => {
  it('--version and --help load no command, no server module and no package but commander', async () => {
    for (const { files, packages, code } of await Promise.all([loads(['--version']), loads(['--help'])])) {
      expect(code).toBe(0);
      expect(
        files.filter((f) => f.startsWith('src/cli/commands/') && f !== 'src/cli/commands/list.ts'),
      ).toEqual([]);
      expect(files.filter((f) => !f.startsWith('src/cli/') && !f.startsWith('src/core/text/'))).toEqual([
        'src/source/version.ts',
      ]);
      expect(
        packages.filter(
          (p) => p !== 'tsx' && p !== 'esbuild' && p !== 'get-tsconfig' && p !== 'resolve-pkg-maps',
        ),
      ).toEqual(['commander']);
    }
  });

  it('compose loads neither the server, the tokenizer nor yaml; compose --json loads the tokenizer', async () => {
    const pack = join(EXAMPLES, 'roboco');
    const [plain, counted] = await Promise.all([
      loads(['compose', '--dir', pack, '--agent', 'ada']),
      loads(['compose', '--dir', pack, '--agent', 'ada', '--json']),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.files.filter((f) => f.startsWith('src/server/'))).toEqual([]);
    for (const name of [...SERVER_PACKAGES, 'gpt-tokenizer'])
      expect(plain.packages, name).not.toContain(name);
    // The presets come already read and the engine's fast reader takes every YAML text of
    // the example (its files' frontmatter, roles.yaml, fleet.yaml): the yaml package is
    // loaded only for a text it declines.
    expect(plain.packages).not.toContain('yaml');
    expect(counted.packages).not.toContain('yaml');
    // The trace sees what a command loads lazily: with token counts, the tokenizer is there.
    expect(counted.code).toBe(0);
    expect(counted.packages).toContain('gpt-tokenizer');
    expect(counted.files.filter((f) => f.startsWith('src/server/'))).toEqual([]);
  });

  it('a pack with a YAML text the fast reader declines loads the yaml package (the trace sees it)', async () => {
    const pack = tempDir('strata-loads-pack-');
    writeFileSync(join(pack, 'base.md'), "---\nname: 'quoted'\n---\nBase rules.\n");
    const { code, packages } = await loads(['compose', '--dir', pack, '--role', 'any']);
    expect(code).toBe(0);
    expect(packages).toContain('yaml');
  });

  it('serve loads the server (the trace sees it)', async () => {
    const { files } = await loads(['serve', '--help']);
    expect(files).toContain('src/server/node/start.ts');
  });
});
