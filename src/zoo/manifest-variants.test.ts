/**
 * The zoo's manifest variants (variants.ts; issue 35, FIDELITY.md row 35.8c "fuzzer reach"): they
 * are generated, they do what they say on a device (the provider in its own process; a guarded
 * provider reached by grantees only through the app's URI grants; a second user's install), the
 * fuzzer meets them as often as their floors say (`app:` labels, reach.ts) — and a campaign that does
 * not is caught — and the mistake that trusts the acquisition gate is caught.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appLabels } from '../check/app-labels.ts';
import { floorGaps, NO_FREQUENCIES } from '../check/frequencies.ts';
import { faultsOf } from '../fuzz/scenario/app-faults.ts';
import { installActors } from '../fuzz/scenario/fixtures.ts';
import { REFERENCE } from '../fuzz/scenario/model.ts';
import { PROPERTIES } from '../fuzz/suites.ts';
import { checkProviderFixtures } from '../harness/subjects.ts';
import { fuzzProvider, World } from '../index.ts';
import { SecurityException } from '../sim/core/errors.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import { buildApp } from './build.ts';
import { appArb, appSeed, generateApp, generateApps } from './generate.ts';
import { mistakeById } from './mistakes.ts';
import { reachGaps } from './reach.ts';
import { huntMistake } from './run.ts';
import type { AppSpec } from './spec.ts';
import { guardPermissions, NO_VARIANT, PROVIDER_PROCESS } from './variants.ts';

const SEED = 1;
const first = (pred: (s: AppSpec) => boolean) => {
  const spec = generateApps(SEED, 40).find(pred);
  if (!spec) throw new Error('no such app among the first 40');
  return spec;
};

/** 'ok' or the exception of a `negotiate` call from actor a's package to the app's authority. */
async function callFromActor(world: World, authority: string): Promise<string> {
  let result = 'not run';
  world.spawnIn('com.fuzz.agent.a', 'call', async (ctx) => {
    try {
      await ctx.contentResolver.call(authority, 'negotiate', null, null);
      result = 'ok';
    } catch (e) {
      result = e instanceof SecurityException ? `SecurityException: ${e.message}` : String(e);
    }
  });
  await world.run();
  return result;
}

function worldWith(spec: AppSpec): World {
  const world = new World({ seed: 1, recordContentCalls: true });
  buildApp(spec).fixture.install(world, REFERENCE);
  installActors(world, ['a', 'b']);
  return world;
}

describe('the zoo generates manifest variants', () => {
  it('each variant is generated often (apps 0–19 of seed 1), and the drawn description is unchanged', () => {
    const specs = generateApps(SEED, 20);
    const count = (k: 'process' | 'guard' | 'secondUser') => specs.filter((s) => s.manifest?.[k]).length;
    expect(count('process')).toBeGreaterThanOrEqual(5);
    expect(count('guard')).toBeGreaterThanOrEqual(5);
    expect(count('secondUser')).toBeGreaterThanOrEqual(5);
    expect(
      specs.filter((s) => s.manifest && !s.manifest.process && !s.manifest.guard && !s.manifest.secondUser)
        .length,
    ).toBeGreaterThan(0);
    // The variants are not drawn: the description is what fast-check drew before them.
    const [drawn] = fc.sample(appArb(3), { seed: appSeed(SEED, 3), numRuns: 1 });
    const { manifest: _m, ...rest } = generateApp(SEED, 3);
    expect(rest).toEqual(drawn);
  });
});

describe('the variants on a device', () => {
  it('guard: a client reaches the guarded provider only through the app’s URI grant', async () => {
    const spec = first((s) => s.manifest?.guard === true);
    const { fixture } = buildApp(spec);
    const granted = worldWith(spec);
    expect(await callFromActor(granted, fixture.authority)).toBe('ok');
    const info = granted.pm.getPackageInfo(fixture.packageName)?.manifest.providers[0];
    expect(info?.readPermission).toBe(guardPermissions(fixture.packageName).provider);
    expect(info?.pathPermissions.length).toBe(1);
    expect(granted.trace.events.some((e) => e.kind === 'uri.grant')).toBe(true);
    // Without the grant (cleared, as a reboot would if the app did not grant again), the gate refuses.
    const refused = worldWith(spec);
    refused.uriGrants.clear();
    expect(await callFromActor(refused, fixture.authority)).toMatch(/^SecurityException: Permission Denial/);
    // A plain app (no guard) is reached without any grant.
    const plain = worldWith({ ...spec, manifest: NO_VARIANT });
    plain.uriGrants.clear();
    expect(await callFromActor(plain, fixture.authority)).toBe('ok');
  });

  it('process: the provider runs in <package>:cetp, and the fuzzer’s kills of the app kill it instead', async () => {
    const spec = first((s) => s.manifest?.process === true);
    const { fixture } = buildApp(spec);
    const world = worldWith(spec);
    expect(await callFromActor(world, fixture.authority)).toBe('ok');
    const own = `${fixture.packageName}${PROVIDER_PROCESS}`;
    expect(world.trace.events.some((e) => e.kind === 'process.start' && e.data.actor === own)).toBe(true);
    expect(fixture.processes).toEqual([own]);
    // A kill or a slow start of the app is that of its provider's process; the list keeps its length.
    const kill = { kind: 'kill', process: fixture.packageName } as const;
    const slow = { kind: 'slowStart', process: fixture.packageName, ms: 15_000 } as const;
    const jump = { kind: 'clockJump', ms: 1 } as const;
    expect(faultsOf({ faults: [kill, jump, slow], providers: [fixture] })).toEqual([
      { ...kill, process: own },
      jump,
      { ...slow, process: own },
    ]);
    // Not for a plain app.
    expect(faultsOf({ faults: [kill], providers: [{ ...fixture, processes: [] }] })).toEqual([kill]);
  });

  it('a fixture whose processes is not a list of names is refused, naming the field', async () => {
    const { fixture } = buildApp(first((s) => s.manifest?.process === true));
    const fail = (message: string): never => {
      throw new Error(message);
    };
    await expect(
      checkProviderFixtures([{ ...fixture, processes: 'x:cetp' }], undefined, 'test', fail),
    ).rejects.toThrow(/\.processes must be an array of process names/);
  });

  it('secondUser: the package is installed for user 10 too, with its own UID', () => {
    const spec = first((s) => s.manifest?.secondUser === true);
    const { fixture } = buildApp(spec);
    const world = worldWith(spec);
    const uid0 = world.pm.getPackageUidAsUser(fixture.packageName, 0);
    const uid10 = world.pm.getPackageUidAsUser(fixture.packageName, 10);
    expect(uid10).toBe((uid0 ?? 0) + 10 * 100_000);
  });
});

