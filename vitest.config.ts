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
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
