/**
 * The consumer zoo's figures from its raw report (run.ts): false alarms over the generated correct
 * consumers (with their replay files), and per mistake how many (consumer, mistake) pairs were
 * caught, by which oracle, and which were missed with what would be needed. Deterministic: ordered
 * by consumer index and catalogue order, no time.
 */

import { type MistakeTally, mergeShards, pairFigures, tallyMistakes, vacuousPairs } from '../kit/report.ts';
import { CONSUMER_MISTAKES } from './mistakes.ts';
import type { ConsumerFalseAlarm, ConsumerZooReport } from './run.ts';

export interface ConsumerMistakeFigures extends MistakeTally {
  readonly id: string;
  readonly title: string;
  readonly rules: readonly string[];
  readonly needs: string;
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

/** Joins the reports of shards of one consumer zoo (same seed, properties and runs), in index order. */
export function mergeConsumerReports(reports: readonly ConsumerZooReport[]): ConsumerZooReport {
  return mergeShards(reports, 'consumers', 'consumer', CONSUMER_MISTAKES);
}

export function summarizeConsumers(report: ConsumerZooReport): ConsumerZooSummary {
  const mistakes = tallyMistakes(report.pairs, CONSUMER_MISTAKES).map(
    ({ id, mistake: m, tally, missed }): ConsumerMistakeFigures => ({
      id,
      title: m?.title ?? id,
      rules: m?.rules ?? [],
      needs: m?.needs ?? '',
      ...tally,
      missedConsumers: missed.map((p) => p.consumer),
    }),
  );
  const failed = new Set(report.falseAlarms.map((a) => a.consumer));
  return {
    zoo: 'consumers',
    seed: report.seed,
    runs: report.runs,
    mistakeBudget: report.mistakeBudget,
    properties: report.properties,
    consumers: report.consumers.length,
    consumersPassed: report.consumers.filter((c) => !failed.has(c)).length,
    vacuous: vacuousPairs(report.verdicts, 'consumer'),
    falseAlarms: report.falseAlarms,
    replays: report.falseAlarms.flatMap((a) => (a.replay === null ? [] : [a.replay])),
    mistakes,
    pairs: pairFigures(mistakes),
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
