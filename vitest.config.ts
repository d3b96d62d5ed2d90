import { defineConfig } from 'vitest/config';

export default defineConfig({
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
