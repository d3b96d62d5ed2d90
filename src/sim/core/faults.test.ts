import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { Bundle } from '../binder/bundle.ts';
import { certificate } from '../pm/signing.ts';
import { appSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { Intent } from '../ui/intent.ts';
import { FLAG_IMMUTABLE } from '../ui/pending-intent.ts';
import { World } from '../world.ts';
import { DeadObjectException, SimUsageError } from './errors.ts';
import type { Fault } from './faults.ts';

function faultWorld(faults: { at: number; fault: Fault }[]) {
  const world = new World({ faults, recordContentCalls: true });
  let effects = 0;
  world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
    providers: {
      Provider: new LambdaProvider(() => {
        effects++;
        const reply = new Bundle();
        reply.putInt('effect', effects);
        return reply;
      }),
    },
  }));
  world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
  return { world, effects: () => effects };
}

async function callTwice(world: World): Promise<string[]> {
  const out: string[] = [];
  world.spawnIn('com.example.c', 'main', async (ctx) => {
    const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
    for (let i = 0; i < 2; i++) {
      try {
        await client?.call('m', null, null);
        out.push('ok');
      } catch (e) {
        out.push(e instanceof DeadObjectException ? 'DeadObject' : String(e));
      }
    }
  });
  await world.run();
  return out;
}

