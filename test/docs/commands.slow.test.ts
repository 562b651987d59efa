import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/server/node/start.js';
import { ROOT } from '../helpers.js';
import { type DocCommand, docCommands, outputMatches } from './doc-commands.js';

// Every shell command of README.md and docs/*.md, run as written (test/docs/doc-commands.ts
// says how a doc marks what it shows without running), from a copy of the clone: the
// example packs, fixtures and deploy files, in a git repository of one commit, where
// `npx strata` runs this checkout's build (as it does in a clone after `npm ci`). Each
// doc's commands run in order in their own copy.

/** README.md and every doc that shows a command to run. */
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].filter((doc) => docCommands(doc, readFileSync(join(ROOT, doc), 'utf8')).run.length > 0);
const COPIED = ['examples', 'test/fixtures', 'deploy', 'clients', 'docs', 'README.md', 'LICENSE'];

let service: RunningService;

beforeAll(async () => {
  // `npx strata` in a clone runs the build (npm ci builds it: the prepare script).
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-if-stale.mjs')], { cwd: ROOT, stdio: 'ignore' });
  const started = await startService({
    dir: join(ROOT, 'examples/roboco'),
    port: 0,
    watch: false,
    env: {},
    logger: pino({ level: 'silent' }),
  });
  if (!started.ok) throw new Error('examples/roboco does not serve');
  service = started.service;
}, 300_000);

afterAll(async () => {
  await service?.close();
});

describe.each(DOCS)('%s', (doc) => {
  const { run } = docCommands(doc, readFileSync(join(ROOT, doc), 'utf8'));
  let clone: string;

  beforeAll(() => {
    clone = mkdtempSync(join(tmpdir(), 'strata-docs-'));
    for (const path of COPIED) cpSync(join(ROOT, path), join(clone, path), { recursive: true });
    // The strata command, where npx finds a project's commands.
    mkdirSync(join(clone, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(
      join(clone, 'node_modules', '.bin', 'strata'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'dist/bin/strata.js'))} "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(clone, 'package.json'), '{ "name": "docs-clone", "private": true }\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: clone, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.name=docs', '-c', 'user.email=docs@example.invalid', 'commit', '-qm', 'clone');
  });

  afterAll(() => {
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  it.each(run.map((c) => [`${c.line}: ${c.command.split('\n')[0]}`, c] as const))(
    '%s',
    async (_, command) => {
      const ran = await sh(command, clone);
      expect(ran.status, `${doc}:${command.line} printed:\n${ran.output}`).toBe(command.status);
      if (command.output) expect(outputMatches(command.output, ran.output), ran.output).toBe(true);
    },
  );
});

// --- internal ---

async function sh(command: DocCommand, cwd: string): Promise<{ status: number; output: string }> {
  const address = new URL(service.url).host;
  const text = command.service
    ? command.command.replace(/(?:127\.0\.0\.1|localhost):7411/g, address)
    : command.command;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `{ ${text}\n} 2>&1`],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, LANG: 'C.UTF-8', NO_COLOR: '1' },
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ status, output: stdout });
      },
    );
  });
}
