/**
 * Which vector kills which planted bug (`cetp-sim mutants --vectors`): the corpus runs
 * against each planted-bug variant of the reference apps; a vector that fails there sees the bug
 * from outside, as a device runner would. A planted bug only the simulation's ground truth can see
 * is listed with the reason, not counted as a survivor.
 */
import type { Mutant } from '../fuzz/mutants.ts';
import type { AndroidRelease } from '../sim/core/release.ts';
import { REFERENCE_FIXTURES } from './fixtures.ts';
import { PROFILES } from './format.ts';
import { type RunInput, runVectors } from './run.ts';

/** Planted bugs no observer outside the provider's process can see, and why. */
export const NOT_VISIBLE_FROM_OUTSIDE: Readonly<Record<string, string>> = {
  'provider-fd-leak':
    "the leaked fd is the provider's own copy inside its process; only the simulation's CloseGuard sees it",
};

export interface KillRow {
  readonly id: string;
  readonly component: 'provider' | 'consumer';
  readonly rules: readonly string[];
  readonly killedBy: readonly string[];
  readonly invisible: string | null;
}

export async function killMatrix(
  files: readonly RunInput[],
  mutants: readonly Mutant[],
  blob: (sha256: string) => Uint8Array,
  android?: AndroidRelease,
): Promise<KillRow[]> {
  const rows: KillRow[] = [];
  for (const mutant of mutants) {
    const summary = await runVectors(files, {
      fixtures: REFERENCE_FIXTURES,
      profiles: PROFILES,
      variant: android === undefined ? mutant.variant : { ...mutant.variant, android },
      blob,
    });
    rows.push({
      id: mutant.id,
      component: mutant.component,
      rules: mutant.ruleIds,
      killedBy: summary.outcomes.filter((o) => o.status === 'fail').map((o) => o.id),
      invisible: NOT_VISIBLE_FROM_OUTSIDE[mutant.id] ?? null,
    });
  }
  return rows;
}
