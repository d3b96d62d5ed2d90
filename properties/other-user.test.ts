/**
 * A caller from another Android user in the fuzzer (issue 35, FIDELITY.md row 35.8c): actor a10 is
 * a's package installed for user 10 too (same appId, UID 10 × 100000 + appId), platform-signed with
 * INTERACT_ACROSS_USERS, calling user 0's providers as `0@authority`. The provider sees the user-10
 * UID, so a session token or request_id a's user-0 copy obtained is someone else's (CETP-2.2-09,
 * CETP-6-02): the reference refuses the session; a provider keying sessions by app (package/appId)
 * fails session-binding. The identity property reaches it (`attack:other-user`) in ≥ 20% of its runs.
 */
import { describe, expect, it } from 'vitest';
import { noCrossUidResults } from '../src/check/checkers/effects.ts';
import { sessionBinding } from '../src/check/checkers/wire-identity.ts';
import { floorGaps, runLabels } from '../src/check/frequencies.ts';
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import {
  ACTOR_PACKAGES,
  ALERTS,
  installActors,
  PAYMENTS,
  spawnActor,
} from '../src/fuzz/scenario/fixtures.ts';
import type { ActorName, Command, Scenario, Variant } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { propertyById, type RawPropertyDef } from '../src/fuzz/suites.ts';
import { Bundle } from '../src/sim/binder/bundle.ts';
import { World } from '../src/sim/world.ts';

const quote: Command = {
  kind: 'execute',
  provider: 'alerts',
  tool: 'get_quote',
  args: 0,
  rid: { kind: 'fresh' },
  expiredDeadline: false,
  confirmedFlag: false,
  resolve: 'honest',
  duplicates: 0,
};

/** a executes `first` (a quote); `thief`, after `before`, takes a's session and re-sends a's execution (its request_id) as its own. */
async function stealFromA(
  thief: ActorName,
  variant: Variant = REFERENCE,
  first: Command = quote,
  before: Command[] = [],
) {
  const actors = {
    a: [first],
    [thief]: [...before, { kind: 'steal-session' }, { kind: 'collide' }] as Command[],
  };
  const scenario: Scenario = { seed: 1, tail: 'fifo', actors, user: [], faults: [], decisions: [] };
  const fixture = {
    providers: [ALERTS, PAYMENTS],
    actors: ['a', thief] as ActorName[],
    checkers: [sessionBinding, noCrossUidResults],
  };
  const run = await runScenario(fixture, scenario, variant);
  const labels = [...runLabels(run.observation, run.context)].filter((l) => l.startsWith('attack:'));
  return { run, labels };
}

describe('a10: the same agent package in user 10', () => {
  it("calls user 0's provider as its user-10 UID; a's session and request_id are not its own", async () => {
    const { run, labels } = await stealFromA('a10');
    const pkg = ACTOR_PACKAGES.a;
    const uid0 = run.world.pm.getPackageUid(pkg) ?? -1;
    const uid10 = run.world.pm.getPackageUidAsUser(pkg, 10) ?? -1;
    expect(uid10).toBe(10 * 100_000 + (uid0 % 100_000));
    const seen = run.observation.calls.filter((c) => c.caller === pkg).map((c) => c.callerUid);
    expect(new Set(seen)).toEqual(new Set([uid0, uid10]));
    // Same package: not a foreign session (that label compares packages), but another user's.
    expect(labels).toContain('attack:other-user');
    expect(labels).not.toContain('attack:foreign-session');
    const stolen = run.observation.calls.find(
      (c) => c.callerUid === uid10 && c.method === 'execute_tool' && c.sessionToken !== null,
    );
    expect(stolen?.reply.kind === 'bundle' ? stolen.reply.errorCode : null).toBe('NEGOTIATION_REQUIRED');
    expect(run.violations).toEqual([]);
  });

  it('fails session-binding on a provider that keys sessions by app, not UID (planted)', async () => {
    const keyedByApp: Variant = {
      providerBugs: ['session-keyed-by-app'],
      consumerBugs: [],
      disabledRules: [],
    };
    const { run } = await stealFromA('a10', keyedByApp);
    expect(run.violations.map((v) => v.checker)).toContain('session-binding');
    expect(run.violations[0]?.message).toMatch(/^uid 101\d+ used uid 1\d+'s session token and got success$/);
  });

  it("a's request_id is not a10's: a provider whose dedup key omits the UID answers a10 with a's result", async () => {
    const create: Command = { ...quote, tool: 'create_alert' };
    // a10 gets its own scope grant (a create of its own), waits for a's create to end, then sends a's
    // create under a's request_id.
    const own: Command[] = [
      { ...create, args: 1 },
      { kind: 'wait', ms: 600_000 },
    ];
    const reference = await stealFromA('a10', REFERENCE, create, own);
    expect(reference.labels).toContain('attack:other-user');
    expect(reference.run.violations).toEqual([]);
    const noUid: Variant = { providerBugs: ['dedup-key-without-uid'], consumerBugs: [], disabledRules: [] };
    const broken = await stealFromA('a10', noUid, create, own);
    expect(broken.run.violations.map((v) => v.checker)).toContain('no-cross-uid-results');
  });

  it('two apps of user 0 doing the same are no other-user attack', async () => {
    const { labels } = await stealFromA('b');
    expect(labels).toContain('attack:foreign-session');
    expect(labels).not.toContain('attack:other-user');
  });

  it('without 0@authority, user 10 does not find the provider unless it is installed for user 10', async () => {
    expect(await plainCallFromUser10(false)).toBe(`Unknown authority ${ALERTS.authority}`);
    expect(await plainCallFromUser10(true)).toBe('success');
  });
});

/** a10 lists the alerts provider's tools (v1) by its plain authority (user 10's): the status, or the failure. */
async function plainCallFromUser10(providerInUser10: boolean): Promise<string> {
  const world = new World({ seed: 3 });
  ALERTS.install(world, REFERENCE);
  if (providerInUser10) world.pm.installExistingPackageAsUser(ALERTS.packageName, 10);
  installActors(world, ['a', 'a10']);
  let out = 'not run';
  spawnActor(world, 'a10', 'plain', async (ctx) => {
    try {
      const r = await ctx.contentResolver.call(ALERTS.authority, 'list_tools', null, new Bundle());
      out = r?.getString('status') ?? 'null';
    } catch (e) {
      out = (e as Error).message;
    }
  });
  await world.run();
  return out;
}

describe('attack:other-user floor (identity)', () => {
  const def = propertyById('identity') as RawPropertyDef;

  it('identity reaches it at its CI budget', async () => {
    expect(def.floors?.['attack:other-user']).toBe(0.2);
    const result = await fuzzProperty(def, { seed: 0, runs: def.ciRuns });
    expect(floorGaps(result.frequencies, def.floors ?? {}).map((g) => g.label)).not.toContain(
      'attack:other-user',
    );
  });

  it('identity without a10 misses it', async () => {
    const actors = def.shape.actors.filter((a) => a !== 'a10');
    const without: RawPropertyDef = {
      ...def,
      fixture: { ...def.fixture, actors },
      shape: { ...def.shape, actors },
    };
    const result = await fuzzProperty(without, { seed: 0, runs: def.ciRuns });
    expect(floorGaps(result.frequencies, def.floors ?? {}).map((g) => g.label)).toContain(
      'attack:other-user',
    );
  });
});
