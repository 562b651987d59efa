import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listening, type ServeChild } from '../server/helpers.js';

/**
 * The package as a user gets it: `npm pack` (which builds through `prepack`), installed
 * into an empty project from the npm registry (its dependencies are fetched as for any
 * user), then a pack started with `npx strata init`, validated, composed and served, and
 * every entry point of its `exports` map imported. The installed size is reported in
 * test-output/package/size.txt.
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'test-output', 'package');
/**
 * The most a default install (the optional tokenizer left out) may hold, in bytes of its
 * files (what `du --apparent-size` counts: the same on every file system; its size on disk
 * adds a block's slack a file, and is reported beside it).
 */
const MAX_INSTALL_BYTES = 30 * 1024 * 1024;

let work: string;
let project: string;
let tarball: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'strata-tarball-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string }>;
  tarball = join(work, info[0]!.filename);
  project = join(work, 'app');
  mkdirSync(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }),
  );
  await run('npm', ['install', tarball, '--no-audit', '--no-fund'], {
    cwd: project,
    maxBuffer: 64 * 1024 * 1024,
  });
}, 900_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** `npx strata …` in the project, as its user types it. */
async function strata(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['strata', ...args], {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe.sequential('the npm package, installed from its tarball', () => {
  it('is named strata-prompts, ships the build, the starters, the licence and no tests', async () => {
    const installed = join(project, 'node_modules/strata-prompts');
    const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('strata-prompts');
    expect(pkg.bin).toEqual({ strata: 'dist/bin/strata.js' });
    expect(pkg.license).toBe('MIT');
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\//);
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toContain(
      'Copyright (c) 2026 the strata authors',
    );
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/dist/src/index.js');
    expect(files).toContain('package/dist/bin/strata.js');
    expect(files).toContain('package/src/layouts/claude-agents/starter/.claude/agents/code-reviewer.md');
    expect(files.filter((f) => /\.test\.|\/test\//.test(f))).toEqual([]);
  });

  it('installs in at most 30 MiB of files, without the optional tokenizer', async () => {
    const modules = join(project, 'node_modules');
    const bytes = Number((await run('du', ['-sb', modules])).stdout.split('\t')[0]);
    const disk = Number((await run('du', ['-sk', modules])).stdout.split('\t')[0]) * 1024;
    const packages =
      (await run('npm', ['ls', '--all', '--parseable'], { cwd: project })).stdout.split('\n').filter(Boolean)
        .length - 1;
    mkdirSync(OUT, { recursive: true });
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    const report = `default install of ${tarball.split('/').pop()}: ${packages} packages in node_modules, ${mib(bytes)} of files, ${mib(disk)} on disk\n`;
    writeFileSync(join(OUT, 'size.txt'), report);
    console.log(report.trim());
    expect(bytes).toBeLessThanOrEqual(MAX_INSTALL_BYTES);
    await expect(readFile(join(project, 'node_modules/gpt-tokenizer/package.json'))).rejects.toThrow(
      /ENOENT/,
    );
  });

  it('starts a pack with npx strata init, which validates clean and composes', async () => {
    const init = await strata('init', 'my-pack');
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('npx strata validate --dir my-pack');
    const validate = await strata('validate', '--dir', 'my-pack');
    expect(validate.code).toBe(0);
    expect(validate.stdout).toBe('');
    expect(validate.stderr).toMatch(/^0 errors, 0 warnings \(9 files, 2 members, version [0-9a-f]{16}\)\n$/);
    const compose = await strata('compose', '--dir', 'my-pack', '--agent', 'ada');
    expect(compose.code).toBe(0);
    expect(compose.stdout).toMatch(/^You are an agent of a small software team\./);
    expect(compose.stdout).toMatch(/You are Ada, a developer on the Platform team\.$/);
    const agents = await strata('init', 'agents', '--layout', 'claude-agents');
    expect(agents.code).toBe(0);
    expect((await strata('compose', '--dir', 'agents', '--role', 'code-reviewer')).stdout).toMatch(
      /^You are a code reviewer\./,
    );
  });

  it('explains and serves without the tokenizer, saying once that counts are off', async () => {
    const explain = await strata('explain', '--dir', 'my-pack', '--agent', 'ada');
    expect(explain.code).toBe(0);
    expect(explain.stderr).toContain('info TOKENIZER_MISSING: the token counts are left out');
    expect(explain.stdout).not.toMatch(/tokens/);
    const served = await serve();
    try {
      const res = await fetch(`${served.url}/api/agents/ada/prompt`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.text).toMatch(/^You are an agent/);
      expect(body).not.toHaveProperty('tokens');
      expect(served.logs().some((l) => l.includes('"code":"TOKENIZER_MISSING"'))).toBe(true);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it('counts tokens once the optional tokenizer is installed', async () => {
    await run('npm', ['install', 'gpt-tokenizer@4', '--no-audit', '--no-fund'], { cwd: project });
    const explain = await strata('explain', '--dir', 'my-pack', '--agent', 'ada');
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toMatch(/\d+ tokens \(o200k_base\)/);
  });

  it('imports every entry point of its exports map, with its types', async () => {
    const pkg = JSON.parse(
      await readFile(join(project, 'node_modules/strata-prompts/package.json'), 'utf8'),
    ) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(pkg.exports).filter((k) => !k.includes('*'));
    expect(entries).toContain('.');
    const specifiers = entries.map((k) => (k === '.' ? 'strata-prompts' : `strata-prompts/${k.slice(2)}`));
    const script = `
      const out = {};
      for (const s of ${JSON.stringify(specifiers)})
        out[s] = Object.keys(await import(s, s.endsWith('.json') ? { with: { type: 'json' } } : undefined)).length;
      console.log(JSON.stringify(out));`;
    await writeFile(join(project, 'imports.mjs'), script);
    const { stdout } = await run(process.execPath, ['imports.mjs'], { cwd: project });
    const counts = JSON.parse(stdout) as Record<string, number>;
    for (const s of specifiers) expect(counts[s], s).toBeGreaterThan(0);
    for (const key of entries) {
      const target = pkg.exports[key];
      const types =
        typeof target === 'object' && target !== null ? (target as Record<string, string>).types : undefined;
      if (types) await readFile(join(project, 'node_modules/strata-prompts', types), 'utf8');
    }
  });

  it("serves MCP to the README's Claude Code command and mcp.json, run as written", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    // `claude mcp add strata -- COMMAND…`: Claude Code runs COMMAND… in the project.
    const claude = /^claude mcp add strata -- (.+)$/m.exec(readme)?.[1];
    const json = /^\{ "mcpServers": .+\}$/m.exec(readme)?.[0];
    expect(claude).toBe('npx strata mcp --dir ./prompts');
    const server = (JSON.parse(json!) as { mcpServers: { strata: { command: string; args: string[] } } })
      .mcpServers.strata;
    await cp(join(ROOT, 'examples/roboco'), join(project, 'prompts'), { recursive: true });
    const bin = join(project, 'node_modules/.bin/strata');
    const expected = (await run(bin, ['compose', '--dir', './prompts', '--agent', 'ada'], { cwd: project }))
      .stdout;
    for (const [command, ...args] of [claude!.split(' '), [server.command, ...server.args]]) {
      const transport = new StdioClientTransport({
        command: command!,
        args,
        cwd: project,
        // npx must find the project's strata, never fetch the unrelated package of that name.
        env: { ...definedEnv(), npm_config_yes: 'false', npm_config_offline: 'true' },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'readme', version: '1.0.0' });
      await client.connect(transport);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('ada');
      const got = await client.getPrompt({ name: 'ada' });
      expect((got.messages[0]!.content as { text: string }).text).toBe(expected);
      await client.close();
    }
  });
});

// --- internal ---

/**
 * `strata serve` on the starter pack, a free port, JSON logs; resolves once it listens.
 * The bin itself, as `npx strata` runs it (so that SIGTERM reaches the service).
 */
function serve(): Promise<ServeChild> {
  const bin = join(project, 'node_modules/.bin/strata');
  return listening(
    spawn(bin, ['serve', '--dir', 'my-pack', '--port', '0'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

function definedEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
}
