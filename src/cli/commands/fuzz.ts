/**
 * `cetp-sim fuzz`: runs the property suites (all, or --property …) against the reference apps, a
 * planted bug (--mutant) or the user's own providers (--provider), and reports each property with
 * the rules it guards. A failure writes `<out>/<property>-<seed>.replay.json` and prints its minimal
 * trace and the replay command. `--json` prints one object with no wall-clock fields, so the same
 * arguments print the same bytes (except with --time, whose run counts depend on speed).
 */
import { REFERENCE } from '../../../properties/scenario/model.ts';
import type { PropertyDef } from '../../../properties/suites.ts';
import type { Shard } from '../args.ts';
import {
  type CampaignEntry,
  runCampaign,
  runsFor,
  SHORT_CAMPAIGN_FACTOR,
  type Strategy,
  shardOf,
  tailsOf,
} from '../campaign.ts';
import { type ConsumerModule, consumerImpact, loadConsumerModule, withConsumer } from '../consumer-module.ts';
import { EXIT_FAILED, EXIT_OK } from '../errors.ts';
import { printFailure } from '../failure-report.ts';
import type { Io } from '../io.ts';
import { writeJunitReport } from '../junit.ts';
import { startProgress } from '../progress.ts';
import { loadProviderModule, withProviders } from '../provider-module.ts';
import { selectMutant, selectProperties } from '../selection.ts';

export const DEFAULT_OUT_DIR = '.cetp-sim/failures';

export interface FuzzFlags {
  readonly seed: number;
  readonly runs?: number;
  readonly time?: number;
  readonly property?: readonly string[];
  readonly strategy: Strategy;
  readonly mutant?: string;
  readonly provider?: string;
  readonly consumer?: string;
  readonly shard?: Shard;
  readonly out: string;
  readonly junit?: string;
  readonly json: boolean;
}

interface PropertyJson {
  id: string;
  rules: readonly string[];
  runs: number;
  status: 'passed' | 'failed';
  replayFile?: string;
  traceHash?: string;
}

function propertyJson({ def, result, replayFile }: CampaignEntry): PropertyJson {
  return {
    id: def.id,
    rules: def.ruleIds,
    runs: result.runs,
    status: result.status,
    ...(replayFile !== null ? { replayFile } : {}),
    ...(result.failure ? { traceHash: result.failure.run.report.traceHash } : {}),
  };
}

function consumerJson(consumer: ConsumerModule, defs: readonly PropertyDef[]) {
  return { module: consumer.specifier, name: consumer.consumer.name, ...consumerImpact(defs) };
}

function resultLine(io: Io, { def, result, ms }: CampaignEntry, width: number): string {
  const c = io.color;
  const seconds = `${(ms / 1000).toFixed(1)}s`;
  return result.status === 'passed'
    ? `  ${c.green('✓')} ${def.id.padEnd(width)} ${String(result.runs).padStart(6)} runs  ${c.dim(seconds)}`
    : `  ${c.red('✗')} ${def.id.padEnd(width)} failed after ${result.runs} run(s)  ${c.dim(seconds)}`;
}

function runsSummary(defs: readonly PropertyDef[]): string {
  const runs = defs.map((d) => runsFor(d, undefined));
  const min = Math.min(...runs);
  const max = Math.max(...runs);
  const each = min === max ? `${min}` : `${min}–${max}`;
  return `${each} runs each: CI budget × ${SHORT_CAMPAIGN_FACTOR}`;
}

function header(flags: FuzzFlags, defs: readonly PropertyDef[], target: string): string {
  const budget =
    flags.time !== undefined
      ? `${flags.time}s in all`
      : flags.runs !== undefined
        ? `${flags.runs} runs each`
        : runsSummary(defs);
  const shard = flags.shard ? `, shard ${flags.shard.index}/${flags.shard.count}` : '';
  return `cetp-sim fuzz: seed ${flags.seed}, strategy ${flags.strategy}, ${defs.length} propert${defs.length === 1 ? 'y' : 'ies'} (${budget})${shard}, against ${target}`;
}

