/**
 * The user-style project's vitest config: `cetp-sim` and `cetp-sim/vitest` resolve to this
 * checkout's sources (an installed package resolves them from node_modules instead). A plain object,
 * so that the config needs no import of its own.
 */
import { fileURLToPath } from 'node:url';

const src = (file: string) => fileURLToPath(new URL(`../../src/${file}`, import.meta.url));

export default {
  resolve: {
    alias: [
      { find: /^cetp-sim\/vitest$/, replacement: src('vitest.ts') },
      { find: /^cetp-sim$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['**/*.fuzz.ts'],
    environment: 'node',
    pool: 'forks',
  },
};
