/**
 * The property catalogue as the public API shows it: each property's id, what it covers, the spec
 * §9 area, the rule ids it guards, the oracles (checkers) that judge it with their own rule ids, and
 * what it drives — the raw protocol driver (provider properties) or a consumer (consumer properties).
 * The definitions themselves live in src/fuzz/suites.ts; this is a read-only view of them.
 */
import { MUTANTS, type PlantedBugInfo } from '../fuzz/mutants.ts';
import { PROPERTIES as DEFS, type PropertyDef } from '../fuzz/suites.ts';

export interface PropertyInfo {
  readonly id: string;
  readonly title: string;
  /** The spec §9 conformance area it covers (a rule id). */
  readonly area: string;
  /** Every rule id it guards: its oracles' rules plus its area. */
  readonly ruleIds: readonly string[];
  /** The oracles that judge each run, with the rule ids each guards. */
  readonly checkers: readonly { readonly id: string; readonly ruleIds: readonly string[] }[];
  /**
   * `raw`: scenarios drive the providers with the raw (possibly misbehaving) protocol driver;
   * `consumer`: scenarios drive a consumer (the reference one, or yours with fuzzConsumer).
   */
  readonly drives: 'raw' | 'consumer';
  /** Runs under cetp-sim's own `npm test`, and the harness's default `runs`. */
  readonly ciRuns: number;
}

export function propertyInfo(def: PropertyDef): PropertyInfo {
  return Object.freeze({
    id: def.id,
    title: def.title,
    area: def.area,
    ruleIds: def.ruleIds,
    checkers: def.checkers.map((c) => ({ id: c.id, ruleIds: c.ruleIds })),
    drives: def.kind,
    ciRuns: def.ciRuns,
  });
}

/** Every property `fuzzProvider` can run, in catalogue order; `fuzzConsumer` runs those that drive a consumer. */
export const PROPERTY_CATALOGUE: readonly PropertyInfo[] = Object.freeze(DEFS.map(propertyInfo));

export type { PlantedBugInfo };

/** Every planted bug, by id (the `mutant` option's values). */
export const PLANTED_BUGS: readonly PlantedBugInfo[] = Object.freeze(
  MUTANTS.map(({ variant: _switchedOnBy, ...info }): PlantedBugInfo => Object.freeze(info)),
);
