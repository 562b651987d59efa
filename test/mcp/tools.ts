import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers.js';

/** The independent MCP clients of the slow tests, as scripts/mcp-test-tools.sh installs them. */
export interface McpTools {
  /** The Python of a virtual environment holding the official `mcp` package. */
  python: string;
  /** Node 22 and the conformance suite's entry: `[node, index.js]`. */
  conformance: [string, string];
}

/** Installs the tools when they are missing (once; `.ci/run` has usually done it) and says where they are. */
export async function mcpTools(): Promise<McpTools> {
  const { stdout } = await promisify(execFile)(join(ROOT, 'scripts/mcp-test-tools.sh'), {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const python = /^python: (.+)$/m.exec(stdout)?.[1];
  const conformance = /^conformance: (\S+) (\S+)$/m.exec(stdout);
  if (!python || !conformance) throw new Error(`scripts/mcp-test-tools.sh said: ${stdout}`);
  return {
    python: join(ROOT, python),
    conformance: [join(ROOT, conformance[1]!), join(ROOT, conformance[2]!)],
  };
}
