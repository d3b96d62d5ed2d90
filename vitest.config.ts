import { availableParallelism } from 'node:os';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // `import … from 'cetp-sim'` in the repository's own tests and examples means the sources, never a
  // dist/ built before the last edit (package.json's "cetp-sim-source" export condition).
  ssr: { resolve: { conditions: ['cetp-sim-source', ...defaultServerConditions] } },
  test: {
    include: [
      'src/**/*.test.ts',
      'properties/**/*.test.ts',
      'vectors/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    environment: 'node',
    pool: 'forks',
    // Vitest's default for `run` is one file at a time per core less one: a single file at a time on
    // a 2-core machine, while most of the suite's longest files wait on child processes (CLI runs,
    // Maven, npm) or on the watchdog. Two at least (bench/README.md, "The test suite"); as before on
    // machines with more cores. VITEST_MAX_WORKERS still overrides it.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
