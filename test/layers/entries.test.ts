import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagesReached } from '../../scripts/check-imports.js';
import { ROOT } from '../helpers.js';

const SRC = join(ROOT, 'src');
/** What only the server and the CLI may load. */
const SERVER_PACKAGES = [
  'hono',
  '@hono/node-server',
  '@hono/zod-openapi',
  'pino',
  'prom-client',
  'commander',
];

describe('the public entries (package.json exports)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string; default: string } | string>;
  };

  it('are the core at the root, and runtime, client, server, mcp, cli and tooling as subpaths', () => {
    expect(Object.keys(pkg.exports)).toEqual([
      '.',
      './runtime',
      './client',
      './server',
      './mcp',
      './cli',
      './tooling',
      './package.json',
    ]);
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      const name = key === '.' ? 'index' : key.slice(2);
      expect(target).toEqual({ types: `./dist/src/${name}.d.ts`, default: `./dist/src/${name}.js` });
    }
  });

  it.each([
    ['index.ts', ['yaml']],
    // The runtime makes a span per compose: through the OpenTelemetry API alone (a no-op
    // until the application registers an SDK).
    ['runtime.ts', ['@opentelemetry/api', 'yaml']],
    ['client.ts', []],
    ['mcp.ts', ['@modelcontextprotocol/sdk', 'yaml']],
  ])('%s loads none of the server packages (only node built-ins and %j)', (entry, packages) => {
    const reached = packagesReached(SRC, entry);
    for (const name of SERVER_PACKAGES) expect(reached, name).not.toContain(name);
    expect(reached.filter((p) => !p.startsWith('node:'))).toEqual(packages);
  });

  it('the client loads nothing at all, not even node built-ins (it runs wherever fetch does)', () => {
    expect(packagesReached(SRC, 'client.ts')).toEqual([]);
  });
});
