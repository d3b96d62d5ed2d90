/**
 * The notes provider fuzzed from a test suite, as a user's project does it: one vitest test per
 * property. In your own project: `import { describeProvider } from 'cetp-sim/vitest'` (this example
 * sits inside the cetp-sim repository, so it imports the sources).
 *
 * `module` makes the failure message's `npx cetp-sim replay …` command exact; `runs` is lowered to
 * keep cetp-sim's own `npm test` short (notes.test.ts runs the default budget through the CLI).
 */
import { describeProvider } from '../../src/vitest.ts';
import { providers } from './notes.provider.ts';

describeProvider(providers, {
  module: './examples/notes-provider/notes.provider.ts',
  runs: 25,
  replayDir: null,
});
