import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { appFor, MINI } from './helpers.js';

/** `/openapi.json` as served passes `redocly lint` with the recommended rules (redocly.yaml). */
describe('redocly lint', () => {
  it('finds no error and no warning in the document', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const service = await appFor(MINI);
    const doc = await (await service.app.request('/openapi.json')).text();
    service.close();
    const dir = await mkdtemp(join(tmpdir(), 'strata-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, doc);
      const result = await promisify(execFile)(
        join(root, 'node_modules/.bin/redocly'),
        ['lint', '--config', join(root, 'redocly.yaml'), '--format', 'stylish', file],
        {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      ).catch((e: { code: number; stdout: string; stderr: string }) => e);
      const output = `${result.stdout}\n${result.stderr}`;
      expect('code' in result ? result.code : 0, output).toBe(0);
      // Stylish lines read `line:col  warning  rule  message`; the summary `You have N warnings.`
      expect(output).not.toMatch(/\d+:\d+\s+(error|warning)\s/);
      expect(output).not.toMatch(/You have \d+ (error|warning)/);
      expect(output).toMatch(/valid/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
