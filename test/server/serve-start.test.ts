import { execFile } from 'node:child_process';
import { chmodSync, cpSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { textLogWriter } from '../../src/cli/log-text.js';
import { run } from '../../src/cli/run.js';
import { cli, EXAMPLES, tempDir } from '../helpers.js';
import { ROOT, waitFor } from './helpers.js';

// What a person starting the service sees: on a terminal a line that says where to look
// (JSON lines stay the default elsewhere, or with --log-format json); a port in use and
// a pack the process may not read are said plainly, with a code.

describe('strata serve, starting', () => {
  it('on a terminal, says what it serves and where the inspector is, then logs text lines', async () => {
    const served = await serve(['--dir', 'examples/roboco', '--port', '0'], true);
    const lines = served.stdout.split('\n');
    const serving = lines.find((l) => l.startsWith('strata serving'));
    expect(serving).toMatch(
      /^strata serving examples\/roboco \(7 roles, 8 agents, version [0-9a-f]{16}\) — inspector: http:\/\/127\.0\.0\.1:\d+\/$/,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\d\d:\d\d:\d\d pack loaded version=[0-9a-f]{16} changed=ada,barbara,edsger,frances,grace \+3 more trigger=initial$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^\d\d:\d\d:\d\d GET \/api\/agents\/ada\/prompt 200 [\d.]+ms$/),
    );
    expect(served.stdout).not.toContain('{"level"');
  });

  it('logs JSON lines with --log-format json on a terminal (the default elsewhere: serve.test.ts)', async () => {
    const served = await serve(['--dir', 'examples/roboco', '--port', '0', '--log-format', 'json'], true);
    const listening = served.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'listening');
    expect(listening).toMatchObject({ roles: 7, agents: 8, watching: true });
  });

  it('a port in use is PORT_IN_USE naming the port and how to choose another (exit 1)', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const out = await cli(['serve', '--dir', 'examples/chorus', '--port', String(port)]);
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        `error PORT_IN_USE: port ${port} on 127.0.0.1 is in use by another process: stop it, or choose another with --port or STRATA_PORT (0 picks a free one)\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('a pack file the process may not read is READ_ERROR saying permission denied and what to do', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    cpSync(join(EXAMPLES, 'chorus'), join(dir, 'pack'), { recursive: true });
    chmodSync(join(dir, 'pack', 'roles.yaml'), 0o000);
    const uid = process.getuid!();
    // As root every file is readable: run the command as nobody instead.
    const argv = [
      process.execPath,
      '--import',
      'tsx',
      join(ROOT, 'bin/strata.ts'),
      'validate',
      '--dir',
      join(dir, 'pack'),
    ];
    const as = uid === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...argv] : argv;
    const out = await promisify(execFile)(as[0]!, as.slice(1), { cwd: ROOT }).catch((e) => e);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      `error READ_ERROR: roles.yaml: cannot read file: permission denied (EACCES): strata runs as uid ${uid === 0 ? 65534 : uid}, which may not read it; make it readable (chmod a+r, and a+rx on folders) or run strata as its owner\n`,
    );
  });
});

describe('text log lines', () => {
  it.each([
    [
      {
        level: 50,
        time: '2026-01-01T12:00:01.000Z',
        msg: 'reload failed; still serving the last good version',
        serving: 'ab',
        trigger: 'watch',
        diagnostics: ['error YAML_SYNTAX: roles.yaml:3:1: bad'],
      },
      '12:00:01 ERROR reload failed; still serving the last good version serving=ab trigger=watch\n    error YAML_SYNTAX: roles.yaml:3:1: bad\n',
    ],
    [
      {
        level: 40,
        time: '2026-01-01T12:00:02.000Z',
        msg: 'new version held',
        members: ['ada'],
        err: { message: 'x' },
      },
      '12:00:02 WARN new version held members=["ada"] error="x"\n',
    ],
    [
      {
        level: 30,
        time: '2026-01-01T12:00:03.000Z',
        msg: 'listening',
        url: 'http://127.0.0.1:7411',
        dir: '/srv/pack',
        version: 'v1',
        roles: 1,
        agents: 0,
      },
      'strata serving /srv/pack (1 role, version v1) — inspector: http://127.0.0.1:7411/\n',
    ],
  ])('%j', (record, line) => {
    let out = '';
    textLogWriter((s) => {
      out += s;
    }, '/work')(`${JSON.stringify(record)}\n`);
    expect(out).toBe(line);
  });
});

// --- internal ---

/** Runs serve until it has answered one prompt request, then stops it; its stdout. */
async function serve(args: string[], isTTY: boolean): Promise<{ stdout: string }> {
  const stop = new AbortController();
  let stdout = '';
  const exited = run(['serve', ...args], {
    stdout: (s) => {
      stdout += s;
    },
    stderr: () => {},
    env: {},
    cwd: ROOT,
    isTTY,
    signal: stop.signal,
  });
  const url = await waitFor(
    async () => {
      const line = stdout
        .split('\n')
        .find((l) => l.startsWith('strata serving') || l.includes('"msg":"listening"'));
      return line ? /http:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0] : undefined;
    },
    30_000,
    'the service to listen',
  );
  await (await fetch(`${url}/api/agents/ada/prompt`)).arrayBuffer();
  await waitFor(async () => /ada\/prompt/.test(stdout) || undefined, 30_000, 'the request to be logged');
  stop.abort('SIGTERM');
  expect(await exited).toBe(0);
  return { stdout };
}
