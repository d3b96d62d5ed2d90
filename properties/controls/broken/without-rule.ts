/**
 * NOT a control: builds deliberately broken `--provider` fixtures for the oracles' own tests — a
 * reference app that lacks one enforcement point, as a provider written without that check would.
 * Each module beside this one names the app, the rule id it drops and the oracle that must fail it
 * (properties/controls/provider-oracles.test.ts).
 */
import type { ProviderFixture } from '../../../src/fuzz/scenario/fixtures.ts';

/** `fixture`'s app, installed with the enforcement of `ruleId` switched off (and its name changed). */
export function withoutRule(fixture: ProviderFixture, name: string, ruleId: string): ProviderFixture {
  return {
    ...fixture,
    name,
    install: (world, variant) =>
      fixture.install(world, { ...variant, disabledRules: [...variant.disabledRules, ruleId] }),
  };
}
