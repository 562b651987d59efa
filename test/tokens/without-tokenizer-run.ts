// Run by test/tokens/without-tokenizer.test.ts in a process preloaded with
// without-tokenizer.cjs (gpt-tokenizer cannot be found): runs CLI commands and one
// service request, and prints what each gave as one JSON object.
import { join } from 'node:path';
import { startService } from '../../src/server/node/start.js';
import { createLogger } from '../../src/server/service/logging.js';
import { cli } from '../helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const commands: Record<string, string[]> = {
  explain: ['explain', '--dir', 'examples/roboco', '--agent', 'ada'],
  json: ['compose', '--dir', 'examples/roboco', '--agent', 'ada', '--json'],
  text: ['compose', '--dir', 'examples/roboco', '--agent', 'ada'],
  anthropic: ['compose', '--dir', 'examples/roboco', '--agent', 'ada', '--format', 'anthropic'],
  asked: ['compose', '--dir', 'examples/roboco', '--agent', 'ada', '--json', '--tokenizer', 'cl100k_base'],
  cache: ['explain', '--cache', '--dir', 'examples/roboco'],
  budgets: ['validate', '--dir', 'test/fixtures/tokens-fleet'],
  strict: ['validate', '--dir', 'test/fixtures/tokens-fleet', '--strict'],
  order: ['validate', '--dir', 'examples/roboco'],
};
const out: Record<string, unknown> = {};
for (const [name, argv] of Object.entries(commands)) out[name] = await cli(argv, {}, ROOT);
const logs: string[] = [];
const started = await startService({
  dir: join(ROOT, 'examples/roboco'),
  port: 0,
  watch: false,
  logger: createLogger({ write: (line: string) => logs.push(line) }),
});
if (!started.ok) throw new Error('the service did not start');
const res = await fetch(`${started.service.url}/api/agents/ada/prompt`);
out.service = { status: res.status, body: await res.json(), logs };
await started.service.close();
process.stdout.write(JSON.stringify(out));
