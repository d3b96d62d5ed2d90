/**
 * What the vectors' own provider fixtures (defaults-app.ts, outage-app.ts) share: a v2-only app
 * under its own package whose provider is the SDK's, assembled from a descriptor and tools
 * (providers/testing.ts's TestToolProvider), every tool called with `{}` and needing no scope.
 */
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { providerOptions } from '../fuzz/scenario/fixtures.ts';
import { CONFIRM_ACTIVITY } from '../providers/sdk/confirmations.ts';
import { CETP_PROVIDER, providerPackage } from '../providers/sdk/manifest.ts';
import { CetpV2ContentProvider } from '../providers/sdk/provider.ts';
import type { ProviderTool } from '../providers/sdk/types.ts';
import { type TestProviderSpec, TestToolProvider } from '../providers/testing.ts';

export interface VectorFixtureSpec {
  readonly name: string;
  readonly packageName: string;
  readonly authority: string;
  readonly providerName: string;
  readonly description: string;
  readonly tools: readonly ProviderTool[];
  /** The app's policy: the SDK's default (deny everything, 10-01), or allow every caller. */
  readonly authorization: 'sdk-default' | 'allow-all';
  /** Whether the app carries the SDK's confirmation Activity. */
  readonly confirmationActivity: boolean;
}

export function vectorFixture(spec: VectorFixtureSpec): ProviderFixture {
  const { packageName, authority } = spec;
  const provider: TestProviderSpec = {
    tools: spec.tools,
    descriptor: {
      providerId: packageName,
      providerName: spec.providerName,
      description: spec.description,
      scopes: [],
    },
    versions: [2],
    // No mutation executor: a write tool is refused (10-05).
    executor: null,
    sdkDefaultAuthorization: spec.authorization === 'sdk-default',
  };
  const names = spec.tools.map((t) => t.name);
  return {
    name: spec.name,
    packageName,
    authority,
    install: (world, variant) =>
      world.install(providerPackage({ packageName, authority, versions: [2] }), () => {
        const app = new TestToolProvider({ ...provider, options: providerOptions(variant) });
        const confirm = { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => app) };
        return {
          providers: { [CETP_PROVIDER]: app },
          ...(spec.confirmationActivity ? { activities: confirm } : {}),
        };
      }),
    tools: Object.fromEntries(names.map((n) => [n, [{}]])),
    effects: Object.fromEntries(spec.tools.map((t) => [t.name, t.annotations.effect])),
    scopes: Object.fromEntries(names.map((n) => [n, []])),
    userGrantedScopes: [],
  };
}
