/**
 * Hunting planted bugs and ablated rules: the engines behind `cetp-sim mutants` and `cetp-sim ablate`.
 *
 * A mutant is hunted by its killer properties in order, each given a run budget, until one fails.
 * An ablation switches one enforcement point off by rule id (in provider and consumer alike) and
 * runs every property against it: the properties that fail are the ones that guard that rule.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isRuleId } from '../protocol/index.ts';
import type { AndroidRelease } from '../sim/core/release.ts';
import { fuzzProperty } from './fuzz.ts';
import type { Mutant } from './mutants.ts';
import type { Tail, Variant } from './scenario/model.ts';
import { PROPERTIES, type PropertyDef, propertyById } from './suites.ts';

export interface HuntOptions {
  readonly seed: number;
  /** Runs given to each killer property. */
  readonly runsPerProperty: number;
  readonly tails: readonly Tail[];
  /**
   * determinism-ok: a comment, not a call — wall-clock source for msToFailure (the CLI's text table and bench/ pass their monotonic clock; tests
   * pass nothing). Never part of `--json`: identical arguments must print identical bytes.
   */
  readonly now?: () => number;
  /** The Android release profile the worlds run (`--android`; src/sim/core/release.ts); absent: the default. */
  readonly android?: AndroidRelease;
  /**
   * false: a killer's first failing run is reported as found, not shrunk (fuzzProperty's `shrink`):
   * whether a bug is killed, and by which property, is the same; the checker named and the steps are
   * the unshrunk run's.
   */
  readonly shrink?: boolean;
}

/** `variant` on the profile of `options` (unchanged without one). */
function onProfile(variant: Variant, options: HuntOptions): Variant {
  return options.android === undefined ? variant : { ...variant, android: options.android };
}

/** The campaign options of one killer or ablated property under `options`. */
function campaignOf(variant: Variant, options: HuntOptions) {
  return {
    seed: options.seed,
    runs: options.runsPerProperty,
    tails: options.tails,
    variant: onProfile(variant, options),
    ...(options.shrink === false ? { shrink: false } : {}),
  };
}

export interface MutantResult {
  readonly id: string;
  readonly rules: readonly string[];
  readonly killed: boolean;
  readonly killedBy: string | null;
  readonly checker: string | null;
  readonly runsToFailure: number | null;
  readonly msToFailure: number | null;
  /** Scheduler steps of the shrunk failing run (the unshrunk one with `shrink: false`). */
  readonly shrunkSteps: number | null;
}

export async function huntMutant(mutant: Mutant, options: HuntOptions): Promise<MutantResult> {
  const started = options.now?.() ?? 0;
  let runs = 0;
  for (const id of mutant.killers) {
    const def = propertyById(id);
    if (!def) continue;
    const result = await fuzzProperty(def, campaignOf(mutant.variant, options));
    runs += result.runs;
    if (result.status === 'failed' && result.failure) {
      return {
        id: mutant.id,
        rules: mutant.ruleIds,
        killed: true,
        killedBy: id,
        checker: result.failure.replay.violations[0]?.checker ?? null,
        runsToFailure: runs,
        msToFailure: options.now ? Math.round(options.now() - started) : null,
        shrunkSteps: result.failure.run.report.steps,
      };
    }
  }
  return {
    id: mutant.id,
    rules: mutant.ruleIds,
    killed: false,
    killedBy: null,
    checker: null,
    runsToFailure: null,
    msToFailure: null,
    shrunkSteps: null,
  };
}

export interface AblationResult {
  readonly rule: string;
  /** Properties that failed with the rule switched off, with the first violated checker. */
  readonly caughtBy: readonly { property: string; checker: string | null; runsToFailure: number }[];
}

export async function ablateRule(
  rule: string,
  options: HuntOptions & { readonly properties?: readonly PropertyDef[] },
): Promise<AblationResult> {
  const caughtBy: { property: string; checker: string | null; runsToFailure: number }[] = [];
  for (const def of options.properties ?? PROPERTIES) {
    const ablated = { providerBugs: [], consumerBugs: [], disabledRules: [rule] };
    const result = await fuzzProperty(def, campaignOf(ablated, options));
    if (result.status === 'failed') {
      caughtBy.push({
        property: def.id,
        checker: result.failure?.replay.violations[0]?.checker ?? null,
        runsToFailure: result.runs,
      });
    }
  }
  return { rule, caughtBy };
}

/**
 * Rule ids that have an enforcement point that can be switched off: every `gates.on('CETP-…')` in
 * the provider SDK and the consumer, read from their sources so the list never drifts.
 */
export function ablatableRules(root: string): string[] {
  const found = new Set<string>();
  const scan = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) scan(path);
      else if (/\.[jt]s$/.test(entry) && !/\.(test|d)\.ts$/.test(entry)) {
        // .ts in a checkout, the compiled .js in an installed package (never tests or declarations)
        for (const call of readFileSync(path, 'utf8').matchAll(/gates\.on\(([^)]*)\)/g)) {
          for (const id of (call[1] ?? '').matchAll(/CETP-[\d.]+-\d{2}/g))
            if (isRuleId(id[0])) found.add(id[0]);
        }
      }
    }
  };
  for (const dir of ['src/providers/sdk', 'src/consumer']) {
    try {
      scan(join(root, dir));
    } catch {
      // a component that is not there has no enforcement points
    }
  }
  return [...found].sort();
}
