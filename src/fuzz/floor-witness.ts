/**
 * Witnesses of reach verdicts: a property's floor (src/fuzz/suite-kit.ts `floorsOf`) says what share
 * of a campaign's runs must reach a situation — an attack, a clock crossing, a follow-up after a
 * lifecycle event, a race (labels of src/check/frequencies.ts). A campaign below a floor passes, but
 * says too little; its verdict `floor-not-met` carries the run that shows the mechanism best:
 *
 * - when some runs reached the label, the shortest of them (how it is reached: the replay shows it);
 * - when none did, the run that came closest: the one that reached the label sharing the longest
 *   prefix with it (`clock:grant:before` for `clock:grant:after`: the bound was met from the other
 *   side; `after:restart:session` for `after:restart:poll`: the event happened, the follow-up did
 *   not), then the shortest; a run that reached nothing near it is no witness.
 *
 * The replay of a witness (ReplayFile.floor) runs it again and judges it by the same measure: the
 * label reached, or the nearest label reached (src/fuzz/fuzz.ts replayScenario).
 */
import type { CheckContext, Violation } from '../check/checker.ts';
import { type Frequencies, floorGaps, runLabels } from '../check/frequencies.ts';
import type { Observation } from '../check/observation.ts';

export const FLOOR_NOT_MET = 'floor-not-met';

/** What a floor witness's replay file records of the campaign's verdict. */
export interface FloorVerdict {
  readonly label: string;
  /** The floor (share of runs) and the share the campaign reached. */
  readonly floor: number;
  readonly share: number;
  /** Runs that reached the label, of `runs`. */
  readonly count: number;
  readonly runs: number;
}

const PARTS = /[:+]/;

/** A run's nearness to a label: how many leading parts (split at `:` and `+`) it shares with a label the run reached. */
export function nearness(
  label: string,
  reached: ReadonlySet<string>,
): { score: number; nearest: string | null } {
  return nearnessIn(label.split(PARTS), reached, label, partsOf(reached));
}

/** The labels a run reached, in sort() order, each with its parts: made once per run for every floor. */
function partsOf(reached: ReadonlySet<string>): readonly (readonly [string, readonly string[]])[] {
  return [...reached].sort().map((other) => [other, other.split(PARTS)] as const);
}

function nearnessIn(
  parts: readonly string[],
  reached: ReadonlySet<string>,
  label: string,
  others: readonly (readonly [string, readonly string[]])[],
): { score: number; nearest: string | null } {
  if (reached.has(label)) return { score: parts.length + 1, nearest: label };
  let best = { score: 0, nearest: null as string | null };
  for (const [other, theirs] of others) {
    let n = 0;
    while (n < parts.length && parts[n] === theirs[n]) n++;
    if (n > best.score) best = { score: n, nearest: other };
  }
  return best;
}

interface Candidate<S> {
  readonly scenario: S;
  readonly score: number;
  readonly length: number;
}

/** The best witness so far of each floored label of a campaign (the first seen on a tie). */
export class FloorWitnesses<S> {
  private readonly best = new Map<string, Candidate<S>>();
  /** Each floored label with its parts (split once: a campaign asks for every run). */
  private readonly labels: readonly (readonly [string, readonly string[]])[];

  constructor(private readonly floors: Readonly<Record<string, number>>) {
    this.labels = Object.keys(floors).map((label) => [label, label.split(PARTS)] as const);
  }

  /** Takes a run (and gives its labels back, for the campaign's tally). */
  add(scenario: S, run: { readonly observation: Observation; readonly context: CheckContext }): Set<string> {
    const reached = runLabels(run.observation, run.context);
    this.addLabels(scenario, reached, run.observation.events.length);
    return reached;
  }

  /** Takes a run's labels and trace length. */
  addLabels(scenario: S, reached: ReadonlySet<string>, length: number): void {
    if (this.labels.length === 0) return;
    const others = partsOf(reached);
    for (const [label, parts] of this.labels) {
      const { score } = nearnessIn(parts, reached, label, others);
      const old = this.best.get(label);
      if (score > 0 && (!old || score > old.score || (score === old.score && length < old.length)))
        this.best.set(label, { scenario, score, length });
    }
  }

  /** Per floor the campaign missed: its verdict and the witness scenario (labels without one left out). */
  missed(f: Frequencies): { verdict: FloorVerdict; scenario: S }[] {
    return floorGaps(f, this.floors).flatMap((gap) => {
      const witness = this.best.get(gap.label);
      if (!witness) return [];
      const count = f.counts[gap.label] ?? 0;
      return [{ verdict: { ...gap, count, runs: f.runs }, scenario: witness.scenario }];
    });
  }
}

/** The verdict, judged again on one run (its labels): the campaign's figures and what this run shows. */
export function floorViolation(v: FloorVerdict, reached: ReadonlySet<string>): Violation {
  const { nearest } = nearness(v.label, reached);
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const run =
    nearest === v.label
      ? `this run reaches it (the shortest that did): the replay shows how`
      : nearest !== null
        ? `no run reached it; this run came closest: it reaches ${nearest}`
        : 'this run reaches nothing near it (the code has changed since it was recorded)';
  return {
    checker: FLOOR_NOT_MET,
    ruleIds: [],
    class: 'liveness',
    message: `the campaign reached ${v.label} in ${v.count} of ${v.runs} runs (${pct(v.share)}), below its floor of ${pct(v.floor)}: its verdicts say too little about it; ${run}`,
    events: [],
    calls: [],
  };
}

/** A file-name-safe form of a label: `attack:foreign-session` → `attack-foreign-session`. */
export function labelSlug(label: string): string {
  return label.replace(/[^a-zA-Z0-9-]+/g, '-');
}
