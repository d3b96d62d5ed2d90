/**
 * Two false reports the fidelity work exposed in the default campaign (`npx cetp-sim fuzz`, seeds 0
 * and 1), both of the test bed's own oracles:
 * - run-progress took tasks the cached-app freezer holds back (a frozen agent app, fault
 *   `freezeCached`) for tasks blocked forever; the environment stopped them, and on a device they
 *   run on when the process is thawed (operations property, seed 0).
 * - consumer-retry-discipline took the re-send of a journaled request by a *restarted* consumer for
 *   a retry after a non-retryable answer; the process that got the answer died before it could
 *   record it, and asking again under the same request_id is what CETP-4.1-15 requires (consumer
 *   property, seed 1).
 */
import { describe, expect, it } from 'vitest';
import { replayScenario } from './fuzz.ts';
import type { ConsumerScenario } from './scenario/consumer.ts';
import { executeCommand, REFERENCE, type Scenario } from './scenario/model.ts';
import { type PropertyDef, propertyById } from './suites.ts';

const FROZEN: Scenario = {
  seed: 0,
  tail: 'fifo',
  actors: {
    a: [executeCommand('payments.transfer')],
    b: [{ kind: 'negotiate', caps: ['async_operations', 'cancellation', 'large_results'] }],
  },
  user: [],
  faults: [{ at: 6, fault: { kind: 'freezeCached' } }],
  decisions: [],
};

const RESTARTED: ConsumerScenario = {
  seed: 114069,
  tail: 'pct',
  threads: [
    [{ kind: 'execute', provider: 'alerts', tool: 'delete_alert', args: 0, cancelAfterMs: null }],
    [
      { kind: 'execute', provider: 'alerts', tool: 'create_alert', args: 0, cancelAfterMs: null },
      { kind: 'execute', provider: 'alerts', tool: 'get_quote', args: 0, cancelAfterMs: null },
    ],
    [
      { kind: 'execute', provider: 'alerts', tool: 'get_quote', args: 0, cancelAfterMs: 6000 },
      { kind: 'wait', ms: 1000 },
    ],
  ],
  consumerRestartsAtMs: [],
  hostile: null,
  consumerCaps: 0,
  user: [],
  faults: [{ at: 54, fault: { kind: 'kill', process: 'com.clawseed.agent' } }],
  decisions: [],
};

describe('found by the default campaign after the fidelity change', () => {
  it('a task the freezer holds back is not a task blocked forever', async () => {
    const run = await replayScenario(propertyById('operations') as PropertyDef, {
      scenario: FROZEN,
      variant: REFERENCE,
    });
    expect(
      run.report.outcome.kind === 'liveness' &&
        run.report.outcome.blocked.some((b) => b.on.endsWith(' frozen')),
    ).toBe(true);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });

  it('a restarted consumer re-sending its journaled request is not a retry after a non-retryable answer', async () => {
    const run = await replayScenario(propertyById('consumer') as PropertyDef, {
      scenario: RESTARTED,
      variant: REFERENCE,
    });
    const killed = run.observation.events.some(
      (e) => e.kind === 'process.kill' && e.data.actor === 'com.clawseed.agent',
    );
    expect(killed).toBe(true);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});
