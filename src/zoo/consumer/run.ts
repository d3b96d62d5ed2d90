/**
 * The consumer zoo's runner: fuzzes each generated correct consumer with every consumer-driven
 * property at the CI budget (the public `fuzzConsumer`, the CLI's engine) — any failure is a false
 * alarm, recorded with the consumer's description, property, checkers, seed and replay (the replay
 * file and a `--consumer` module under `out`) — then applies each mistake of the catalogue to the
 * consumers it fits and fuzzes the changed consumer until a property catches it (its likely killers
 * first). A pair whose correct consumer failed is excluded. Deterministic: no time in the report,
 * consumers in index order.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, fuzzConsumer, PROPERTY_CATALOGUE, type PropertyReport } from '../../index.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { buildConsumer } from './build.ts';
import { type ConsumerSpec, generateConsumer } from './generate.ts';
import { CONSUMER_MISTAKES, type ConsumerMistake, consumerMistakeById } from './mistakes.ts';
import { zooConsumerModuleText } from './module.ts';

/** The consumer-driven properties, in catalogue order. */
export const CONSUMER_PROPERTIES: readonly string[] = PROPERTY_CATALOGUE.filter(
  (p) => p.drives === 'consumer',
).map((p) => p.id);

export interface ConsumerZooOptions {
  readonly consumers: number;
  /** The first consumer's index (default 0). */
  readonly from?: number;
  readonly seed: number;
  /** Property ids (default: every consumer-driven property). */
  readonly properties?: readonly string[];
  readonly runs?: number;
  /** Mistake ids to apply (default none; `true`: every mistake). */
  readonly mistakes?: boolean | readonly string[];
  /**
   * Mistake hunts run each property at this multiple of its CI budget (default 1; `npx cetp-sim
   * fuzz` runs CI × 5 by default). Correct consumers are always judged at the CI budget (or `runs`).
   */
  readonly mistakeBudget?: number;
  /** Each mistake is applied to the first this-many consumers it fits (default: every one). */
  readonly mistakeConsumers?: number;
  /** Where replay files and consumer modules go (relative to `cwd`); null: none. */
  readonly out?: string | null;
  readonly cwd?: string;
  readonly shard?: { readonly index: number; readonly count: number };
  /**
   * A mistake id planted in every "correct" consumer: a false alarm on demand, to show what one
   * writes (tests). Never set by the CLI.
   */
  readonly plant?: string;
  readonly onProgress?: (line: string) => void;
  /** The Android release profile the campaigns run (`--android`; src/sim/core/release.ts); absent: the default. */
  readonly android?: AndroidRelease;
}

export interface ConsumerFalseAlarm {
  readonly consumer: number;
  readonly property: string;
  readonly checkers: readonly string[];
  readonly messages: readonly string[];
  readonly seed: number;
  readonly path: string | null;
  readonly replay: string | null;
  readonly replayCommand: string | null;
  readonly description: ConsumerSpec;
}

export interface ConsumerPair {
  readonly consumer: number;
  readonly mistake: string;
  readonly verdict: 'caught' | 'missed' | 'excluded';
  /** `property/checker+checker`, or `invalid:<code>` when the consumer was refused. */
  readonly by: string | null;
}

export interface ConsumerZooReport {
  readonly zoo: 'consumers';
  readonly seed: number;
  readonly consumers: readonly number[];
  readonly properties: readonly string[];
  readonly runs: number | null;
  /** The multiple of each property's CI budget the mistake hunts ran at. */
  readonly mistakeBudget: number;
  readonly verdicts: readonly {
    readonly consumer: number;
    readonly statuses: Readonly<Record<string, string>>;
  }[];
  readonly falseAlarms: readonly ConsumerFalseAlarm[];
  readonly pairs: readonly ConsumerPair[];
}

