/**
 * faults-transparent on whole runs (src/check/checkers/faults-transparent.ts): one add_todo, its
 * provider killed at one step, then the same request re-sent (an app's journal) — for every kill
 * step of the flow, as crash points are. The to-do app that stores its row in `prepare` leaves two
 * rows for one request at some step, which a fault-free replay does not; the correct app leaves
 * what a fault-free replay leaves at every step. A caller re-installed mid-run is skipped, not failed.
 */
import { describe, expect, it } from 'vitest';
import { faultsTransparent, faultsTransparentVerdict } from '../../src/check/checkers/faults-transparent.ts';
import { resolveProviderFixture } from '../../src/check/fixture.ts';
import { executeCommand, REFERENCE, type Scenario } from '../../src/fuzz/scenario/model.ts';
import { runScenario } from '../../src/fuzz/scenario/runner.ts';
import type { FaultAt } from '../../src/sim/core/faults.ts';
import type { ProviderFixture } from '../../src/subjects/subjects.ts';
import { todoFixture } from './todo.provider.ts';
import { todoPrepareWritesFixture } from './todo-prepare-writes.provider.ts';

const PKG = 'com.example.todo';

function scenario(faults: FaultAt[]): Scenario {
  return {
    seed: 7,
    tail: 'fifo',
    actors: {
      a: [
        { kind: 'negotiate', caps: ['async_operations', 'cancellation', 'large_results'] },
        executeCommand('todo.add_todo'),
        { kind: 'retry', index: 0, afterMs: 3_000, resolve: true },
        executeCommand('todo.complete_todo'),
      ],
    },
    user: [],
    faults,
    decisions: [],
  };
}

async function runWith(fixture: ProviderFixture, faults: FaultAt[], durableActors = false) {
  const resolved = await resolveProviderFixture({ ...fixture, name: 'todo' });
  return runScenario(
    { providers: [resolved], actors: ['a'], checkers: [faultsTransparent], durableActors },
    scenario(faults),
    REFERENCE,
  );
}

/** The verdicts of runs killing the provider at each step in `steps`. */
async function sweep(fixture: ProviderFixture, steps: readonly number[]) {
  const out = [];
  for (const at of steps) {
    const run = await runWith(fixture, [{ at, fault: { kind: 'kill', process: PKG } }]);
    out.push({ at, run, verdict: faultsTransparentVerdict(run.observation, run.context) });
  }
  return out;
}

const STEPS = Array.from({ length: 40 }, (_, i) => 20 + i * 2);

describe('faults-transparent on the to-do app', () => {
  it('fails the app that stores its row in prepare: a second row, or its counter bumped twice, after a kill — named with the request and commits', async () => {
    const runs = await sweep(todoPrepareWritesFixture, STEPS);
    const messages = runs.flatMap((r) =>
      r.run.violations.filter((x) => x.checker === 'faults-transparent').map((x) => x.message),
    );
    // Killed between the counter's write and the row's: the retry bumps the counter again.
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^request [0-9a-f-]{36} of uid \d+ \(add_todo, effect #1 of \d\): todos\.meta\/seq \(created by it; written by commits #\d+, #\d+\) holds 2 after the run; a fault-free execution leaves 1$/,
      ),
    );
    // Killed after the row's write: the retry stores a second row.
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^request [0-9a-f-]{36} of uid \d+ \(add_todo, effect #1 of 2\): the run left 3 rows it created \(todos\.meta\/seq, todos\/TODO-1, todos\/TODO-2\), a fault-free execution 2; extra: todos\/TODO-2 by commit #\d+$/,
      ),
    );
    const v = runs.flatMap((r) => r.run.violations)[0];
    expect(v?.ruleIds).toEqual(['CETP-6-01', 'CETP-6-06', 'CETP-10-06', 'CETP-4.4-17']);
    expect(v?.events.length).toBeGreaterThanOrEqual(2);
    expect(v?.calls.length).toBe(2);
  }, 120_000);

  it('passes the correct app at every kill step, having replayed every run', async () => {
    const runs = await sweep(todoFixture, STEPS);
    expect(runs.filter((r) => r.verdict.verdict !== 'held').map((r) => [r.at, r.verdict])).toEqual([]);
    expect(runs.every((r) => r.run.violations.length === 0)).toBe(true);
    // The replay did happen: two requests took effect (add_todo, then complete_todo of its row).
    expect(runs.some((r) => r.verdict.verdict === 'held' && r.verdict.requests === 2)).toBe(true);
  }, 120_000);

  it('skips, naming why, a run whose caller was re-installed (another UID: no fault-free world has it)', async () => {
    const verdicts = [];
    for (const at of [30, 40, 50, 60, 70]) {
      const run = await runWith(
        todoFixture,
        [{ at, fault: { kind: 'reinstall', package: 'com.fuzz.agent.a' } }],
        true,
      );
      expect(run.violations).toEqual([]);
      verdicts.push(faultsTransparentVerdict(run.observation, run.context));
    }
    expect(verdicts).toContainEqual({
      verdict: 'skipped',
      reason: expect.stringMatching(
        /came from uid \d+ of com\.fuzz\.agent\.a, which has uid \d+ in a fresh world/,
      ),
    });
  }, 60_000);
});
