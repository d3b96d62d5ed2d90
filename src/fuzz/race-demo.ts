/**
 * The race-hunting demonstration: two concurrent calls into a toy provider whose `insert` checks
 * for a row and then inserts it in a separate store operation (check-then-insert). fast-check
 * generates the scheduler's decisions and the faults as part of its input, finds the double insert,
 * and shrinks the schedule to the minimal interleaving. The same property holds for an atomic
 * insert (check and insert in one transaction).
 *
 * Used by properties/race-demo.test.ts and by `cetp-sim demo`.
 */
import fc from 'fast-check';
import { Bundle } from '../sim/binder/bundle.ts';
import type { Fault, FaultAt } from '../sim/core/faults.ts';
import type { StrategySpec } from '../sim/core/strategy.ts';
import { appSpec, clientSpec, LambdaProvider } from '../sim/testing.ts';
import { PROCESS_START_MS, World } from '../sim/world.ts';

export const TOY_PROVIDER = 'com.toy.rows';
export const TOY_CLIENT = 'com.toy.client';

export interface RaceInput {
  readonly decisions: readonly number[];
  readonly faults: readonly FaultAt[];
}

export interface RaceRun {
  readonly inserts: number;
  readonly traceHash: string;
  readonly world: World;
}

/**
 * Runs the scenario once: client A inserts at once, client B after preparing its request (as long as a
 * process start, re-timed after the sim's process start took virtual time, then 8 steps).
 */
export async function runRace(
  input: RaceInput,
  atomic: boolean,
  seed = 0,
  strategy: StrategySpec = { kind: 'replay', decisions: input.decisions },
): Promise<RaceRun> {
  const world = new World({
    seed,
    strategy,
    faults: input.faults,
  });
  world.install(appSpec(TOY_PROVIDER, { authority: 'rows' }), (ctx) => ({
    providers: {
      Provider: new LambdaProvider(async (_self, _method, _arg, extras) => {
        const key = extras?.getString('key') ?? '';
        if (atomic) {
          await ctx.storage.transaction('insert if absent', async (tx) => {
            if ((await tx.get('rows', key)) === undefined) await tx.put('rows', key, 'row');
          });
        } else if ((await ctx.storage.get('rows', key)) === undefined) {
          await ctx.storage.transaction('insert', (tx) => tx.put('rows', key, 'row'));
        }
        return new Bundle();
      }),
    },
  }));
  world.install(clientSpec(TOY_CLIENT, [TOY_PROVIDER]), () => ({}));
  world.spawnIn(TOY_CLIENT, 'main', async (ctx) => {
    // B's preparation lasts as long as the provider's cold start that A's call waits for, then some
    // steps more: under FIFO B calls after A's insert; only a schedule that holds A back races them.
    for (const [name, prepareMs, prepareSteps] of [
      ['A', 0, 0],
      ['B', PROCESS_START_MS, 8],
    ] as const) {
      ctx.spawn(name, async () => {
        if (prepareMs > 0) await ctx.sleep(prepareMs);
        for (let i = 0; i < prepareSteps; i++) await ctx.yield();
        const extras = new Bundle();
        extras.putString('key', 'k');
        const client = await ctx.contentResolver.acquireUnstableContentProviderClient('rows');
        try {
          await client?.call('insert', null, extras);
        } catch {
          // A killed provider or lost reply: the caller gives up; the invariant is about rows.
        }
      });
    }
  });
  const report = await world.run();
  const inserts = world.trace.ofKind('store.commit').filter((e) => e.data.writes === 1).length;
  return { inserts, traceHash: report.traceHash, world };
}

const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  fc.constant<Fault>({ kind: 'kill', process: TOY_PROVIDER }),
  fc.constant<Fault>({ kind: 'loseReply', callee: TOY_PROVIDER }),
  fc.constant<Fault>({ kind: 'failTransaction', callee: TOY_PROVIDER }),
);

export const raceInputArb: fc.Arbitrary<RaceInput> = fc.record({
  decisions: fc.array(fc.nat({ max: 7 }), { maxLength: 60 }),
  faults: fc.array(fc.record({ at: fc.nat({ max: 60 }), fault: faultArb }), { maxLength: 2 }),
});

/** At most one row insert, whatever the schedule and faults. */
export function raceProperty(atomic: boolean): fc.IAsyncPropertyWithHooks<[RaceInput]> {
  return fc.asyncProperty(raceInputArb, async (input) => {
    const run = await runRace(input, atomic);
    return run.inserts <= 1;
  });
}
