/**
 * Multi-user, second part (FIDELITY.md rows 10 and 35.8c; issue 35): another user's provider named
 * `userId@authority`, cross-user Activities and PendingIntents, uninstalling for one user, and
 * runtime permissions per user. Each case fails on the model before it (see each test's comment).
 */
import { describe, expect, it } from 'vitest';
import { Bundle } from '../binder/bundle.ts';
import { appSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { Activity, RESULT_OK } from '../ui/activity.ts';
import { Intent } from '../ui/intent.ts';
import { FLAG_IMMUTABLE } from '../ui/pending-intent.ts';
import { World } from '../world.ts';
import { authorityForUser, INTERACT_ACROSS_USERS, userIdOf } from './user-handle.ts';

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
    const adminUid = world.pm.getPackageUid('com.example.admin') ?? -1;
    expect(userIdOf(adminUid)).toBe(0);
    const plain: string[] = [];
    const admin: string[] = [];
    callFrom(world, 'com.example.plain', authorityForUser(10, 'p'), plain);
    callFrom(world, 'com.example.admin', '10@p', admin);
    await world.run();
    expect(plain).toEqual([
      'SecurityException: Permission Denial: checkContentProviderPermissionLocked p asks to run as user 10 but is calling from user 0; this requires android.permission.INTERACT_ACROSS_USERS_FULL or android.permission.INTERACT_ACROSS_USERS',
    ]);
    expect(admin).toEqual([`${P}@u10 uid=${uid10} caller=${adminUid}`]);
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
