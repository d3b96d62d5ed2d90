/**
 * Deliberately broken providers, written as a user would write a `--provider` module: the reference
 * alerts tools with their handlers replaced by one misbehaviour each (throws, spins, deadlocks, never
 * resolves, blocks the thread), or a bare ContentProvider that answers nothing useful. The honest-
 * verdict tests (src/cli/broken-modules.test.ts) fuzz each one and require every property that calls
 * it to fail with a reason: a test bed that passes any of them cannot be trusted with a green run.
 */

import type { JsonValue } from '../../../base/json.ts';
import type { ProviderFixture } from '../../../fuzz/scenario/fixtures.ts';
import { ALERTS } from '../../../fuzz/scenario/fixtures.ts';
import { ALERT_TOOLS } from '../../../providers/apps/alerts.ts';
import { CONFIRM_ACTIVITY } from '../../../providers/sdk/confirmations.ts';
import { ScopeGrantPolicy } from '../../../providers/sdk/grants.ts';
import { CETP_PROVIDER, providerPackage } from '../../../providers/sdk/manifest.ts';
import { CetpV2ContentProvider, type ProviderConfig } from '../../../providers/sdk/provider.ts';
import {
  type AccessDecision,
  type AuthorizationRequest,
  type CetpProviderDescriptor,
  durableMutationExecutor,
  isReadTool,
  type MutationExecutor,
  type ProviderTool,
  type ToolCall,
} from '../../../providers/sdk/types.ts';
import type { Bundle } from '../../../sim/binder/bundle.ts';
import { ContentProvider } from '../../../sim/content/content-provider.ts';

export const BROKEN_PACKAGE = 'com.example.broken';
export const BROKEN_AUTHORITY = 'com.example.broken.clawseed.tools';

/** What a broken handler does instead of its work (`tool` is the tool it replaces). */
export type Misbehaviour = (call: ToolCall, tool: ProviderTool) => Promise<JsonValue>;

const DESCRIPTOR: CetpProviderDescriptor = {
  providerId: BROKEN_PACKAGE,
  providerName: 'Broken App',
  description: 'A provider whose tools misbehave',
  scopes: [
    {
      name: 'alerts.read',
      title: 'Read',
      description: 'Read alerts',
      access: 'read',
      sensitivity: 'financial',
    },
    {
      name: 'alerts.write',
      title: 'Write',
      description: 'Write alerts',
      access: 'write',
      sensitivity: 'financial',
    },
  ],
};

function broken(tool: ProviderTool, misbehave: Misbehaviour): ProviderTool {
  if (isReadTool(tool)) return { ...tool, read: (call) => misbehave(call, tool) };
  return { ...tool, mutate: (call) => misbehave(call, tool) };
}

class BrokenToolProvider extends CetpV2ContentProvider {
  private readonly policy = new ScopeGrantPolicy({
    freeScopes: ['alerts.read'],
    grantableScopes: ['alerts.write'],
  });

  constructor(private readonly tools: readonly ProviderTool[]) {
    super();
  }

  protected override config(): ProviderConfig {
    return { descriptor: DESCRIPTOR, tools: this.tools, options: {} };
  }

  protected override mutationExecutor(): MutationExecutor {
    return durableMutationExecutor(this.context);
  }

  protected override authorize(request: AuthorizationRequest): Promise<AccessDecision> {
    return this.policy.authorize(request);
  }
}

const PACKAGE = providerPackage({
  packageName: BROKEN_PACKAGE,
  authority: BROKEN_AUTHORITY,
  versions: [2],
  cert: 'broken',
});

/** A fixture of the alerts tools, every handler replaced by `misbehave` (null: the tools as they are). */
export function brokenTools(misbehave: Misbehaviour | null): ProviderFixture {
  const tools = ALERT_TOOLS.map((t) => (misbehave ? broken(t, misbehave) : t));
  return {
    ...ALERTS,
    name: 'broken',
    packageName: BROKEN_PACKAGE,
    authority: BROKEN_AUTHORITY,
    install: (world) =>
      world.install(PACKAGE, () => {
        const provider = new BrokenToolProvider(tools);
        return {
          providers: { [CETP_PROVIDER]: provider },
          activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
        };
      }),
  };
}

/** A fixture whose provider is a bare ContentProvider answering every call with `answer`. */
export function bareProvider(
  answer: (method: string, extras: Bundle | null) => Bundle | null,
): ProviderFixture {
  class Bare extends ContentProvider {
    override call(_authority: string, method: string, _arg: string | null, extras: Bundle | null) {
      return answer(method, extras);
    }
  }
  return {
    ...ALERTS,
    name: 'broken',
    packageName: BROKEN_PACKAGE,
    authority: BROKEN_AUTHORITY,
    install: (world) => world.install(PACKAGE, () => ({ providers: { [CETP_PROVIDER]: new Bare() } })),
  };
}
