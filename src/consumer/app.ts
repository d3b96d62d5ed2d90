/**
 * The reference consumer as an installable app: an agent app whose manifest declares `<queries>`
 * for the TOOL_PROVIDER action (package visibility, Android 11: without it no provider would be
 * discoverable) and its own approval Activity, and whose process builds one ExternalToolBridge per
 * incarnation (a restart is a fresh bridge; only the journal in durable storage survives).
 *
 *   world.install(consumerPackage(), consumerApp({ localApproval: 'activity' }));
 *   world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
 *     const outcome = await bridgeIn(ctx).execute('com.example.alerts', 'get_quote', { symbol: 'AAPL' });
 *   });
 */

import { TOOL_PROVIDER_ACTION } from '../protocol/discovery.ts';
import type { App } from '../sim/app/app.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { PackageSpec } from '../sim/pm/manifest.ts';
import { certificate } from '../sim/pm/signing.ts';
import { ExternalToolBridge } from './bridge.ts';
import { APPROVAL_ACTIVITY, CetpApprovalActivity } from './confirmation.ts';
import type { ConsumerOptionsInit } from './options.ts';
import { assertConsumerOptions } from './options-check.ts';
import type { ToolOutcome } from './outcomes.ts';

export const CONSUMER_PACKAGE = 'com.clawseed.agent';

export interface ConsumerPackageOptions {
  readonly packageName?: string;
  readonly cert?: string;
  readonly sharedUserId?: string;
  /** Omit the `<queries>` element (to show package visibility at work). */
  readonly withoutQueries?: boolean;
}

export function consumerPackage(options: ConsumerPackageOptions = {}): PackageSpec {
  const packageName = options.packageName ?? CONSUMER_PACKAGE;
  return {
    manifest: {
      packageName,
      targetSdk: 34,
      ...(options.withoutQueries ? {} : { queries: { intents: [{ action: TOOL_PROVIDER_ACTION }] } }),
      activities: [{ name: APPROVAL_ACTIVITY, exported: false }],
      ...(options.sharedUserId !== undefined ? { sharedUserId: options.sharedUserId } : {}),
    },
    signing: { signers: [certificate(options.cert ?? `${packageName}-release`)] },
  };
}

export interface ConsumerApp extends App {
  readonly bridge: ExternalToolBridge;
  /** Outcomes of the executions resumed at start (when `resumeOnStart`). */
  readonly resumed: ToolOutcome[];
}

export interface ConsumerAppOptions extends ConsumerOptionsInit {
  /** On every process start, resume the journaled executions that have not ended. */
  readonly resumeOnStart?: boolean;
}

/** The app factory: a fresh bridge (and approval Activity) per consumer process. */
export function consumerApp(options: ConsumerAppOptions = {}): (context: AppContext) => ConsumerApp {
  const { resumeOnStart, ...consumerOptions } = options;
  assertConsumerOptions('consumerApp options', consumerOptions);
  return (context) => {
    const bridge = new ExternalToolBridge(context, consumerOptions);
    const resumed: ToolOutcome[] = [];
    return {
      bridge,
      resumed,
      activities: { [APPROVAL_ACTIVITY]: () => new CetpApprovalActivity() },
      onCreate: () => {
        if (!resumeOnStart) return;
        context.spawn('cetp-resume', async () => {
          resumed.push(...(await bridge.resumePending()));
        });
      },
    };
  };
}

/** The bridge of the consumer process `context` belongs to. */
export function bridgeIn(context: AppContext): ExternalToolBridge {
  const app = context.process.app as Partial<ConsumerApp> | null;
  if (!app?.bridge)
    throw new Error(`${context.packageName} is not a consumer app (install it with consumerApp())`);
  return app.bridge;
}
