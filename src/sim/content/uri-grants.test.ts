/**
 * The acquisition gate's path permissions and URI grants (uri-grants.ts; FIDELITY.md row 35.8c),
 * after ContentProviderHelper.checkContentProviderPermission. The old gate (exported + read/write
 * permission only) fails the first two tests: an unexported provider refused a grantee, a holder of
 * a path permission was refused.
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { SecurityException } from '../core/errors.ts';
import type { ProviderSpec } from '../pm/manifest.ts';
import { appSpec, clientSpec, EchoProvider } from '../testing.ts';
import { World } from '../world.ts';
import { FLAG_GRANT_READ_URI_PERMISSION } from './uri-grants.ts';

const OWNER = 'com.example.files';
const AUTH = 'files';

/** The result of `ctx.contentResolver.call(AUTH, …)` from each of `callers`: 'ok' or the exception. */
async function callsFrom(world: World, callers: readonly string[], first?: (ctx: AppContext) => void) {
  const results: Record<string, string> = {};
  world.spawnIn(OWNER, 'grant', async (ctx) => {
    first?.(ctx);
    for (const pkg of callers)
      world.spawnIn(pkg, 'call', async (c) => {
        try {
          results[pkg] = (await c.contentResolver.call(AUTH, 'execute_tool', null, null)) ? 'ok' : 'null';
        } catch (e) {
          results[pkg] = e instanceof SecurityException ? `SecurityException: ${e.message}` : String(e);
        }
      });
  });
  await world.run();
  return results;
}

function world(provider: Partial<ProviderSpec>, permissions: string[] = []) {
  const w = new World({ seed: 1 });
  w.install(
    appSpec(OWNER, {
      authority: AUTH,
      provider,
      manifest: { permissions: permissions.map((name) => ({ name, protectionLevel: 'normal' })) },
    }),
    () => ({ providers: { Provider: new EchoProvider() } }),
  );
  w.install(clientSpec('com.example.grantee', [OWNER]));
  w.install(clientSpec('com.example.other', [OWNER]));
  return w;
}

describe('path permissions and URI grants at acquisition', () => {
  it('an unexported provider with grantUriPermissions: a URI grant opens it — every call() method — to the grantee only', async () => {
    const w = world({ exported: false, grantUriPermissions: true });
    const results = await callsFrom(w, ['com.example.grantee', 'com.example.other'], (ctx) =>
      ctx.grantUriPermission(
        'com.example.grantee',
        `content://${AUTH}/file/1`,
        FLAG_GRANT_READ_URI_PERMISSION,
      ),
    );
    expect(results['com.example.grantee']).toBe('ok');
    expect(results['com.example.other']).toMatch(/^SecurityException: .*that is not exported from UID/);
  });

  it("a path permission's permission passes the gate of an exported provider (whatever path it names)", async () => {
    const w = world(
      {
        readPermission: 'com.example.READ_ALL',
        pathPermissions: [{ pathPrefix: '/public', readPermission: 'com.example.READ_PUBLIC' }],
      },
      ['com.example.READ_ALL', 'com.example.READ_PUBLIC'],
    );
    w.install(
      appSpec('com.example.public', {
        manifest: { usesPermissions: ['com.example.READ_PUBLIC'], queries: { packages: [OWNER] } },
      }),
    );
    const results = await callsFrom(w, ['com.example.public', 'com.example.other']);
    expect(results['com.example.public']).toBe('ok');
    expect(results['com.example.other']).toMatch(/requires com\.example\.READ_ALL$/);
  });

  it('granting needs grantUriPermissions and the provider’s own UID; a reboot clears grants', async () => {
    const refused = world({ exported: false });
    const results = await callsFrom(refused, ['com.example.grantee'], (ctx) => {
      expect(() =>
        ctx.grantUriPermission('com.example.grantee', `content://${AUTH}/x`, FLAG_GRANT_READ_URI_PERMISSION),
      ).toThrow(/does not allow granting of Uri permissions/);
    });
    expect(results['com.example.grantee']).toMatch(/^SecurityException/);
    const w = world({ exported: false, grantUriPermissions: true });
    const after: string[] = [];
    w.spawnIn(OWNER, 'grant', async (ctx) => {
      ctx.grantUriPermission('com.example.grantee', `content://${AUTH}/x`, FLAG_GRANT_READ_URI_PERMISSION);
      w.applyFault({ kind: 'reboot' });
    });
    w.spawn('after-reboot', async () => {
      await w.scheduler.sleep(1_000);
      w.spawnIn('com.example.grantee', 'call', async (c) => {
        try {
          await c.contentResolver.call(AUTH, 'm', null, null);
          after.push('ok');
        } catch (e) {
          after.push(e instanceof SecurityException ? 'SecurityException' : String(e));
        }
      });
    });
    await w.run();
    expect(after).toEqual(['SecurityException']);
  });
});
