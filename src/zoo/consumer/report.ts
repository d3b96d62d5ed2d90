/**
 * The consumer zoo's figures from its raw report (run.ts): false alarms over the generated correct
 * consumers (with their replay files), and per mistake how many (consumer, mistake) pairs were
 * caught, by which oracle, and which were missed with what would be needed. Deterministic: ordered
 * by consumer index and catalogue order, no time.
 */
import { CONSUMER_MISTAKES } from './mistakes.ts';
import type { ConsumerFalseAlarm, ConsumerPair, ConsumerZooReport } from './run.ts';

export interface ConsumerMistakeFigures {
  readonly id: string;
  readonly title: string;
  readonly rules: readonly string[];
  readonly needs: string;
  readonly applied: number;
  readonly caught: number;
  readonly missed: number;
  readonly excluded: number;
  readonly rate: number | null;
  readonly by: Readonly<Record<string, number>>;
  readonly missedConsumers: readonly number[];
}

export interface ConsumerZooSummary {
  readonly zoo: 'consumers';
  readonly seed: number;
  readonly runs: number | null;
  /** The multiple of each property's CI budget the mistake hunts ran at. */
  readonly mistakeBudget: number;
  readonly properties: readonly string[];
  readonly consumers: number;
  readonly consumersPassed: number;
  readonly vacuous: readonly { readonly consumer: number; readonly property: string }[];
  readonly falseAlarms: readonly ConsumerFalseAlarm[];
  /** The replay file of each false alarm (with the consumer module its command names). */
  readonly replays: readonly string[];
  readonly mistakes: readonly ConsumerMistakeFigures[];
  readonly pairs: { readonly judged: number; readonly caught: number; readonly rate: number | null };
}

const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000);
const ORDER = new Map(CONSUMER_MISTAKES.map((m, i) => [m.id, i]));

/** Joins the reports of shards of one consumer zoo (same seed, properties and runs), in index order. */
export function mergeConsumerReports(reports: readonly ConsumerZooReport[]): ConsumerZooReport {
  const [first] = reports;
  if (!first) throw new Error('no reports to merge');
  const byIndex = <T extends { consumer: number }>(xs: T[]) => xs.sort((a, b) => a.consumer - b.consumer);
  return {
    ...first,
    consumers: reports.flatMap((r) => r.consumers).sort((a, b) => a - b),
    verdicts: byIndex(reports.flatMap((r) => [...r.verdicts])),
    falseAlarms: byIndex(reports.flatMap((r) => [...r.falseAlarms])),
    pairs: reports
      .flatMap((r) => [...r.pairs])
      .sort((a, b) => (ORDER.get(a.mistake) ?? 0) - (ORDER.get(b.mistake) ?? 0) || a.consumer - b.consumer),
  };
}

function figuresOf(id: string, pairs: readonly ConsumerPair[]): ConsumerMistakeFigures {
  const m = CONSUMER_MISTAKES.find((x) => x.id === id);
  const own = pairs.filter((p) => p.mistake === id);
  const caught = own.filter((p) => p.verdict === 'caught');
  const missed = own.filter((p) => p.verdict === 'missed');
  const by: Record<string, number> = {};
  for (const p of caught) if (p.by !== null) by[p.by] = (by[p.by] ?? 0) + 1;
  return {
    id,
    title: m?.title ?? id,
    rules: m?.rules ?? [],
    needs: m?.needs ?? '',
    applied: own.length,
    caught: caught.length,
    missed: missed.length,
    excluded: own.length - caught.length - missed.length,
    rate: ratio(caught.length, caught.length + missed.length),
    by: Object.fromEntries(Object.entries(by).sort(([a], [b]) => (a < b ? -1 : 1))),
    missedConsumers: missed.map((p) => p.consumer),
  };
}

export function summarizeConsumers(report: ConsumerZooReport): ConsumerZooSummary {
  const mistakes = [...new Set(report.pairs.map((p) => p.mistake))].map((id) => figuresOf(id, report.pairs));
  const judged = mistakes.reduce((n, m) => n + m.caught + m.missed, 0);
  const caught = mistakes.reduce((n, m) => n + m.caught, 0);
  const failed = new Set(report.falseAlarms.map((a) => a.consumer));
  return {
    zoo: 'consumers',
    seed: report.seed,
    runs: report.runs,
    mistakeBudget: report.mistakeBudget,
    properties: report.properties,
    consumers: report.consumers.length,
    consumersPassed: report.consumers.filter((c) => !failed.has(c)).length,
    vacuous: report.verdicts.flatMap((v) =>
      Object.entries(v.statuses)
        .filter(([, s]) => s === 'vacuous')
        .map(([property]) => ({ consumer: v.consumer, property })),
    ),
    falseAlarms: report.falseAlarms,
    replays: report.falseAlarms.flatMap((a) => (a.replay === null ? [] : [a.replay])),
    mistakes,
    pairs: { judged, caught, rate: ratio(caught, judged) },
  };
}

/** The text report's lines; `warn` marks a false alarm or a mistake with misses. */
export function consumerZooLines(s: ConsumerZooSummary): { text: string; warn: boolean }[] {
  const lines = [
    {
      text: `cetp-sim zoo --consumers: ${s.consumers} generated consumer(s), seed ${s.seed}, properties ${s.properties.join(', ')}`,
      warn: false,
    },
    {
      text: `  correct consumers passing every property: ${s.consumersPassed}/${s.consumers}; vacuous (consumer, property): ${s.vacuous.length}`,
      warn: false,
    },
    ...s.falseAlarms.map((a) => ({
      text: `  FALSE ALARM consumer ${a.consumer} ${a.property}: ${a.checkers.join(', ')} — ${a.replayCommand ?? 'no replay written'}`,
      warn: true,
    })),
  ];
  if (s.mistakes.length === 0) return lines;
  for (const m of s.mistakes) {
    const rate = m.rate === null ? '—' : `${Math.round(m.rate * 100)}%`;
    lines.push({
      text: `  ${m.id.padEnd(34)} ${String(m.caught).padStart(3)}/${String(m.caught + m.missed).padEnd(3)} ${rate.padStart(4)}  ${Object.keys(m.by).join(', ') || m.needs}`,
      warn: m.missed > 0,
    });
  }
  const rate = s.pairs.rate === null ? '—' : `${Math.round(s.pairs.rate * 1000) / 10}%`;
  lines.push({
    text: `  (consumer, mistake) pairs caught: ${s.pairs.caught}/${s.pairs.judged} (${rate}) at CI × ${s.mistakeBudget}`,
    warn: false,
  });
  return lines;
}
