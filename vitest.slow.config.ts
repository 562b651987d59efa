import { defineConfig } from 'vitest/config';

// The slow tier: suites that drive a real browser, external tools or long soaks.
export default defineConfig({
  test: {
    include: ['test/**/*.slow.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll waits up to 1 s by default: too little on a busy machine.
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    fileParallelism: false,
  },
});
