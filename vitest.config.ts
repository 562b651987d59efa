import { defineConfig } from 'vitest/config';

// The fast tier (`npm test`). Slow suites — browser, soak, external tools — are named
// `*.slow.test.ts` and run by `npm run test:slow` (vitest.slow.config.ts); `.ci/run` runs both.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/*.slow.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
