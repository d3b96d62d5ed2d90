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
import type { CheckContext } from '../src/check/checker.ts';
import { runProgress } from '../src/check/checkers/runtime.ts';
import { observe } from '../src/check/observation.ts';
import { replayScenario } from '../src/fuzz/fuzz.ts';
import type { ConsumerScenario } from '../src/fuzz/scenario/consumer.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { type PropertyDef, propertyById } from '../src/fuzz/suites.ts';
import type { AppContext } from '../src/sim/app/context.ts';
import { Bundle } from '../src/sim/binder/bundle.ts';
import { appSpec, clientSpec, LambdaProvider } from '../src/sim/testing.ts';
import { World } from '../src/sim/world.ts';

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
    // Found as a frozen agent app at the end of an operations run (seed 0). Agents the harness opens
    // are thawed now (a launch thaws, src/sim/world.ts), so the case is built here directly: a cached
    // provider frozen with its background worker still to run, and the run-progress oracle.
    const world = new World();
    world.install(appSpec('com.example.p', { authority: 'p' }), (ctx: AppContext) => ({
      providers: {
        Provider: new LambdaProvider(() => {
          ctx.spawn('worker', () => ctx.sleep(1_000));
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec('com.example.agent', ['com.example.p']), () => ({}));
    world.spawnIn('com.example.agent', 'agent', async (ctx) => {
      await ctx.contentResolver.call('p', 'start', null, null);
      world.applyFault({ kind: 'freezeCached' });
    });
    const report = await world.run();
    expect(
      report.outcome.kind === 'liveness' && report.outcome.blocked.every((b) => b.on.endsWith(' frozen')),
    ).toBe(true);
    const ctx: CheckContext = {
      providersUnderTest: ['com.example.p'],
      consumers: [],
      toolEffects: new Map(),
      toolScopes: new Map(),
      userGrantedScopes: new Map(),
    };
    expect(runProgress.check(observe(world, report), ctx)).toEqual([]);
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