export async function fuzzCommand(io: Io, flags: FuzzFlags): Promise<number> {
  const c = io.color;
  let defs = selectProperties(flags.property);
  const mutant = flags.mutant !== undefined ? selectMutant(flags.mutant) : null;
  const providers =
    flags.provider !== undefined ? await loadProviderModule(flags.provider, process.cwd()) : null;
  const consumer =
    flags.consumer !== undefined ? await loadConsumerModule(flags.consumer, process.cwd()) : null;
  // Fuzzing a consumer: by default only the properties that drive one.
  if (consumer && (flags.property ?? []).length === 0) defs = defs.filter((d) => d.kind === 'consumer');
  if (providers) defs = defs.map((d) => withProviders(d, providers));
  if (consumer) defs = defs.map((d) => withConsumer(d, consumer));
  defs = shardOf(defs, flags.shard);

  const target = [
    providers
      ? `--provider ${providers.specifier} (${providers.providers.map((p) => p.name).join(', ')})`
      : 'the reference apps',
    mutant ? `with planted bug ${mutant.id}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  if (!flags.json) {
    io.out(c.bold(header(flags, defs, target)));
    if (consumer)
      io.out(
        c.yellow(
          `  --consumer ${consumer.specifier} (${consumer.consumer.name}) loaded; ${consumerImpact(defs).note}`,
        ),
      );
    if (defs.length === 0) io.out('  this shard selects no property');
  }

  const width = Math.max(0, ...defs.map((d) => d.id.length));
  const started = performance.now();
  const progress = startProgress(io, defs.length, { json: flags.json, noun: 'fuzz' });
  let entries: CampaignEntry[];
  try {
    entries = await runCampaign(defs, {
      seed: flags.seed,
      runs: flags.runs,
      timeSeconds: flags.time,
      tails: tailsOf(flags.strategy),
      variant: mutant?.variant ?? REFERENCE,
      outDir: flags.out,
      modules: {
        ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
        ...(flags.consumer !== undefined ? { consumer: flags.consumer } : {}),
      },
      now: () => performance.now(),
      onStart: (def) => progress.begin(def.id),
      onResult: (entry) => progress.done(resultLine(io, entry, width)),
    });
  } finally {
    progress.finish();
  }
  if (flags.junit !== undefined) writeJunitReport(flags.junit, entries, flags.seed);

  const failed = entries.filter((e) => e.result.status === 'failed');
  if (flags.json) {
    io.out(
      JSON.stringify({
        seed: flags.seed,
        passed: failed.length === 0,
        properties: entries.map(propertyJson),
        ...(consumer ? { consumer: consumerJson(consumer, defs) } : {}),
      }),
    );
    return failed.length === 0 ? EXIT_OK : EXIT_FAILED;
  }
  for (const { def, result, replayFile } of failed) {
    const failure = result.failure;
    if (!failure || replayFile === null) continue;
    printFailure(io, {
      property: def.id,
      title: def.title,
      rules: def.ruleIds,
      violations: failure.run.violations,
      events: failure.run.world.trace.events,
      runsToFailure: failure.replay.fuzz.runsToFailure,
      shrinks: failure.replay.fuzz.shrinks,
      replayFile,
    });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const summary = `${entries.length - failed.length} passed, ${failed.length} failed in ${seconds}s (seed ${flags.seed})`;
  io.out('');
  io.out(
    failed.length === 0 ? c.green(`All properties held: ${summary}`) : c.red(c.bold(`FAILED: ${summary}`)),
  );
  if (flags.junit !== undefined) io.out(c.dim(`JUnit report: ${flags.junit}`));
  return failed.length === 0 ? EXIT_OK : EXIT_FAILED;
}