describe('app labels', () => {
  const under = new Set(['com.zoo.app0']);
  const ev = (kind: string, data: Record<string, unknown>): TraceEvent =>
    ({ kind, data, seq: 0, step: 0, t: 0 }) as unknown as TraceEvent;
  it('count a kill of the provider’s own process while a confirmation is up, and not otherwise', () => {
    const started = ev('activity.start', { to: 'com.zoo.app0' });
    const kill = ev('process.kill', { actor: 'com.zoo.app0:cetp', cause: 'killed (fault)' });
    const answered = ev('activity.result', { from: 'com.zoo.app0' });
    expect([...appLabels([started, kill], [], under)]).toContain('app:own-process-killed-confirming');
    expect([...appLabels([started, answered, kill], [], under)]).not.toContain(
      'app:own-process-killed-confirming',
    );
    // The main process's kill is not the provider's own.
    const main = ev('process.kill', { actor: 'com.zoo.app0', cause: 'killed (fault)' });
    expect(appLabels([started, main], [], under).size).toBe(0);
    const reboot = ev('process.kill', { actor: 'com.zoo.app0:cetp', cause: 'killed: device reboot' });
    expect(appLabels([reboot], [], under).size).toBe(0);
  });
  it('count a grantee’s call only when the provider’s handler ran it', () => {
    const grant = ev('uri.grant', { actor: 'com.zoo.app0', uid: 10_050 });
    const served = { provider: 'com.zoo.app0', callerUid: 10_050, served: { pid: 1, from: 1, to: 2 } };
    expect([...appLabels([grant], [served as never], under)]).toEqual(['app:grantee-call']);
    expect(appLabels([grant], [{ ...served, served: undefined } as never], under).size).toBe(0);
    expect(appLabels([], [served as never], under).size).toBe(0);
  });
});

describe('floors of the variants in fuzz campaigns', () => {
  it('an app with every variant meets its floors in confirmation; the plain install of it misses them', async () => {
    const spec = first((s) => s.manifest?.process === true && s.manifest.guard && s.manifest.secondUser);
    const varied = await fuzzProvider(buildApp(spec).fixture, {
      property: 'confirmation',
      seed: SEED,
      replayDir: null,
    });
    expect(varied.properties[0]?.status).toBe('passed');
    expect(reachGaps(spec, varied.properties)).toEqual([]);
    // And the property's own floors: a restart is the kill of the provider's process, not of the
    // main one (frequencies.ts providerProcesses; before, `after:restart:*` missed theirs here).
    const own = PROPERTIES.find((d) => d.id === 'confirmation')?.floors ?? {};
    expect(floorGaps(varied.properties[0]?.frequencies ?? NO_FREQUENCIES, own)).toEqual([]);
    // The same floors against the app installed without its variants: every one is missed.
    const plain = await fuzzProvider(buildApp({ ...spec, manifest: NO_VARIANT }).fixture, {
      property: 'confirmation',
      seed: SEED,
      replayDir: null,
    });
    expect(reachGaps(spec, plain.properties).map((g) => g.split(' ')[0])).toEqual([
      'confirmation/app:grantee-call',
      'confirmation/app:own-process',
      'confirmation/app:own-process-killed',
      'confirmation/app:second-user',
      'campaigns/app:own-process-killed-confirming',
    ]);
  }, 300_000);
});

describe('the mistake that trusts the acquisition gate', () => {
  it('trusts-permission-gate is caught on a guarded app (a grantee writes without the user)', async () => {
    const mistake = mistakeById('trusts-permission-gate');
    if (!mistake) throw new Error('no such mistake');
    const spec = first((s) => mistake.applies(s));
    expect(mistake.applies({ ...spec, manifest: NO_VARIANT })).toBe(false);
    const by = await huntMistake({ apps: 1, seed: SEED }, spec, mistake, ['identity']);
    expect(by).toMatch(/^identity\/.*authorized-effect/);
  }, 300_000);
});
