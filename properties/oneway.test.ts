/**
 * Oneway Binder traffic is part of the generated runs: the provider SDK notifies
 * content://<authority>/operations/<id> when an operation ends, the raw driver observes its
 * providers' operation URIs, and system_server delivers each onChange oneway into the agent's
 * process (src/sim/content/content-observer.ts). Faults then meet oneway transactions like any other: a
 * killed agent's registration is found dead and dropped.
 */
import { describe, expect, it } from 'vitest';
import { replayScenario } from '../src/fuzz/fuzz.ts';
import { executeCommand, REFERENCE, type Scenario } from '../src/fuzz/scenario/model.ts';
import { type PropertyDef, propertyById } from '../src/fuzz/suites.ts';

const AGENT = 'com.fuzz.agent.a';

function transfer(faults: Scenario['faults']): Scenario {
  return {
    seed: 0,
    tail: 'fifo',
    actors: {
      a: [executeCommand('payments.transfer')],
    },
    user: [],
    faults,
    decisions: [],
  };
}

describe('oneway transactions in generated runs', () => {
  it("an operation's end reaches the observing agent as a oneway onChange from the system", async () => {
    const run = await replayScenario(propertyById('operations') as PropertyDef, {
      scenario: transfer([]),
      variant: REFERENCE,
    });
    const events = run.observation.events;
    expect(events.some((e) => e.kind === 'content.observe' && e.data.from === AGENT)).toBe(true);
    expect(events.some((e) => e.kind === 'content.notify')).toBe(true);
    const sends = events.filter((e) => e.kind === 'binder.oneway');
    expect(sends.length).toBeGreaterThan(0);
    expect(sends.every((e) => e.data.from === 'system' && e.data.method === 'onChange')).toBe(true);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });

  it('a kill of the agent leaves a dead registration that the next notification drops', async () => {
    const run = await replayScenario(propertyById('operations') as PropertyDef, {
      scenario: transfer([{ at: 100, fault: { kind: 'kill', process: AGENT } }]),
      variant: REFERENCE,
    });
    const events = run.observation.events;
    expect(events.some((e) => e.kind === 'process.kill' && e.data.actor === AGENT)).toBe(true);
    expect(
      events.some((e) => e.kind === 'binder.dead' && e.data.oneway === true && e.data.to === AGENT),
    ).toBe(true);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});
