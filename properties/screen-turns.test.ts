/**
 * The reference consumer's launches for a result take turns on its one screen.
 *
 * Found by a fuzz campaign (`fuzz --seed 19`, consumer) once the simulation modelled Android's
 * background activity launch restrictions (src/sim/FIDELITY.md #16): two agent threads each got
 * USER_ACTION_REQUIRED; the first launched its provider's confirmation, which covered the
 * consumer; the second launched its own while the consumer had no visible window — Android aborts
 * that start silently with RESULT_CANCELED — and resumed without the user ever seeing a screen
 * (consumer-retry-discipline: "re-sent after USER_ACTION_REQUIRED without any user decision").
 * Now resolutions and the local approval take turns (`ScreenTurns`, src/consumer/confirmation.ts).
 */
import { describe, expect, it } from 'vitest';
import { type ConsumerScenario, runConsumerScenario } from '../src/fuzz/scenario/consumer.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const FOUND: ConsumerScenario = {
  seed: 0,
  tail: 'fifo',
  threads: [
    [
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'get_quote',
        args: 0,
        cancelAfterMs: null,
      },
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'get_quote',
        args: 0,
        cancelAfterMs: null,
      },
    ],
    [
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'create_alert',
        args: 0,
        cancelAfterMs: null,
      },
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'get_quote',
        args: 0,
        cancelAfterMs: null,
      },
    ],
    [
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'transfer',
        args: 0,
        cancelAfterMs: null,
      },
    ],
  ],
  consumerRestartsAtMs: [1201],
  hostile: null,
  consumerCaps: 0,
  user: [],
  faults: [
    {
      at: 150,
      fault: {
        kind: 'kill',
        process: 'com.example.payments',
      },
    },
  ],
  decisions: [2],
};

describe('the consumer screen', () => {
  it('CETP-5-28 CETP-4.3-12: no resolution is launched while another covers the consumer; none comes back unseen', async () => {
    const consumer = PROPERTIES.find((p) => p.id === 'consumer');
    if (consumer?.kind !== 'consumer') throw new Error('the consumer property drives the reference consumer');
    const run = await runConsumerScenario(consumer.fixture, FOUND, REFERENCE);
    expect(run.world.trace.ofKind('activity.start.blocked')).toEqual([]);
    expect(run.world.trace.ofKind('activity.start').length).toBeGreaterThan(1);
    expect(run.violations).toEqual([]);
  });
});
