import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { BuildInput, LoadResult, Snapshot } from '../src/core/build/snapshot.js';
import { buildSnapshot } from '../src/engine/default-engine.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const EXAMPLES = join(ROOT, 'examples');
export const FIXTURES = join(ROOT, 'test', 'fixtures');

/** Builds a snapshot from in-memory files (pure, no disk). */
export function memPack(
  files: Record<string, string | Uint8Array>,
  options: { env?: Record<string, string>; preset?: string; maxPromptBytes?: number } = {},
): LoadResult {
  const map = new Map<string, Uint8Array>();
  for (const [path, content] of Object.entries(files)) {
    map.set(path, typeof content === 'string' ? new TextEncoder().encode(content) : content);
  }
  const input: BuildInput = { files: map, env: options.env ?? {}, preset: options.preset };
  if (options.maxPromptBytes !== undefined) input.maxPromptBytes = options.maxPromptBytes;
  return buildSnapshot(input);
}

export function okPack(
  files: Record<string, string | Uint8Array>,
  options: { env?: Record<string, string>; preset?: string } = {},
): Snapshot {
  const result = memPack(files, options);
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.snapshot!;
}

export function codes(result: { diagnostics: Array<{ code: string }> }): string[] {
  return result.diagnostics.map((d) => d.code);
}

/**
 * Runs the CLI in-process and captures its output. The CLI is imported on first use, so
 * test files that never call this do not load it.
 */
export async function cli(
  argv: string[],
  env: Record<string, string | undefined> = {},
  cwd = ROOT,
  input?: AsyncIterable<Uint8Array>,
) {
  const { run } = await import('../src/cli/run.js');
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    env,
    cwd,
    ...(input && { input }),
  });
  return { code, stdout, stderr };
}

export function tempDir(prefix = 'strata-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeFiles(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

/** Compares text with a golden file; UPDATE_GOLDEN=1 rewrites the file instead. */
export function expectGolden(name: string, actual: string): void {
  const file = join(ROOT, 'test', 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) throw new Error(`golden file ${name} is missing (UPDATE_GOLDEN=1 writes it)`);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

/** Runs git in `cwd` as a test author (no signing, no user configuration needed): its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
    { cwd, encoding: 'utf8' },
  );
}

/** Makes `root` a git repository whose one commit (branch main) holds its files. */
export function commitAll(root: string, message = 'pack'): void {
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', message);
}
