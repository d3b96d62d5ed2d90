/**
 * Multi-user, second part (FIDELITY.md rows 10 and 35.8c; issue 35): another user's provider named
 * `userId@authority`, cross-user Activities and PendingIntents, uninstalling for one user, and
 * runtime permissions per user. Each case fails on the model before it (see each test's comment).
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { Bundle } from '../binder/bundle.ts';
import { FLAG_GRANT_READ_URI_PERMISSION } from '../content/uri-grants.ts';
import { appSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { Activity, RESULT_OK } from '../ui/activity.ts';
import { Intent } from '../ui/intent.ts';
import { FLAG_IMMUTABLE } from '../ui/pending-intent.ts';
import { World } from '../world.ts';
import { spawnInAsUser } from '../world-users.ts';
import type { ProviderSpec } from './manifest.ts';
import {
  authorityForUser,
  INTERACT_ACROSS_USERS,
  INTERACT_ACROSS_USERS_FULL,
  userIdOf,
} from './user-handle.ts';

const P = 'com.example.p';

/** `P` (provider `p`) installed for users 0 and 10; its reply names the process, its UID and the caller's. */
function twoUserProvider(seed: number): { world: World; uid0: number; uid10: number } {
  const world = new World({ seed });
  world.install(appSpec(P, { authority: 'p' }), (ctx) => ({
    providers: {
      Provider: new LambdaProvider((_self, _method) => {
        const reply = new Bundle();
        reply.putString('process', ctx.process.name);
        reply.putInt('uid', ctx.uid);
        reply.putInt('caller', ctx.binder.getCallingUid());
        return reply;
      }),
    },
  }));
  const uid10 = world.pm.installExistingPackageAsUser(P, 10);
  return { world, uid0: world.pm.getPackageUid(P) ?? -1, uid10 };
}

/**
 * Installs `P` (provider `p`, `provider` its manifest attributes); each call answers `n` and the
 * process it ran in: n=1, or with `stored` a count kept in P's storage (so in each user's own data).
 */
function installCounter(world: World, provider: Partial<ProviderSpec> = {}, stored = false): void {
  world.install(appSpec(P, { authority: 'p', provider }), (ctx) => {
    const answer = (n: number) => {
      const reply = new Bundle();
      reply.putInt('n', n);
      reply.putString('process', ctx.process.name);
      return reply;
    };
    const next = async () => {
      const n = (((await ctx.storage.get('t', 'n')) as number | undefined) ?? 0) + 1;
      await ctx.storage.transaction('count', (tx) => tx.put('t', 'n', n));
      return answer(n);
    };
    return { providers: { Provider: new LambdaProvider(stored ? next : () => answer(1)) } };
  });
}

/** Calls `authority` from `pkg`; the answer as a line (or the exception's message). */
function callFrom(world: World, pkg: string, authority: string, out: string[]): void {
  world.spawnIn(pkg, 'call', async (ctx) => {
    try {
      const r = await ctx.contentResolver.call(authority, 'm', null, null);
      out.push(`${r?.getString('process')} uid=${r?.getInt('uid')} caller=${r?.getInt('caller')}`);
    } catch (e) {
      out.push(`${(e as Error).name}: ${(e as Error).message}`);
    }
  });
}

