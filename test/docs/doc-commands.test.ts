import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';
import { docCommands, outputMatches } from './doc-commands.js';

// The rules by which the docs runner (commands.slow.test.ts) takes commands out of the docs.

const DOC = [
  '# A doc',
  '',
  '```sh',
  '# a comment',
  'npx strata roles --dir examples/roboco',
  'npx strata validate --dir examples/roboco --strict   # exit 1: a warning fails too',
  'npx strata compose --dir <your-pack> --agent ada',
  'npx strata compose \\',
  '  --dir examples/chorus --role arbiter',
  '```',
  '',
  '```sh no-run',
  'npx strata serve --dir examples/roboco',
  '```',
  '',
  '```sh service',
  "curl -s 'localhost:7411/healthz'",
  '```',
  '',
  '```bash',
  'npx strata generate --dir examples/roboco --check   # exit 0: current (exit 1 lists drift)',
  '```',
  '',
  '```text',
  '$ echo one',
  'one',
  '$ echo two three   # exit 0',
  'two …',
  '```',
  '',
  '```yaml',
  'extends: roboco',
  '```',
].join('\n');

describe('docCommands', () => {
  it('runs sh lines (continuations joined), text $ lines with their output, and skips what is marked', () => {
    const { run, skipped } = docCommands('doc.md', DOC);
    expect(run.map((c) => [c.line, c.command, c.status, c.service, c.output])).toEqual([
      [5, 'npx strata roles --dir examples/roboco', 0, false, undefined],
      [
        6,
        'npx strata validate --dir examples/roboco --strict   # exit 1: a warning fails too',
        1,
        false,
        undefined,
      ],
      [8, 'npx strata compose \\\n  --dir examples/chorus --role arbiter', 0, false, undefined],
      [17, "curl -s 'localhost:7411/healthz'", 0, true, undefined],
      [
        21,
        'npx strata generate --dir examples/roboco --check   # exit 0: current (exit 1 lists drift)',
        0,
        false,
        undefined,
      ],
      [25, 'echo one', 0, false, ['one']],
      [27, 'echo two three   # exit 0', 0, false, ['two …']],
    ]);
    expect(skipped.map((c) => [c.line, c.why])).toEqual([
      [7, 'placeholder'],
      [13, 'no-run'],
    ]);
  });

  it.each([
    [['a', 'b'], 'a\nb\n', true],
    [['a', 'b'], 'a\nb\nc\n', false],
    [['You run …', ''], 'You run the suite.\n', true],
    [['You run …'], 'You ran\n', false],
    [[], '', true],
    [[], 'noise\n', false],
  ] as const)('outputMatches(%j, %j) is %s', (shown, printed, matches) => {
    expect(outputMatches(shown, printed)).toBe(matches);
  });

  it('finds commands to run in README.md and every doc that shows one', () => {
    const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
      f.endsWith('.md'),
    );
    const counts = Object.fromEntries(
      docs.map((d) => [d, docCommands(d, readFileSync(join(ROOT, d), 'utf8')).run.length]),
    );
    for (const doc of ['README.md', 'docs/cli.md', 'docs/tooling.md', 'docs/service.md', 'docs/deploy.md'])
      expect([doc, counts[doc]! > 0]).toEqual([doc, true]);
  });
});