const MODULE = fileURLToPath(
  new URL(`./module${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url),
);

function allIndices(options: ConsumerZooOptions): number[] {
  return Array.from({ length: options.consumers }, (_, i) => (options.from ?? 0) + i);
}

/** Whether consumer `i` (and its pairs) belong to this shard. */
function mine(options: ConsumerZooOptions, i: number): boolean {
  return options.shard === undefined || i % options.shard.count === options.shard.index;
}

/** Writes the consumer module under `out` (only there); its path relative to `cwd`. */
function writeModule(options: ConsumerZooOptions, index: number): string | undefined {
  if (options.out === null || options.out === undefined) return undefined;
  const cwd = resolve(options.cwd ?? process.cwd());
  const dir = resolve(cwd, options.out);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `consumer${index}.consumer.ts`);
  writeFileSync(file, zooConsumerModuleText(MODULE, options.seed, index, options.plant ?? null));
  return file.startsWith(`${cwd}/`) ? `./${file.slice(cwd.length + 1)}` : file;
}

function alarmOf(spec: ConsumerSpec, p: PropertyReport): ConsumerFalseAlarm {
  return {
    consumer: spec.index,
    property: p.id,
    checkers: [...new Set(p.violations.map((v) => v.checker))].sort(),
    messages: p.violations.map((v) => v.message),
    seed: p.seed,
    path: p.failure?.path ?? null,
    replay: p.replay,
    replayCommand: p.replayCommand,
    description: spec,
  };
}

async function fuzzCorrect(options: ConsumerZooOptions, spec: ConsumerSpec, properties: readonly string[]) {
  const module = writeModule(options, spec.index);
  const out = options.out ?? null;
  const planted = options.plant === undefined ? undefined : consumerMistakeById(options.plant);
  const report = await fuzzConsumer(buildConsumer(spec, planted?.change), {
    property: properties,
    seed: options.seed,
    ...(options.android !== undefined ? { android: options.android } : {}),
    ...(options.runs !== undefined ? { runs: options.runs } : {}),
    replayDir: out === null ? null : join(out, `consumer${spec.index}`),
    ...(module !== undefined ? { module } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  // The module is kept only for a false alarm (its replay command names it).
  if (module !== undefined && report.properties.every((p) => p.status !== 'failed'))
    rmSync(resolve(options.cwd ?? process.cwd(), module));
  return {
    statuses: Object.fromEntries(report.properties.map((p) => [p.id, p.status])),
    alarms: report.properties.filter((p) => p.status === 'failed').map((p) => alarmOf(spec, p)),
  };
}

/** Fuzzes `spec` with `mistake` applied, property by property (killers first), until one fails. */
export async function huntConsumerMistake(
  options: Pick<ConsumerZooOptions, 'seed' | 'runs' | 'mistakeBudget' | 'android'> & {
    /** false: a failure is not shrunk (whether and by what a property fails is all a hunt asks). */
    readonly shrink?: boolean;
  },
  spec: ConsumerSpec,
  mistake: ConsumerMistake,
  properties: readonly string[] = CONSUMER_PROPERTIES,
): Promise<string | null> {
  const consumer = buildConsumer(spec, mistake.change);
  const order = [
    ...mistake.killers.filter((k) => properties.includes(k)),
    ...properties.filter((p) => !mistake.killers.includes(p)),
  ];
  for (const property of order) {
    const ci = PROPERTY_CATALOGUE.find((p) => p.id === property)?.ciRuns ?? 1;
    const runs =
      options.runs ?? (options.mistakeBudget === undefined ? undefined : ci * options.mistakeBudget);
    try {
      const report = await fuzzConsumer(consumer, {
        property,
        seed: options.seed,
        ...(options.android !== undefined ? { android: options.android } : {}),
        ...(runs !== undefined ? { runs } : {}),
        ...(options.shrink === false ? { shrink: false } : {}),
        replayDir: null,
      });
      const failed = report.properties.find((p) => p.status === 'failed');
      if (failed)
        return `${property}/${[...new Set(failed.violations.map((v) => v.checker))].sort().join('+')}`;
    } catch (error) {
      if (error instanceof CliError) return `invalid:${error.code}`;
      throw error;
    }
  }
  return null;
}

function mistakesOf(option: ConsumerZooOptions['mistakes']): readonly ConsumerMistake[] {
  if (option === undefined || option === false) return [];
  if (option === true) return CONSUMER_MISTAKES;
  for (const id of option)
    if (!CONSUMER_MISTAKES.some((x) => x.id === id))
      throw new CliError('invalid_option', `--mistake ${id}: no such consumer mistake (see docs/zoo.md)`);
  // In catalogue order, whatever order they were named in: the order the shards' merge keeps.
  return CONSUMER_MISTAKES.filter((m) => option.includes(m.id));
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
  const consumers = allIndices(options).filter((i) => mine(options, i));
  const verdicts: ConsumerZooReport['verdicts'][number][] = [];
  const falseAlarms: ConsumerFalseAlarm[] = [];
  const failed = new Set<number>();
  for (const index of consumers) {
    const spec = generateConsumer(options.seed, index);
    const { statuses, alarms } = await fuzzCorrect(options, spec, properties);
    verdicts.push({ consumer: index, statuses });
    falseAlarms.push(...alarms);
    if (alarms.length > 0) failed.add(index);
    options.onProgress?.(
      `consumer ${index} ${alarms.length === 0 ? 'ok' : `FALSE ALARM ${alarms.map((a) => `${a.property}/${a.checkers.join('+')}`).join(', ')}`}`,
    );
  }
  const pairs: ConsumerPair[] = [];
  for (const mistake of mistakes) {
    // The pairs are chosen among every consumer (not the shard's): the same for any --workers.
    const fits = allIndices(options)
      .filter((i) => mistake.applies(generateConsumer(options.seed, i)))
      .slice(0, options.mistakeConsumers ?? options.consumers)
      .filter((i) => mine(options, i));
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