describe("userId@authority: another user's provider", () => {
  // The old model took "10@p" for an authority of its own: "Unknown authority 10@p" for both callers.
  it("needs INTERACT_ACROSS_USERS(_FULL); with it the caller reaches user 10's instance, as itself", async () => {
    const { world, uid10 } = twoUserProvider(1);
    world.install(clientSpec('com.example.plain', [P]));
    // A platform-signed app gets the signature permission (permissions.ts).
    const manifest = { queries: { packages: [P] }, usesPermissions: [INTERACT_ACROSS_USERS] };
    world.install(appSpec('com.example.admin', { cert: 'android-platform', manifest }));
    const full = { queries: { packages: [P] }, usesPermissions: [INTERACT_ACROSS_USERS_FULL] };
    world.install(appSpec('com.example.full', { cert: 'android-platform', manifest: full }));
    const adminUid = world.pm.getPackageUid('com.example.admin') ?? -1;
    expect(userIdOf(adminUid)).toBe(0);
    const plain: string[] = [];
    const admin: string[] = [];
    callFrom(world, 'com.example.plain', authorityForUser(10, 'p'), plain);
    callFrom(world, 'com.example.admin', '10@p', admin);
    callFrom(world, 'com.example.admin', 'content://10@p/notes', admin); // call(Uri, …): the URI's authority
    const fullOut: string[] = [];
    callFrom(world, 'com.example.full', '10@p', fullOut);
    await world.run();
    expect(plain).toEqual([
      'SecurityException: Permission Denial: checkContentProviderPermissionLocked p asks to run as user 10 but is calling from user 0; this requires android.permission.INTERACT_ACROSS_USERS_FULL or android.permission.INTERACT_ACROSS_USERS',
    ]);
    expect(fullOut).toEqual([`${P}@u10 uid=${uid10} caller=${world.pm.getPackageUid('com.example.full')}`]);
    expect(admin).toEqual([
      `${P}@u10 uid=${uid10} caller=${adminUid}`,
      `${P}@u10 uid=${uid10} caller=${adminUid}`,
    ]);
  });

  it('a user the package is not installed for is an unknown authority; "0@p" from user 0 is its own', async () => {
    const { world, uid0 } = twoUserProvider(2);
    world.install(clientSpec('com.example.plain', [P]));
    const out: string[] = [];
    callFrom(world, 'com.example.plain', '11@p', out);
    callFrom(world, 'com.example.plain', '0@p', out);
    await world.run();
    const caller = world.pm.getPackageUid('com.example.plain');
    expect(out.sort()).toEqual(
      [`${P} uid=${uid0} caller=${caller}`, 'IllegalArgumentException: Unknown authority 11@p'].sort(),
    );
  });
});

/** Answers at once with the process and UID it runs in. */
class WhereAmI extends Activity {
  override async onCreate(): Promise<void> {
    const data = new Intent();
    data.extras.putString('where', `${this.context.process.name} uid=${this.context.uid}`);
    this.setResult(RESULT_OK, data);
    this.finish();
  }
}

describe('cross-user Activities and PendingIntents', () => {
  // The old model started every Activity in the package's first user's process: "com.example.p uid=<uid0>".
  it("a user-10 provider's confirmation starts in user 10's process of the package; its PendingIntent fires as user 10", async () => {
    const world = new World({ seed: 3 });
    const spec = appSpec(P, { authority: 'p', manifest: { activities: [{ name: 'Confirm' }] } });
    world.install(spec, (ctx) => ({
      providers: {
        Provider: new LambdaProvider(() => {
          const reply = new Bundle();
          const pi = ctx.getActivityPendingIntent(1, Intent.explicit(P, 'Confirm'), FLAG_IMMUTABLE);
          reply.putPendingIntent('pi', pi);
          reply.putInt('creator', ctx.uid);
          return reply;
        }),
      },
      activities: { Confirm: () => new WhereAmI() },
    }));
    const uid10 = world.pm.installExistingPackageAsUser(P, 10);
    world.install({ ...clientSpec('com.example.work', [P]), userId: 10 });
    const seen: string[] = [];
    world.spawnIn('com.example.work', 'ask', async (ctx) => {
      const reply = await ctx.contentResolver.call('p', 'confirm', null, null);
      const pi = reply?.getPendingIntent('pi');
      seen.push(`creator=${pi?.getCreatorUid()}`);
      if (!pi) return;
      const opts = { pendingIntentBackgroundActivityStartAllowed: true };
      const result = await ctx.startIntentSenderForResult(pi, null, 0, opts);
      seen.push(result.data?.extras.getString('where') ?? `result ${result.resultCode}`);
    });
    await world.run();
    expect(seen).toEqual([`creator=${uid10}`, `${P}@u10 uid=${uid10}`]);
    expect(world.process(P).pid).toBeNull(); // user 0's process never started
  });
});

