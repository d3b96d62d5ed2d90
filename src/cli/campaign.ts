/**
 * A fuzz campaign: the selected properties, one after another, each with its own seed derived from
 * the campaign seed (so a subset or a shard runs exactly what the full campaign would for those
 * properties), and a replay file written for every failure.
 */
import { fuzzProperty, type PropertyResult } from '../../properties/fuzz.ts';
import type { Tail, Variant } from '../../properties/scenario/model.ts';
import type { PropertyDef } from '../../properties/suites.ts';
import type { Shard } from './args.ts';
import { CliError } from './errors.ts';
import { UserModuleError } from './provider-module.ts';
import {
  diagramFilePath,
  type ReplayModules,
  replayFilePath,
  writeDiagramFile,
  writeReplayFile,
} from './replay-file.ts';

/**
 * `npx cetp-sim fuzz` without --runs gives each property its CI budget times this: a short campaign
 * (measured on 2 cores: 14–20 s for the ten properties), five times deeper than `npm test`.
 */
export const SHORT_CAMPAIGN_FACTOR = 5;

export const STRATEGIES = ['fifo', 'random', 'pct', 'portfolio'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** How the scheduler continues once generated decisions run out; portfolio lets the fuzzer pick. */
export function tailsOf(strategy: Strategy): Tail[] {
  return strategy === 'portfolio' ? ['fifo', 'random', 'pct'] : [strategy];
}

/** Properties whose index in `defs` is ≡ I−1 (mod N). */
export function shardOf<T>(defs: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...defs];
  return defs.filter((_, i) => i % shard.count === shard.index - 1);
}

export interface CampaignOptions {
  readonly seed: number;
  /** Runs per property; undefined: its ciRuns × SHORT_CAMPAIGN_FACTOR (ignored with timeSeconds). */
  readonly runs: number | undefined;
  /** A wall-clock budget for the whole campaign, shared equally by the properties. */
  readonly timeSeconds: number | undefined;
  readonly tails: readonly Tail[];
  readonly variant: Variant;
  readonly outDir: string;
  readonly modules: ReplayModules;
  readonly now: () => number;
  readonly onStart?: (def: PropertyDef) => void;
  readonly onResult?: (entry: CampaignEntry) => void;
}

export interface CampaignEntry {
  readonly def: PropertyDef;
  readonly result: PropertyResult;
  /** Where the failure's replay file was written. */
  readonly replayFile: string | null;
  readonly ms: number;
}

export function runsFor(def: PropertyDef, runs: number | undefined): number {
  return runs ?? def.ciRuns * SHORT_CAMPAIGN_FACTOR;
}

async function fuzzOne(def: PropertyDef, options: CampaignOptions, timeLimitMs: number | undefined) {
  try {
    return await fuzzProperty(def, {
      seed: options.seed,
      runs: runsFor(def, options.runs),
      tails: options.tails,
      variant: options.variant,
      ...(timeLimitMs !== undefined ? { timeLimitMs } : {}),
    });
  } catch (error) {
    if (error instanceof UserModuleError) throw new CliError('provider_module_failed', error.message);
    throw error;
  }
}

export async function runCampaign(
  defs: readonly PropertyDef[],
  options: CampaignOptions,
): Promise<CampaignEntry[]> {
  const timeLimitMs =
    options.timeSeconds !== undefined && defs.length > 0
      ? Math.max(1, Math.floor((options.timeSeconds * 1000) / defs.length))
      : undefined;
  const entries: CampaignEntry[] = [];
  for (const def of defs) {
    options.onStart?.(def);
    const started = options.now();
    const result = await fuzzOne(def, options, timeLimitMs);
    let replayFile: string | null = null;
    if (result.failure) {
      replayFile = replayFilePath(options.outDir, def.id, options.seed);
      writeReplayFile(replayFile, result.failure.replay, options.modules);
      writeDiagramFile(diagramFilePath(replayFile), result.failure.run.world.trace.events);
    }
    const entry = { def, result, replayFile, ms: options.now() - started };
    entries.push(entry);
    options.onResult?.(entry);
  }
  return entries;
}
