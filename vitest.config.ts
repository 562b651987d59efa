import { defineConfig } from 'vitest/config';

// The fast tier (`npm test`). Slow suites — browser, soak, external tools — are named
// `*.slow.test.ts` and run by `npm run test:slow` (vitest.slow.config.ts); `.ci/run` runs both.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/*.slow.test.ts'],
    // Generous: on a busy machine a test waits for a condition, never a time. The tests
    // pass with two other processes keeping both cores busy, where spawning a CLI or a
    // service through tsx takes tens of seconds; these bounds only catch a hang.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // expect.poll waits up to 1 s by default: too little on a busy machine.
    expect: { poll: { timeout: 120_000 } },
    // Every temporary folder of the run in one, removed when it ends.
    globalSetup: ['test/suite-tmpdir.ts'],
    pool: 'forks',
    // Two workers (vitest's default on two cores is one: files would run one at a time,
    // mostly waiting on sockets and watchers). Files share a worker's module cache
    // instead of importing the CLI, server and tokenizer again for each file; tests hold
    // no process-wide state (no mocks, stubs or env changes), so sharing is safe.
    maxWorkers: 2,
    isolate: false,
  },
});
