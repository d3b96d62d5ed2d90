/**
 * The setup file of the `cli-shared` project (vitest.projects.ts): src/cli test files that run one
 * after another in one worker process (`isolate: false`) must leave the process as they found it. It
 * takes a snapshot of what the CLI can change in its process before each file and compares after the
 * file's tests; anything left behind fails the file, naming it: a global or prototype member replaced
 * (the guards a user module's load installs, src/cli/worker/ambient.ts), a signal or process
 * listener (main()'s interrupt handlers), a timer, worker or other handle still open (a pool not
 * closed), a user module imported in this thread (module-loader.ts: the judge's thread must have
 * none), node:module's loader hooks, process.env, the working directory, the exit code.
 * test/vitest-projects.test.ts shows each of those failing the check.
 */
import { afterAll, beforeAll } from 'vitest';
import { userModulesImportedHere } from './src/cli/module-loader.ts';
import { cliThreadWatchdog } from './src/cli/worker/cli-watchdog.ts';
import { leftBehind, type ProcessState, processState } from './vitest.cli-state.ts';

const at: { start?: ProcessState } = {};
beforeAll(async () => {
  // The CLI thread's watchdog is one per process by design (made on first use, its watcher thread
  // unref'd, an 'exit' listener of its own): started here, before the snapshot, it is no file's doing.
  await cliThreadWatchdog().watch('setup', { budgetMs: 60_000, startupMs: 60_000 }, async () => undefined);
  at.start = processState(userModulesImportedHere());
});
afterAll(async () => {
  // Handles a file closed in its last test may need a turn of the event loop to go.
  await new Promise((resolve) => setImmediate(resolve));
  const left = at.start === undefined ? [] : leftBehind(at.start, processState(userModulesImportedHere()));
  if (left.length > 0)
    throw new Error(
      `this file left the shared process changed (vitest.cli-guard.ts; run it isolated, or restore): ${left.join('; ')}`,
    );
});
