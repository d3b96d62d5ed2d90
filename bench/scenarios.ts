/**
 * A fixed ten-step scenario for the fuzzing benchmark: two actors, five commands each — negotiate,
 * quotes, an alert creation through its scope grant, a retry of it with the same request_id, and a
 * payments balance — judged by every checker.
 */

import { ALL_CHECKERS } from '../src/check/checkers/index.ts';
import { ALERTS, PAYMENTS } from '../src/fuzz/scenario/fixtures.ts';
import type { Command, Scenario } from '../src/fuzz/scenario/model.ts';
import type { Fixture } from '../src/fuzz/scenario/runner.ts';

const execute = (
  provider: string,
  tool: string,
  args: number,
  rid: Command & { kind: 'execute' } extends never ? never : 'fresh' | 'reuse',
): Command => ({
  kind: 'execute',
  provider,
  tool,
  args,
  rid: rid === 'fresh' ? { kind: 'fresh' } : { kind: 'reuse', index: 0 },
  expiredDeadline: false,
  confirmedFlag: false,
  resolve: 'honest',
  duplicates: 0,
});

const actorCommands: Command[] = [
  { kind: 'negotiate', caps: ['async_operations', 'cancellation', 'large_results'] },
  execute('alerts', 'get_quote', 0, 'fresh'),
  execute('alerts', 'create_alert', 0, 'fresh'),
  { kind: 'retry', index: 1, afterMs: 0 },
  execute('payments', 'get_balance', 0, 'fresh'),
];

export const TEN_STEP_SCENARIO: Scenario = {
  seed: 1,
  tail: 'fifo',
  actors: { a: actorCommands, b: actorCommands },
  user: ['approve'],
  faults: [],
  decisions: [],
};

export const BENCH_FIXTURE: Fixture = {
  providers: [ALERTS, PAYMENTS],
  actors: ['a', 'b'],
  checkers: ALL_CHECKERS,
};
