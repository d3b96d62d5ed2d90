import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files first, in their measured order (bench/README.md, "Where `npm test`'s time
 * goes"; the interrupt hunts, third there, are short now), then vitest's own order: with two files
 * at once, a long file started last runs on alone at the end. Vitest sorts by the durations of the
 * last run when it has them, but a clean clone (CI) has none and sorts by file size, which puts
 * several of these late (the consumer zoo's is a small file).
 */
const LONGEST = [
  'src/zoo/consumer/consumer-zoo.test.ts',
  'src/cli/broken-modules.test.ts',
  'properties/readings-campaign.test.ts',
  'test/pack.test.ts',
  'src/cli/judge.test.ts',
  'test/java-runner.test.ts',
  'test/android-runner.test.ts',
  'test/harness-project.test.ts',
  'examples/notes-provider/notes.test.ts',
  'properties/controls/controls.test.ts',
  'src/cli/hostile-modules.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(relative(f.project.config.root, f.moduleId).replaceAll('\\', '/'));
      return i === -1 ? LONGEST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

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
    // Two files at once at least: vitest's default for `run` is cores − 1, one file at a time on a
    // 2-core host. The tests that meet wall time (the watchdog) meet it only where it is the verdict
    // they expect; elsewhere their watchdog is far above any run's time (bench/README.md, "The test
    // loop"). VITEST_MAX_WORKERS overrides it.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirst },
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