/** Runs `body` in `pkg`'s process of the user of `uid` (the user opens the app there first). */
const spawnAs = (world: World, pkg: string, uid: number, body: (ctx: AppContext) => Promise<void>) =>
  spawnInAsUser(world, pkg, uid, 'body', body);

/** Installs the client `com.example.c` (it sees P) for users 0 and 10: its UID in each. */
function installClientForBothUsers(world: World): { c0: number; c10: number } {
  world.install(clientSpec('com.example.c', [P]));
  const c10 = world.pm.installExistingPackageAsUser('com.example.c', 10);
  return { c0: world.pm.getPackageUid('com.example.c') ?? -1, c10 };
}

/** The client calls `p` once as each user; the answers go to `seen` as `[label ]u0 …` and `[label ]u10 …`. */
function countFromBoth(
  world: World,
  { c0, c10 }: { c0: number; c10: number },
  seen: string[],
  label = '',
): void {
  const at = label === '' ? '' : `${label} `;
  spawnAs(world, 'com.example.c', c0, async (ctx) => void seen.push(`${at}u0 ${await count(ctx)}`));
  spawnAs(world, 'com.example.c', c10, async (ctx) => void seen.push(`${at}u10 ${await count(ctx)}`));
}

/** Calls `p` from `ctx`: the counter it answers, or the exception's name and message. */
async function count(ctx: AppContext): Promise<string> {
  try {
    const r = await ctx.contentResolver.call('p', 'count', null, null);
    return `n=${r?.getInt('n')} ${r?.getString('process')}`;
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

/**
 * A world with the stored counter installed for users 0 and 10 and the client as both: `round(label)`
 * has the client count from both users into `seen`; round 'before' is already spawned.
 */
function countingAsBothUsers(seed: number) {
  const world = new World({ seed });
  installCounter(world, {}, true);
  const uid0 = world.pm.getPackageUid(P) ?? -1;
  const uid10 = world.pm.installExistingPackageAsUser(P, 10);
  const clients = installClientForBothUsers(world);
  const seen: string[] = [];
  const round = (label: string) => countFromBoth(world, clients, seen, label);
  round('before');
  return { world, uid0, uid10, seen, round };
}

describe('uninstalling for one user (deletePackageAsUser, pm uninstall --user 10)', () => {
  // The old model had only uninstall(), for every user: user 0's caller then met "Unknown authority p"
  // (checked by making deletePackageAsUser call uninstall); without the wipe, the reinstall answers n=2.
  it('the package leaves user 10 only: its UID there, its process, its data directory; user 0 keeps it', async () => {
    const { world, uid10, seen, round } = countingAsBothUsers(4);
    const states: string[] = [];
    world.spawn('harness', async () => {
      await world.scheduler.sleep(5_000);
      world.pm.deletePackageAsUser(P, 10);
      const p10 = world.process(P, P, uid10);
      states.push(`u10 uid=${world.pm.getPackageUidAsUser(P, 10)} alive=${p10.isAlive} ${p10.name}`);
      states.push(
        `u0 alive=${world.process(P).isAlive} packages(uid10)=${world.pm.getPackagesForUid(uid10)}`,
      );
      round('after');
      await world.scheduler.sleep(5_000);
      world.pm.installExistingPackageAsUser(P, 10);
      round('again');
    });
    await world.run();
    expect(states).toEqual([`u10 uid=null alive=false ${P}@u10`, 'u0 alive=true packages(uid10)=null']);
    expect(seen.sort()).toEqual(
      [
        `before u0 n=1 ${P}`,
        `before u10 n=1 ${P}@u10`,
        `after u0 n=2 ${P}`,
        'after u10 IllegalArgumentException: Unknown authority p',
        `again u0 n=3 ${P}`,
        `again u10 n=1 ${P}@u10`, // user 10's data directory went with it
      ].sort(),
    );
  });

  // The old model had no way to uninstall for user 0 alone (uninstall removed user 10's copy too).
  it('its first user can leave too: user 10 keeps the package, its process, its data; its UID becomes the first', async () => {
    const { world, uid0, uid10, seen, round } = countingAsBothUsers(8);
    const states: unknown[] = [];
    world.spawn('harness', async () => {
      await world.scheduler.sleep(5_000);
      const user10 = world.process(P, P, uid10);
      world.pm.deletePackageAsUser(P, 0);
      states.push(world.pm.getPackageUid(P) === uid10, world.pm.getPackageUidAsUser(P, 0));
      states.push(world.pm.getPackagesForUid(uid0), world.process(P) === user10, user10.isAlive);
      round('after');
    });
    await world.run();
    expect(states).toEqual([true, null, null, true, true]);
    expect(seen.sort()).toEqual(
      [
        `before u0 n=1 ${P}`,
        `before u10 n=1 ${P}@u10`,
        'after u0 IllegalArgumentException: Unknown authority p',
        `after u10 n=2 ${P}@u10`,
      ].sort(),
    );
  });

  it("the package's last user: a full uninstall; a user it is not installed for: nothing", () => {
    const world = new World({ seed: 5 });
    world.install({ ...clientSpec('com.example.work', [P]), userId: 10 });
    world.pm.deletePackageAsUser('com.example.work', 11);
    expect(world.pm.getPackageUidAsUser('com.example.work', 10)).not.toBeNull();
    world.pm.deletePackageAsUser('com.example.work', 10);
    expect(world.pm.getPackageInfo('com.example.work')).toBeNull();
  });
});

describe('runtime permissions per user', () => {
  // The old model granted by package name to the first user's UID: user 10's caller stayed denied
  // and user 0's passed.
  it("granting for user 10 grants user 10's UID only; the provider's gate sees the difference", async () => {
    const world = new World({ seed: 6 });
    const CONTACTS = 'android.permission.READ_CONTACTS';
    installCounter(world, { readPermission: CONTACTS });
    world.pm.installExistingPackageAsUser(P, 10);
    world.install(
      appSpec('com.example.c', { manifest: { queries: { packages: [P] }, usesPermissions: [CONTACTS] } }),
    );
    const c10 = world.pm.installExistingPackageAsUser('com.example.c', 10);
    const c0 = world.pm.getPackageUid('com.example.c') ?? -1;
    world.pm.grantRuntimePermission('com.example.c', CONTACTS, 10);
    expect([world.pm.checkPermission(CONTACTS, c0), world.pm.checkPermission(CONTACTS, c10)]).toEqual([
      false,
      true,
    ]);
    expect(() => world.pm.grantRuntimePermission('com.example.c', CONTACTS, 11)).toThrow('Unknown package');
    const seen: string[] = [];
    countFromBoth(world, { c0, c10 }, seen);
    await world.run();
    expect(seen.sort()).toEqual([
      `u0 SecurityException: Permission Denial: opening provider ${P}/Provider from uid ${c0} requires ${CONTACTS}`,
      `u10 n=1 ${P}@u10`,
    ]);
    world.pm.grantRuntimePermission('com.example.c', CONTACTS); // no user: the first user's, as before
    expect(world.pm.checkPermission(CONTACTS, c0)).toBe(true);
  });
});

describe('URI grants across users', () => {
  // The old model granted to toPackage's first user's UID and kept the URI's "10@" in the grant:
  // user 10's grantee was refused, user 0's let in.
  it("a user-10 provider's grant goes to the grantee in user 10, for user 10's provider", async () => {
    const world = new World({ seed: 7 });
    installCounter(world, { exported: false, grantUriPermissions: true });
    const p10 = world.pm.installExistingPackageAsUser(P, 10);
    const clients = installClientForBothUsers(world);
    const { c0 } = clients;
    const seen: string[] = [];
    spawnAs(world, P, p10, async (ctx) => {
      ctx.grantUriPermission('com.example.c', 'content://p/notes/1', FLAG_GRANT_READ_URI_PERMISSION);
      countFromBoth(world, clients, seen);
    });
    await world.run();
    expect(seen.sort()).toEqual([
      `u0 SecurityException: Permission Denial: opening provider ${P}/Provider from uid ${c0} that is not exported from UID ${world.pm.getPackageUid(P)}`,
      `u10 n=1 ${P}@u10`,
    ]);
  });

  // The old model kept every grant: the grantee uninstalled and reinstalled for user 10 (the same UID)
  // was let in again by the grant of before.
  it("uninstalling the grantee for user 10 drops the grants made to it there; user 0's stay", async () => {
    const world = new World({ seed: 9 });
    installCounter(world, { exported: false, grantUriPermissions: true });
    const p10 = world.pm.installExistingPackageAsUser(P, 10);
    const { c0, c10 } = installClientForBothUsers(world);
    const p0 = world.pm.getPackageUid(P) ?? -1;
    const seen: string[] = [];
    const grant = (uid: number) =>
      spawnAs(world, P, uid, async (ctx) =>
        ctx.grantUriPermission('com.example.c', 'content://p/x', FLAG_GRANT_READ_URI_PERMISSION),
      );
    grant(p0);
    grant(p10);
    world.spawn('harness', async () => {
      await world.scheduler.sleep(5_000);
      world.pm.deletePackageAsUser('com.example.c', 10);
      world.pm.installExistingPackageAsUser('com.example.c', 10); // the same UID again
      spawnAs(world, 'com.example.c', c0, async (c) => void seen.push(`u0 ${await count(c)}`));
      spawnAs(
        world,
        'com.example.c',
        c10,
        async (c) => void seen.push(`u10 ${(await count(c)).slice(0, 36)}`),
      );
    });
    await world.run();
    expect(seen.sort()).toEqual([`u0 n=1 ${P}`, 'u10 SecurityException: Permission Denial']);
  });
});

describe("another user's process starts like the first user's", () => {
  // The World installed a process's providers only where their process name equalled the process's:
  // user 10's `<pkg>@u10` never ran the provider's attachInfo and onCreate (it served uninitialised),
  // and a provider with android:process never started in user 10 at all.
  it("user 10's provider is attached and created in user 10's process, its android:process too", async () => {
    const world = new World({ seed: 10 });
    const created: string[] = [];
    const provider = (ctx: AppContext) =>
      new LambdaProvider(
        (self) => {
          const reply = new Bundle();
          reply.putString('package', self.getCallingPackage() ?? 'none');
          return reply;
        },
        () => void created.push(ctx.process.name),
      );
    world.install(appSpec(P, { authority: 'p' }), (ctx) => ({ providers: { Provider: provider(ctx) } }));
    world.install(appSpec('com.example.q', { authority: 'q', provider: { process: ':cetp' } }), (ctx) => ({
      providers: { Provider: provider(ctx) },
    }));
    world.pm.installExistingPackageAsUser(P, 10);
    world.pm.installExistingPackageAsUser('com.example.q', 10);
    world.install({ ...clientSpec('com.example.work', [P, 'com.example.q']), userId: 10 });
    const seen: string[] = [];
    world.spawnIn('com.example.work', 'call', async (ctx) => {
      for (const a of ['p', 'q'])
        seen.push(`${a} ${(await ctx.contentResolver.call(a, 'm', null, null))?.getString('package')}`);
    });
    await world.run();
    expect(created.sort()).toEqual([`${P}@u10`, 'com.example.q:cetp@u10']);
    expect(seen).toEqual(['p com.example.work', 'q com.example.work']);
  });
});
