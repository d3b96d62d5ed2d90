/**
 * Which test files share worker processes in `npm test` and which run each in a fresh one
 * (vitest.config.ts's three projects). A shared worker runs file after file with `isolate: false`:
 * cetp-sim is imported, and compiled by V8, once per worker instead of once per file — about a
 * third of a CPU-second per file, more for the larger ones (bench/README.md, "npm test by file,
 * 2026-12-05 (tests-rest)"). That is safe only for a file that leaves nothing behind in the process:
 * src/ and properties/ keep no module-level state but src/base/caches.ts's pure caches
 * (src/source-guards.test.ts), so what is left is the CLI — loading a user module guards
 * Math.random, Date.now and the timers of the thread it loads in (src/cli/worker/ambient.ts), and
 * main() runs worker pools and signal handlers — and a test that patches built-ins itself. Most of
 * src/cli's files share processes too, in a project of their own (CLI_SHARED), where a setup file
 * checks after each file that it left none of that behind (vitest.cli-guard.ts).
 *
 * test/vitest-projects.test.ts holds this list to the rule: every test file that reaches src/cli
 * (its testdata modules apart) through its imports, or assigns a built-in's property, is here.
 */
export const SHARED = 'shared';
export const ISOLATED_PROJECT = 'isolated';

/** Everything `npm test` runs. */
export const TEST_FILES: readonly string[] = [
  'src/**/*.test.ts',
  'properties/**/*.test.ts',
  'vectors/**/*.test.ts',
  'test/**/*.test.ts',
  'examples/**/*.test.ts',
];

/** src/cli's tests: isolated (each reaches the CLI), but those in CLI_SHARED below. */
export const CLI_TESTS = 'src/cli/**/*.test.ts';

/** The other files each run in a fresh process, in path order. */
export const ISOLATED: readonly string[] = [
  'examples/my-agent/my-agent.test.ts',
  'examples/notes-provider/notes.oracles.test.ts',
  'examples/notes-provider/notes.test.ts',
  'properties/controls/controls.test.ts',
  'properties/controls/malformed-oracles.test.ts',
  'properties/controls/provider-oracles.test.ts',
  'properties/controls/regressions.test.ts',
  'properties/impatient-consumer.test.ts',
  'properties/mutants.test.ts',
  'properties/reads-are-not-requests.test.ts',
  'properties/wrapped-context.test.ts',
  'src/fuzz/witness.test.ts',
  'src/harness/globals.test.ts',
  'src/vectors/adb.test.ts',
  'src/vectors/corpus.test.ts',
  'src/vectors/generate.test.ts',
  'src/vectors/kill-target.test.ts',
  'src/vectors/run.test.ts',
];

export const CLI_SHARED_PROJECT = 'cli-shared';

/**
 * src/cli's test files that run one after another in shared worker processes (`isolate: false`),
 * each checked by vitest.cli-guard.ts to leave the process as it found it (a file that fails that
 * check goes back to isolated: module-formats, provider-module, interrupt and interrupt-hunts did).
 * src/cli/worker/** and broken-modules stay isolated. A new src/cli test file is isolated until
 * listed here.
 */
export const CLI_SHARED: readonly string[] = [
  'src/cli/analysis.test.ts',
  'src/cli/android-commands.test.ts',
  'src/cli/android-profile.test.ts',
  'src/cli/args.test.ts',
  'src/cli/blind-oracles.test.ts',
  'src/cli/commands/crashpoints.test.ts',
  'src/cli/commands/merge.test.ts',
  'src/cli/commands/serve-incremental.test.ts',
  'src/cli/commands/serve-kill.test.ts',
  'src/cli/commands/serve.test.ts',
  'src/cli/commands/vectors-files.test.ts',
  'src/cli/commands/zoo-consumers.test.ts',
  'src/cli/commands/zoo.test.ts',
  'src/cli/consumer-module.test.ts',
  'src/cli/floor-witness.test.ts',
  'src/cli/fuzz.test.ts',
  'src/cli/hostile-modules.test.ts',
  'src/cli/judge-realm-vectors.test.ts',
  'src/cli/judge-realm.test.ts',
  'src/cli/judge.test.ts',
  'src/cli/main.test.ts',
  'src/cli/matrix-releases.test.ts',
  'src/cli/matrix.test.ts',
  'src/cli/module-loader.test.ts',
  'src/cli/new-user.test.ts',
  'src/cli/option-floors.test.ts',
  'src/cli/output-paths.test.ts',
  'src/cli/progress.test.ts',
  'src/cli/propose.test.ts',
  'src/cli/readme.test.ts',
  'src/cli/replay-edited.test.ts',
  'src/cli/replay.test.ts',
  'src/cli/rules-coverage.test.ts',
  'src/cli/rules-fields.test.ts',
  'src/cli/uncovered.test.ts',
  'src/cli/workers.test.ts',
];