describe('faults as data (applied before their step, recorded in the trace)', () => {
  it('a lost reply happens after the effect: the caller fails but the provider did the work', async () => {
    const { world, effects } = faultWorld([{ at: 0, fault: { kind: 'loseReply', callee: 'com.example.p' } }]);
    expect(await callTwice(world)).toEqual(['DeadObject', 'ok']);
    expect(effects()).toBe(2);
    expect(world.trace.ofKind('binder.reply.lost')).toHaveLength(1);
    // The wire log keeps the provider's side: what it answered, though the caller never got it.
    const results = (world.contentCalls ?? []).map((c) => c.result);
    expect(results.map((r) => r?.kind)).toEqual(['exception', 'reply']);
    const lost = results[0];
    expect(lost?.kind === 'exception' && lost.undelivered?.getInt('effect')).toBe(1);
    expect(results[1]?.kind === 'reply' && results[1].reply?.getInt('effect')).toBe(2);
  });

  it('a failed transaction never reaches the provider', async () => {
    const { world, effects } = faultWorld([
      { at: 0, fault: { kind: 'failTransaction', caller: 'com.example.c' } },
    ]);
    expect(await callTwice(world)).toEqual(['DeadObject', 'ok']);
    expect(effects()).toBe(1);
  });

  it('a clock jump moves wall time only', async () => {
    const { world } = faultWorld([{ at: 1, fault: { kind: 'clockJump', ms: -60_000 } }]);
    const start = world.clock.nowMs();
    await callTwice(world);
    // Wall time = boot time + monotonic time + jumps: only the jump moved it off the monotonic clock.
    expect(world.clock.nowMs() - world.clock.elapsedRealtime()).toBe(start - 60_000);
  });

  it('faults at the same step apply in list order; faults past the end are reported unapplied', async () => {
    const { world } = faultWorld([
      { at: 2, fault: { kind: 'clockJump', ms: 1 } },
      { at: 2, fault: { kind: 'clockJump', ms: 2 } },
      { at: 1_000_000, fault: { kind: 'kill', process: 'com.example.p' } },
    ]);
    world.spawn('ticker', async () => {
      for (let i = 0; i < 5; i++) await world.scheduler.yield();
    });
    const report = await world.run();
    const applied = world.trace.ofKind('fault').map((e) => (e.data.fault as { ms?: number }).ms);
    expect(applied).toEqual([1, 2]);
    expect(report.unappliedFaults).toHaveLength(1);
  });

  it('re-signing with rotation keeps the UID and both certificates match; a new key is a new UID with data wiped', async () => {
    const world = new World();
    world.install(appSpec('com.example.app', { cert: 'old' }), () => ({}));
    const uid = world.pm.getPackageUid('com.example.app') as number;
    world.spawnIn('com.example.app', 'save', async (ctx) => ctx.storage.put('t', 'k', 1));
    await world.run();

    world.resign('com.example.app', 'new', true);
    expect(world.pm.getPackageUid('com.example.app')).toBe(uid);
    expect(world.pm.hasSigningCertificate(uid, certificate('old').sha256)).toBe(true);
    expect(world.pm.hasSigningCertificate(uid, certificate('new').sha256)).toBe(true);
    expect(world.storage('com.example.app').peek('t', 'k')).toBe(1);

    world.resign('com.example.app', 'attacker', false);
    const newUid = world.pm.getPackageUid('com.example.app') as number;
    expect(newUid).not.toBe(uid);
    expect(world.pm.hasSigningCertificate(newUid, certificate('new').sha256)).toBe(false);
    expect(world.storage('com.example.app').peek('t', 'k')).toBeUndefined();
  });

  it('"rotating" to the key that already signs a package is an ordinary update: the signing does not change', async () => {
    const world = new World();
    world.install(appSpec('com.example.app', { cert: 'old' }), () => ({}));
    world.resign('com.example.app', 'new', true);
    const before = world.pm.getPackageInfo('com.example.app')?.signing;
    world.resign('com.example.app', 'new', true);
    expect(world.pm.getPackageInfo('com.example.app')?.signing).toEqual(before);
    expect(before?.lineage?.map((e) => e.cert.name)).toEqual(['old', 'new']);
    // Still an update: it was installed again (the process of an updated app is killed).
    expect(world.trace.ofKind('pm.update')).toHaveLength(2);
  });

  it('uninstall kills the process and a later call finds an unknown authority', async () => {
    const { world } = faultWorld([]);
    const out: string[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      await ctx.contentResolver.call('p', 'm', null, null);
      world.applyFault({ kind: 'uninstall', package: 'com.example.p' });
      try {
        await ctx.contentResolver.call('p', 'm', null, null);
      } catch (e) {
        out.push((e as Error).message);
      }
    });
    await world.run();
    expect(out).toEqual(['Unknown authority p']);
    expect(world.pm.getPackageUid('com.example.p')).toBeNull();
  });

  it('custom faults run their registered handler; an unknown one is a usage error', () => {
    const world = new World();
    const seen: unknown[] = [];
    world.faults.onCustom('expireSessions', (args) => seen.push(args));
    world.applyFault({ kind: 'custom', name: 'expireSessions', args: { all: true } });
    expect(seen).toEqual([{ all: true }]);
    expect(() => world.applyFault({ kind: 'custom', name: 'nope' })).toThrow(SimUsageError);
  });

  it('reboot: every app process dies, PendingIntents are gone, harness tasks go on', async () => {
    const { world } = faultWorld([]);
    const seen: string[] = [];
    world.spawn('driver', async () => {
      await world.startProcess('com.example.p');
      await world.startProcess('com.example.c');
      const pi = (world.process('com.example.p').context as AppContext | null)?.getActivityPendingIntent(
        1,
        new Intent({ package: 'com.example.p', action: 'X' }),
        FLAG_IMMUTABLE,
      );
      world.applyFault({ kind: 'reboot' });
      seen.push(`${world.process('com.example.p').state.kind} ${world.process('com.example.c').state.kind}`);
      seen.push(`pi canceled: ${pi?.record.canceled}`);
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(seen).toEqual(['dead dead', 'pi canceled: true']);
    expect(world.trace.ofKind('process.kill').map((e) => e.data.cause)).toEqual([
      'killed: device reboot',
      'killed: device reboot',
    ]);
  });

  it('reboot makes UID reuse reachable from a fault list: a reinstall after it takes a freed UID', async () => {
    const { world } = faultWorld([
      { at: 0, fault: { kind: 'resign', package: 'com.example.c', cert: 'attacker', rotate: false } },
      { at: 0, fault: { kind: 'reboot' } },
      { at: 0, fault: { kind: 'reinstall', package: 'com.example.p' } },
    ]);
    const before = { p: world.pm.getPackageUid('com.example.p'), c: world.pm.getPackageUid('com.example.c') };
    world.spawn('idle', async () => {});
    await world.run();
    // c's original UID was freed by the re-sign; after the reboot the reinstalled p takes it.
    expect(world.pm.getPackageUid('com.example.p')).toBe(before.c);
    expect(world.pm.getPackageUid('com.example.c')).not.toBe(before.c);
  });
});
