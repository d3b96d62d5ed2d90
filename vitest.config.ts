import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import {
  CLI_SHARED,
  CLI_SHARED_PROJECT,
  CLI_TESTS,
  ISOLATED,
  ISOLATED_PROJECT,
  SHARED,
  TEST_FILES,
} from './vitest.projects.ts';

/**
 * The longest files first, by their CPU time (bench/README.md, "npm test by file, 2026-12-05
 * (tests-rest)", "… second pass (tests3)", and the table of "Where `npm test`'s time goes" before
 * them), then vitest's own order:
 * with two files at once, a long file started last runs on alone at the end. Vitest sorts by the
 * durations of the last run when it has them, but a clean clone (CI) has none and sorts by file
 * size, which puts several of these late (the consumer zoo's is a small file).
 */
const LONGEST = [
  'src/cli/broken-modules.test.ts',
  'test/pack.test.ts',
  'src/cli/hostile-modules.test.ts',
  'properties/readings-campaign.test.ts',
  'src/cli/judge.test.ts',
  'test/android-runner.test.ts',
  'src/zoo/consumer/consumer-zoo.test.ts',
  'properties/controls/controls.test.ts',
  'test/harness-project.test.ts',
  'src/zoo/zoo.test.ts',
  'examples/notes-provider/notes.test.ts',
  'examples/my-agent/my-agent.test.ts',
  'test/java-runner.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // The long files, then the shared files together (a worker keeps its process only while the
    // next file in the queue is of the same shared project), then src/cli's shared files, then the
    // isolated ones.
    const order = [SHARED, CLI_SHARED_PROJECT];
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(relative(f.project.config.root, f.moduleId).replaceAll('\\', '/'));
      if (i !== -1) return i;
      const shared = order.indexOf(f.project.name);
      return LONGEST.length + (shared === -1 ? order.length : shared);
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
    // Three projects (vitest.projects.ts): most files share worker processes (`isolate: false`); so
    // do most of src/cli's, each checked to leave its process as it found it (vitest.cli-guard.ts);
    // the other files that reach the CLI or patch built-ins run each in a fresh process.
    projects: [
      {
        extends: true,
        test: {
          name: SHARED,
          include: [...TEST_FILES],
          exclude: [...configDefaults.exclude, CLI_TESTS, ...ISOLATED],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: CLI_SHARED_PROJECT,
          include: [...CLI_SHARED],
          isolate: false,
          setupFiles: ['./vitest.cli-guard.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: ISOLATED_PROJECT,
          include: [CLI_TESTS, ...ISOLATED],
          exclude: [...configDefaults.exclude, ...CLI_SHARED],
        },
      },
    ],
  },
});
