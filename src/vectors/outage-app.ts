/**
 * The `outage` fixture: a provider whose backend is down. Its one tool, `sync_inbox`, always fails
 * with UNAVAILABLE (retryable, CETP-5-23) — the deterministic stand-in for a transient outage, so a
 * vector can see how an SDK reports a tool's temporary failure. It allows every caller.
 */
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { providerOptions } from '../fuzz/scenario/fixtures.ts';
import { CETP_PROVIDER, providerPackage } from '../providers/sdk/manifest.ts';
import { CetpV2ContentProvider, type ProviderConfig } from '../providers/sdk/provider.ts';
import { type AccessDecision, type ProviderOptions, ToolFailure } from '../providers/sdk/types.ts';
import { readTool } from '../providers/testing.ts';

export const OUTAGE_PACKAGE = 'com.example.outage';
export const OUTAGE_AUTHORITY = 'com.example.outage.clawseed.tools';

const syncInbox = readTool('sync_inbox', () => {
  throw new ToolFailure('UNAVAILABLE', 'The mail server is unreachable; try again shortly.');
});

class OutageProvider extends CetpV2ContentProvider {
  constructor(private readonly options: Partial<ProviderOptions>) {
    super();
  }
  protected override config(): ProviderConfig {
    return {
      descriptor: {
        providerId: OUTAGE_PACKAGE,
        providerName: 'Outage',
        description: 'A provider whose backend is unreachable',
        scopes: [],
      },
      tools: [syncInbox],
      options: { versions: [2], ...this.options },
    };
  }
  protected override authorize(): AccessDecision {
    return { kind: 'allow' };
  }
}

export const OUTAGE: ProviderFixture = {
  name: 'outage',
  packageName: OUTAGE_PACKAGE,
  authority: OUTAGE_AUTHORITY,
  install: (world, variant) =>
    world.install(
      providerPackage({ packageName: OUTAGE_PACKAGE, authority: OUTAGE_AUTHORITY, versions: [2] }),
      () => ({
        providers: { [CETP_PROVIDER]: new OutageProvider(providerOptions(variant)) },
      }),
    ),
  tools: { sync_inbox: [{}] },
  effects: { sync_inbox: 'read' },
  scopes: { sync_inbox: [] },
  userGrantedScopes: [],
};
