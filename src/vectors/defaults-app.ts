/**
 * The `defaults` fixture: a provider that keeps every SDK default — no authorization policy (the
 * SDK denies everything, CETP-10-01) and no mutation executor (its write tool is refused,
 * CETP-10-05). It exists so vectors can hold an SDK's defaults to the spec; a device suite builds it
 * with its own SDK, overriding nothing but the descriptor and the two tools.
 */
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { providerOptions } from '../fuzz/scenario/fixtures.ts';
import { CONFIRM_ACTIVITY } from '../providers/sdk/confirmations.ts';
import { CETP_PROVIDER, providerPackage } from '../providers/sdk/manifest.ts';
import { CetpV2ContentProvider, type ProviderConfig } from '../providers/sdk/provider.ts';
import type { ProviderOptions } from '../providers/sdk/types.ts';
import { readTool, writeTool } from '../providers/testing.ts';

export const DEFAULTS_PACKAGE = 'com.example.defaults';
export const DEFAULTS_AUTHORITY = 'com.example.defaults.clawseed.tools';

const TOOLS = [readTool('echo', (call) => ({ echo: call.args })), writeTool('add_note')];

class DefaultsProvider extends CetpV2ContentProvider {
  constructor(private readonly options: Partial<ProviderOptions>) {
    super();
  }
  protected override config(): ProviderConfig {
    return {
      descriptor: {
        providerId: DEFAULTS_PACKAGE,
        providerName: 'SDK defaults',
        description: 'A provider that overrides no SDK default',
        scopes: [],
      },
      tools: TOOLS,
      options: { versions: [2], ...this.options },
    };
  }
}

export const DEFAULTS: ProviderFixture = {
  name: 'defaults',
  packageName: DEFAULTS_PACKAGE,
  authority: DEFAULTS_AUTHORITY,
  install: (world, variant) =>
    world.install(
      providerPackage({ packageName: DEFAULTS_PACKAGE, authority: DEFAULTS_AUTHORITY, versions: [2] }),
      () => {
        const provider = new DefaultsProvider(providerOptions(variant));
        return {
          providers: { [CETP_PROVIDER]: provider },
          activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
        };
      },
    ),
  tools: { echo: [{}], add_note: [{}] },
  effects: { echo: 'read', add_note: 'create' },
  scopes: { echo: [], add_note: [] },
  userGrantedScopes: [],
};
