/**
 * What a generated app's manifest variants (variants.ts) must make the fuzzer reach, and whether a
 * campaign did: the `app:` frequency labels (src/check/app-labels.ts) each variant offers, their
 * floors per property (src/fuzz/suite-kit.ts `appReachFloors`), and the floors a report's campaigns
 * missed. The zoo's report lists them per app (`belowFloor`); src/zoo/manifest-variants.test.ts
 * fails when a floor is not met.
 */
import { type Frequencies, floorGaps } from '../check/frequencies.ts';
import { type AppReach, appReachFloors } from '../fuzz/suite-kit.ts';
import { PROPERTIES } from '../fuzz/suites.ts';
import type { AppSpec } from './spec.ts';
import { NO_VARIANT } from './variants.ts';

/** What an app's variants offer the fuzzer. */
export function reachOf(spec: AppSpec): AppReach {
  const v = spec.manifest ?? NO_VARIANT;
  // A confirmation screen comes up for most callers: a scope the user grants, or a create that asks.
  const confirmsOften =
    spec.auth !== 'free-all' || spec.tools.some((t) => t.kind === 'create' && t.confirmation !== 'never');
  return { ownProcess: v.process, grantees: v.guard, secondUser: v.secondUser, confirmsOften };
}

/** The floors of `property`'s campaigns against `spec`'s app. */
export function reachFloors(spec: AppSpec, property: string): Record<string, number> {
  const def = PROPERTIES.find((d) => d.id === property);
  return def ? appReachFloors(def, reachOf(spec)) : {};
}

/** `property/label share < floor` for each floor of the app's variants a campaign missed. */
export function reachGaps(
  spec: AppSpec,
  campaigns: readonly { readonly id: string; readonly frequencies: Frequencies }[],
): string[] {
  return campaigns.flatMap((p) =>
    floorGaps(p.frequencies, reachFloors(spec, p.id)).map(
      (g) => `${p.id}/${g.label} ${g.share} < ${g.floor}`,
    ),
  );
}
