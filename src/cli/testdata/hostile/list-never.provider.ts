/**
 * A `--provider` module whose ContentProvider never answers list_tools (nor anything else): every
 * call returns a Promise that never settles (used by the tests). Its fixture declares nothing, so
 * effects and scopes must be read from list_tools — which never answers.
 */

import type { World } from 'cetp-sim';
import { CETP_PROVIDER, ContentProvider, providerPackage } from 'cetp-sim';

const PACKAGE = 'com.example.silent';
const AUTHORITY = 'com.example.silent.clawseed.tools';

class Silent extends ContentProvider {
  override call(): Promise<never> {
    return new Promise(() => {});
  }
}

export const providers = [
  {
    name: 'silent',
    packageName: PACKAGE,
    authority: AUTHORITY,
    install: (world: World) =>
      world.install(
        providerPackage({ packageName: PACKAGE, authority: AUTHORITY, versions: [2], cert: 'silent' }),
        () => ({
          providers: { [CETP_PROVIDER]: new Silent() },
        }),
      ),
    tools: { get_quote: [{ symbol: 'AAPL' }] },
    userGrantedScopes: [],
  },
];
