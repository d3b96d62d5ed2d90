/**
 * The consumer zoo's runner: fuzzes each generated correct consumer with every consumer-driven
 * property at the CI budget (the public `fuzzConsumer`, the CLI's engine) — any failure is a false
 * alarm, recorded with the consumer's description, property, checkers, seed and replay (the replay
 * file and a `--consumer` module under `out`) — then applies each mistake of the catalogue to the
 * consumers it fits and fuzzes the changed consumer until a property catches it (its likely killers
 * first). A pair whose correct consumer failed is excluded. Deterministic: no time in the report,
 * consumers in index order.
 */

import { fileURLToPath } from 'node:url';
import { CliError, fuzzConsumer, PROPERTY_CATALOGUE } from '../../index.ts';
import * as kit from '../kit/run.ts';
import { buildConsumer } from './build.ts';
import { type ConsumerSpec, generateConsumer } from './generate.ts';
import { CONSUMER_MISTAKES, type ConsumerMistake, consumerMistakeById } from './mistakes.ts';

/** The consumer-driven properties, in catalogue order. */
export const CONSUMER_PROPERTIES: readonly string[] = PROPERTY_CATALOGUE.filter(
  (p) => p.drives === 'consumer',
).map((p) => p.id);

export interface ConsumerZooOptions extends kit.ZooBaseOptions {
  readonly consumers: number;
  /**
   * Mistake hunts run each property at this multiple of its CI budget (default 1; `npx cetp-sim
   * fuzz` runs CI × 5 by default). Correct consumers are always judged at the CI budget (or `runs`).
   */
  readonly mistakeBudget?: number;
  /** Each mistake is applied to the first this-many consumers it fits (default: every one). */
  readonly mistakeConsumers?: number;
  /**
   * A mistake id planted in every "correct" consumer: a false alarm on demand, to show what one
   * writes (tests). Never set by the CLI.
   */
  readonly plant?: string;
}

export type ConsumerFalseAlarm = kit.ZooFalseAlarm<'consumer', ConsumerSpec>;

export type ConsumerPair = kit.ZooPair<'consumer'>;

export interface ConsumerZooReport {
  readonly zoo: 'consumers';
  readonly seed: number;
  readonly consumers: readonly number[];
  readonly properties: readonly string[];
  readonly runs: number | null;
  /** The multiple of each property's CI budget the mistake hunts ran at. */
  readonly mistakeBudget: number;
  readonly verdicts: readonly kit.ZooVerdict<'consumer'>[];
  readonly falseAlarms: readonly ConsumerFalseAlarm[];
  readonly pairs: readonly ConsumerPair[];
}

const MODULE = fileURLToPath(
  new URL(`./module${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url),
);

async function fuzzCorrect(options: ConsumerZooOptions, spec: ConsumerSpec, properties: readonly string[]) {
  const planted = options.plant === undefined ? undefined : consumerMistakeById(options.plant);
  const consumer = buildConsumer(spec, planted?.change);
  const mistake = options.plant ?? null;
  const { statuses, failed } = await kit.fuzzCorrectSubject(
    options,
    properties,
    { kind: 'consumer', index: spec.index, modulePath: MODULE, mistake },
    (campaign) => fuzzConsumer(consumer, campaign),
  );
  return {
    statuses,
    alarms: failed.map(
      (p): ConsumerFalseAlarm => ({ consumer: spec.index, ...kit.alarmFields(p), description: spec }),
    ),
  };
}

/** Fuzzes `spec` with `mistake` applied, property by property (killers first), until one fails. */
export async function huntConsumerMistake(
  options: kit.HuntOptions & Pick<ConsumerZooOptions, 'mistakeBudget'>,
  spec: ConsumerSpec,
  mistake: ConsumerMistake,
  properties: readonly string[] = CONSUMER_PROPERTIES,
): Promise<string | null> {
  const consumer = buildConsumer(spec, mistake.change);
  const campaign = (property: string) => {
    const ci = PROPERTY_CATALOGUE.find((p) => p.id === property)?.ciRuns ?? 1;
    const runs =
      options.runs ?? (options.mistakeBudget === undefined ? undefined : ci * options.mistakeBudget);
    return fuzzConsumer(consumer, {
      property,
      ...kit.campaignBase(options, runs),
      replayDir: null,
    });
  };
  return kit.huntMistakeWith(mistake.killers, properties, campaign, 'invalid');
}

/** The mistakes `option` names, in catalogue order (the order the shards' merge keeps). */
function mistakesOf(option: ConsumerZooOptions['mistakes']): readonly ConsumerMistake[] {
  const named = kit.namedMistakes(option, CONSUMER_MISTAKES, 'consumer mistake');
  return CONSUMER_MISTAKES.filter((m) => named.includes(m));
}

export async function runConsumerZoo(options: ConsumerZooOptions): Promise<ConsumerZooReport> {
  const properties = options.properties ?? CONSUMER_PROPERTIES;
  const unknown = properties.filter((id) => !CONSUMER_PROPERTIES.includes(id));
  if (unknown.length > 0)
    throw new CliError(
      'invalid_option',
      `--property ${unknown.join(' ')}: not a consumer-driven property (${CONSUMER_PROPERTIES.join(', ')})`,
    );
  const mistakes = mistakesOf(options.mistakes);
  const consumers = kit.subjectIndices(options, options.consumers);
  const judge = async (index: number) => {
    const { statuses, alarms } = await fuzzCorrect(
      options,
      generateConsumer(options.seed, index),
      properties,
    );
    return { verdict: { consumer: index, statuses }, alarms };
  };
  const { verdicts, falseAlarms, failed } = await kit.judgeCorrectSubjects(
    options,
    'consumer',
    consumers,
    judge,
  );
  const pairs: ConsumerPair[] = [];
  for (const mistake of mistakes) {
    // The pairs are chosen among every consumer (not the shard's): the same for any --workers.
    const fits = kit
      .subjectIndices(options, options.consumers, true)
      .filter((i) => mistake.applies(generateConsumer(options.seed, i)))
      .slice(0, options.mistakeConsumers ?? options.consumers)
      .filter((i) => kit.inShard(options, i));
    for (const index of fits) {
      if (failed.has(index)) {
        pairs.push({ consumer: index, mistake: mistake.id, verdict: 'excluded', by: null });
        continue;
      }
      const by = await huntConsumerMistake(
        options,
        generateConsumer(options.seed, index),
        mistake,
        properties,
      );
      pairs.push({ consumer: index, mistake: mistake.id, verdict: by === null ? 'missed' : 'caught', by });
      options.onProgress?.(`consumer ${index} ${mistake.id}: ${by ?? 'MISSED'}`);
    }
  }
  return {
    zoo: 'consumers',
    seed: options.seed,
    consumers,
    properties,
    runs: options.runs ?? null,
    mistakeBudget: options.mistakeBudget ?? 1,
    verdicts,
    falseAlarms,
    pairs,
  };
}
