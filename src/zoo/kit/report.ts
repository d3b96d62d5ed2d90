/**
 * What the app zoo's figures (../report.ts) and the consumer zoo's (../consumer/report.ts) share:
 * joining the raw reports of shards, one mistake's tally, and the vacuous (subject, property) pairs.
 * Deterministic: subjects in index order, pairs in catalogue order; objects keep the field order
 * the JSON reports print.
 */
import type { Indexed, MistakeVerdict, ZooPair, ZooVerdict } from './run.ts';

/** `a / b` to three decimals, or null when nothing was judged. */
export const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000);

/** One mistake's figures, as both zoos print them. */
export interface MistakeTally {
  readonly applied: number;
  readonly caught: number;
  readonly missed: number;
  readonly excluded: number;
  /** Caught / (caught + missed), or null when nothing was judged. */
  readonly rate: number | null;
  /** How many pairs each `property/checker` (or `fixture:<code>`, `invalid:<code>`) caught. */
  readonly by: Readonly<Record<string, number>>;
}

interface ShardReport<K extends string> {
  readonly verdicts: readonly ZooVerdict<K>[];
  readonly falseAlarms: readonly Indexed<K>[];
  readonly pairs: readonly ZooPair<K>[];
}

/**
 * Joins the reports of shards of one zoo (same seed, properties and runs): the subjects listed
 * under `subjects`, verdicts and false alarms by the subject's index `key`, pairs in the order of
 * the mistakes' `catalogue`.
 */
export function mergeShards<K extends string, R extends ShardReport<K>>(
  reports: readonly R[],
  subjects: keyof R & string,
  key: K,
  catalogue: readonly { readonly id: string }[],
): R {
  const [first] = reports;
  if (!first) throw new Error('no reports to merge');
  const order = new Map(catalogue.map((m, i) => [m.id, i]));
  const byIndex = <T extends Indexed<K>>(xs: T[]) => xs.sort((a, b) => a[key] - b[key]);
  return {
    ...first,
    [subjects]: reports.flatMap((r) => r[subjects] as readonly number[]).sort((a, b) => a - b),
    verdicts: byIndex(reports.flatMap((r) => [...r.verdicts])),
    falseAlarms: byIndex(reports.flatMap((r) => [...r.falseAlarms])),
    pairs: reports
      .flatMap((r) => [...r.pairs])
      .sort((a, b) => (order.get(a.mistake) ?? 0) - (order.get(b.mistake) ?? 0) || a[key] - b[key]),
  };
}

/** Each mistake named in the pairs (in order of first appearance): its catalogue entry, tally and misses. */
export function tallyMistakes<P extends MistakeVerdict, M extends { readonly id: string }>(
  pairs: readonly P[],
  catalogue: readonly M[],
) {
  return [...new Set(pairs.map((p) => p.mistake))].map((id) => {
    const own = pairs.filter((p) => p.mistake === id);
    const caught = own.filter((p) => p.verdict === 'caught');
    const missed = own.filter((p) => p.verdict === 'missed');
    const by: Record<string, number> = {};
    for (const p of caught) if (p.by !== null) by[p.by] = (by[p.by] ?? 0) + 1;
    const tally: MistakeTally = {
      applied: own.length,
      caught: caught.length,
      missed: missed.length,
      excluded: own.length - caught.length - missed.length,
      rate: ratio(caught.length, caught.length + missed.length),
      by: Object.fromEntries(Object.entries(by).sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    return { id, mistake: catalogue.find((m) => m.id === id), tally, missed };
  });
}

/** Pairs judged (caught or missed) and caught over all the mistakes' tallies, and the rate. */
export function pairFigures(tallies: readonly MistakeTally[]) {
  const judged = tallies.reduce((n, m) => n + m.caught + m.missed, 0);
  const caught = tallies.reduce((n, m) => n + m.caught, 0);
  return { judged, caught, rate: ratio(caught, judged) };
}

/** The (subject, property) pairs that exercised nothing of the subject. */
export function vacuousPairs<K extends string>(verdicts: readonly ZooVerdict<K>[], key: K) {
  return verdicts.flatMap((v) =>
    Object.entries(v.statuses)
      .filter(([, s]) => s === 'vacuous')
      .map(([property]) => ({ [key]: v[key], property }) as Indexed<K> & { readonly property: string }),
  );
}
