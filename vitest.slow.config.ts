import { defineConfig } from 'vitest/config';

// The slow tier: suites that drive a real browser, external tools or long soaks.
export default defineConfig({
  test: {
    include: ['test/**/*.slow.test.ts'],
    // Generous, as the fast tier's: the soaks pass with two other processes keeping both
    // cores busy; these bounds only catch a hang.
    testTimeout: 900_000,
    hookTimeout: 300_000,
    // expect.poll waits up to 1 s by default: too little on a busy machine.
    expect: { poll: { timeout: 120_000 } },
    // Every temporary folder of the run in one, removed when it ends.
    globalSetup: ['test/suite-tmpdir.ts'],
    pool: 'forks',
    fileParallelism: false,
  },
});
