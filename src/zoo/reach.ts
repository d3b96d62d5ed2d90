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
  return { ownProcess: v.process, grantees: v.guard, secondUser: v.secondUser };
}

/** A confirmation screen comes up for most callers: a scope the user grants, or a create that asks. */
function confirmsOften(spec: AppSpec): boolean {
  return (
    spec.auth !== 'free-all' || spec.tools.some((t) => t.kind === 'create' && t.confirmation !== 'never')
  );
}

const CONFIRMING_KILL = 'app:own-process-killed-confirming';

/** The floors of `property`'s campaigns against `spec`'s app. */
export function reachFloors(spec: AppSpec, property: string): Record<string, number> {
  const def = PROPERTIES.find((d) => d.id === property);
  return def ? appReachFloors(def, reachOf(spec)) : {};
}

/**
 * `property/label share < floor` for each floor of the app's variants a campaign missed; and, for an
 * app with its own provider process most of whose callers meet a confirmation, `campaigns/<label> 0
 * runs` when no run of any campaign killed that process while a confirmation was up (too rare for
 * a floor per property: 0–4 runs of 40 in `confirmation`, 0–3 in `lifecycle`, on apps of seed 1).
 */
export function reachGaps(
  spec: AppSpec,
  campaigns: readonly { readonly id: string; readonly frequencies: Frequencies }[],
): string[] {
  const gaps = campaigns.flatMap((p) =>
    floorGaps(p.frequencies, reachFloors(spec, p.id)).map(
      (g) => `${p.id}/${g.label} ${g.share} < ${g.floor}`,
    ),
  );
  const killed = campaigns.reduce((n, p) => n + (p.frequencies.counts[CONFIRMING_KILL] ?? 0), 0);
  if (reachOf(spec).ownProcess && confirmsOften(spec) && killed === 0)
    gaps.push(`campaigns/${CONFIRMING_KILL} 0 runs`);
  return gaps;
}
