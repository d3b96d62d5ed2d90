/**
 * PendingIntents in consumer vectors' scripted replies (CETP-4.3-02, 7.2-04, 7.2-05 as the consumer
 * checks them): who creates the token, what its Intent targets, and whether it is immutable. A
 * token "created by another app" needs a second package, as on a device: the **helper app**. It has
 * an exported confirmation Activity (also answering the implicit action {@link CONFIRM_ACTION}) and
 * mints PendingIntents of its own for the scripted provider, which asks over Binder and relays the
 * token as if it were its own — `getCreatorPackage()` still tells the truth. Every confirmation
 * Activity behind a token approves like a real one (RESULT_OK), so a consumer that launches a
 * token it should have refused goes on to resume, and the vector sees it.
 */
import { LookalikeConfirmActivity } from '../providers/hostile/resolutions.ts';
import type { App } from '../sim/app/app.ts';
import type { AppContext } from '../sim/app/context.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import type { PackageSpec } from '../sim/pm/manifest.ts';
import { certificate } from '../sim/pm/signing.ts';
import { LambdaProvider } from '../sim/testing.ts';
import { Intent } from '../sim/ui/intent.ts';
import { FLAG_IMMUTABLE, FLAG_MUTABLE, type PendingIntent } from '../sim/ui/pending-intent.ts';
import type { World } from '../sim/world.ts';
import type { PendingIntentValue, PiTarget } from './format.ts';

export const HELPER_PACKAGE = 'com.example.vectorhelper';
export const HELPER_AUTHORITY = 'com.example.vectorhelper.mint';
export const HELPER_ACTIVITY = 'HelperConfirmActivity';
/** The action an `implicit` token's Intent carries; only the helper's Activity declares it. */
export const CONFIRM_ACTION = 'org.cetp.vectors.action.CONFIRM';
/** The helper's Binder method: `arg` the target, extras `immutable` and `request_code`. */
const MINT = 'mint_pending_intent';
const MINTED = 'pending_intent';

const HELPER_PROVIDER = 'HelperMintProvider';

/** The Intent behind a token; `provider` and `other` name that app's confirmation Activity. */
function targetIntent(target: PiTarget, provider: { packageName: string; activity: string }): Intent {
  switch (target) {
    case 'provider':
      return Intent.explicit(provider.packageName, provider.activity);
    case 'other':
      return Intent.explicit(HELPER_PACKAGE, HELPER_ACTIVITY);
    case 'implicit':
      return new Intent({ action: CONFIRM_ACTION });
  }
}

function mint(
  context: AppContext,
  requestCode: number,
  target: PiTarget,
  immutable: boolean,
  provider: { packageName: string; activity: string },
): PendingIntent | null {
  const flags = immutable ? FLAG_IMMUTABLE : FLAG_MUTABLE;
  return context.getActivityPendingIntent(requestCode, targetIntent(target, provider), flags);
}

/** Installs the helper app; `provider` is the scripted provider whose Activity `target: provider` names. */
export function installHelper(world: World, provider: { packageName: string; activity: string }): void {
  const spec: PackageSpec = {
    manifest: {
      packageName: HELPER_PACKAGE,
      targetSdk: 34,
      providers: [{ name: HELPER_PROVIDER, authorities: [HELPER_AUTHORITY], exported: true }],
      activities: [{ name: HELPER_ACTIVITY, exported: true, intentFilters: [{ actions: [CONFIRM_ACTION] }] }],
    },
    signing: { signers: [certificate(`${HELPER_PACKAGE}-release`)] },
  };
  world.install(
    spec,
    (): App => ({
      providers: {
        [HELPER_PROVIDER]: new LambdaProvider((self, method, arg, extras) => {
          if (method !== MINT) return null;
          const reply = new Bundle();
          const pi = mint(
            self.context,
            extras?.getInt('request_code') ?? 0,
            arg as PiTarget,
            extras?.getBoolean('immutable') ?? true,
            provider,
          );
          reply.putPendingIntent(MINTED, pi);
          return reply;
        }),
      },
      activities: { [HELPER_ACTIVITY]: () => new LookalikeConfirmActivity('Helper confirmation') },
    }),
  );
}

/** The scripted provider's package, made able to see the helper (its tokens and its Activity). */
export function seeingHelper(spec: PackageSpec): PackageSpec {
  const queries = spec.manifest.queries ?? {};
  return {
    ...spec,
    manifest: {
      ...spec.manifest,
      queries: { ...queries, packages: [...(queries.packages ?? []), HELPER_PACKAGE] },
    },
  };
}

/**
 * Creates the token `value` describes, from inside the scripted provider (`context`): itself, or
 * by asking the helper app over Binder. `requestCode` keeps successive tokens apart.
 */
export async function createPendingIntent(
  context: AppContext,
  value: PendingIntentValue,
  requestCode: number,
  provider: { packageName: string; activity: string },
): Promise<PendingIntent> {
  if (value.creator === 'provider') {
    const pi = mint(context, requestCode, value.target, value.immutable, provider);
    if (pi) return pi;
  } else {
    const client = await context.contentResolver.acquireUnstableContentProviderClient(HELPER_AUTHORITY);
    const extras = new Bundle();
    extras.putInt('request_code', requestCode);
    extras.putBoolean('immutable', value.immutable);
    const reply = await client?.call(MINT, value.target, extras);
    client?.close();
    const pi = reply?.getPendingIntent(MINTED);
    if (pi) return pi;
  }
  throw new Error(`could not create the ${value.creator}'s PendingIntent to ${value.target}`);
}
