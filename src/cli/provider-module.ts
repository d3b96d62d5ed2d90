/**
 * `--provider MODULE`: fuzzing a user's own provider apps instead of the built-in reference apps.
 *
 * The module interface (named exports, or the same names on the default export):
 *
 *   export const providers: ProviderFixture[]   // one or more provider apps, see below
 *   export const propertyTools?: { [propertyId | 'default']: string[] | 'all' }   // optional, tools as 'name.tool'
 *
 * A ProviderFixture (src/subjects/subjects.ts; `defineProvider(...).fixture({ name, tools })` makes one;
 * checked by src/harness/subjects.ts) is
 *   name         a short id, [a-z][a-z0-9_]*, used in scenarios and replay files
 *   packageName  the Android package install() installs
 *   authority    the ContentProvider authority the CETP provider answers on
 *   install(world, variant)  installs the package into a fresh simulated World (world.install(spec,
 *                factory)); `variant` carries the planted bugs and ablated rules of --mutant, which
 *                the provider must receive (ProviderOptions.plantedBugs / disabledRules)
 *   tools        by tool name, a non-empty pool of JSON args values the fuzzer picks from
 *   userGrantedScopes  the scopes the provider grants only after the user agrees in its UI
 *   effects, scopes, confirmations, inputSchemas (optional) by tool name: read from the provider's
 *                own list_tools (src/check/fixture.ts); given here, they must agree with it
 *
 * Every property then runs against these providers — raw-driver and consumer-driven properties
 * alike: the generated scenarios call their tools (all of them, or the property's list in
 * `propertyTools`), the faults aimed at the reference apps' processes and Binder links are aimed at
 * the user's packages instead, and the property's oracles judge the user's packages as the
 * providers under test. (A consumer-driven property keeps its hostile provider, if it has one.)
 * The module is checked before any run: its shape, that install() installs the named package with
 * the named authority in a fresh world alongside the fuzzer's client apps, and that what it
 * declares agrees with its list_tools; with --mutant, that the planted bug reaches its provider.
 */

import { variantIgnored } from '../check/fixture.ts';
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import type { Variant } from '../fuzz/scenario/model.ts';
import { CliError } from '../harness/errors.ts';
import { checkProviderFixtures } from '../harness/subjects.ts';
import { exported, importUserModule, refuseEscapes } from './module-loader.ts';

export { retargetAll, UserModuleError, withProviders } from '../harness/subjects.ts';

export interface ProviderModule {
  readonly specifier: string;
  readonly providers: readonly ProviderFixture[];
  readonly propertyTools: Readonly<Record<string, readonly string[]>>;
}

export async function loadProviderModule(specifier: string, cwd: string): Promise<ProviderModule> {
  const module = await importUserModule('--provider', specifier, cwd);
  const fail = (message: string): never => {
    throw new CliError('invalid_provider_module', `--provider ${specifier}: ${message}`);
  };
  const raw = exported(module, ['providers']);
  if (!Array.isArray(raw) || raw.length === 0)
    fail("the module must export 'providers', a non-empty array of provider fixtures");
  const checked = await checkProviderFixtures(
    raw as unknown[],
    exported(module, ['propertyTools']),
    `--provider ${specifier}`,
    fail,
  );
  refuseEscapes('--provider', specifier, 'while cetp-sim checked it (install(), list_tools)');
  return { specifier, ...checked };
}

/**
 * Refuses a variant whose planted provider bugs would not reach the module's providers: `--mutant`
 * against a provider that ignores `variant.providerBugs` would otherwise test the unmutated provider
 * and pass, saying nothing.
 */
export async function checkVariantReaches(module: ProviderModule, variant: Variant): Promise<void> {
  for (const [i, p] of module.providers.entries()) {
    const why = await variantIgnored(p, variant);
    if (why !== null)
      throw new CliError(
        'mutant_not_planted',
        `--provider ${module.specifier}: providers[${i}] (${p.name}) cannot run planted bug(s) ${variant.providerBugs.join(', ')}: ${why}`,
      );
  }
}
