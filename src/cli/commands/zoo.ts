/**
 * `cetp-sim zoo`: generates correct provider apps (src/zoo), fuzzes each with every property at the
 * CI budget and reports false alarms (a correct app that failed: replay files under --out); with
 * --mistakes, applies the catalogue of user-level mistakes to the apps and reports how many (app,
 * mistake) pairs a property caught, and what the misses would need. --workers N runs N child
 * processes, each a shard of the apps; the report is the same for any N. --json prints identical
 * bytes for identical arguments (no time in it).
 */
import { spawn } from 'node:child_process';
import { type Command, Option } from 'commander';
import { CliError, EXIT_FAILED, EXIT_OK } from '../../harness/errors.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { consumerZooLines, mergeConsumerReports, summarizeConsumers } from '../../zoo/consumer/report.ts';
import { type ConsumerZooReport, runConsumerZoo } from '../../zoo/consumer/run.ts';
import type { ZooBaseOptions } from '../../zoo/kit/run.ts';
import { mergeReports, summarize, type ZooSummary } from '../../zoo/report.ts';
import { runZoo, type ZooReport } from '../../zoo/run.ts';
import { androidFlag, parseIntArg, parseShardArg, type Shard } from '../args.ts';
import { type Io, reportError } from '../io.ts';

export const DEFAULT_ZOO_APPS = 300;
export const DEFAULT_MISTAKE_APPS = 10;
export const DEFAULT_ZOO_OUT = '.cetp-sim/zoo';

export interface ZooFlags {
  readonly apps: number;
  /** The consumer zoo: this many generated consumers instead of apps. */
  readonly consumers?: number;
  readonly from: number;
  readonly seed: number;
  readonly mistakes: boolean;
  readonly mistake?: readonly string[];
  readonly mistakeApps: number;
  readonly mistakeBudget?: number;
  readonly property?: readonly string[];
  readonly runs?: number;
  readonly shard?: Shard;
  readonly workers: number;
  readonly json: boolean;
  readonly raw: boolean;
  readonly out: string;
  /** `--android`: the release profile the campaigns run (src/sim/core/release.ts; absent: the default). */
  readonly android?: AndroidRelease;
}

function childArgs(flags: ZooFlags, shard: Shard): string[] {
  const args = [
    'zoo',
    '--apps',
    String(flags.apps),
    '--from',
    String(flags.from),
    '--seed',
    String(flags.seed),
  ];
  if (flags.consumers !== undefined) args.push('--consumers', String(flags.consumers));
  if (flags.mistakes) args.push('--mistakes');
  if (flags.mistake) args.push('--mistake', ...flags.mistake);
  args.push('--mistake-apps', String(flags.mistakeApps), '--out', flags.out, '--raw');
  if (flags.mistakeBudget !== undefined) args.push('--mistake-budget', String(flags.mistakeBudget));
  if (flags.property) args.push('--property', ...flags.property);
  if (flags.runs !== undefined) args.push('--runs', String(flags.runs));
  if (flags.android !== undefined) args.push('--android', String(flags.android));
  args.push('--shard', `${shard.index}/${shard.count}`, '--workers', '1');
  return args;
}

/** One shard in a child process (the same CLI), its raw report read from stdout. */
function runChild<R = ZooReport>(io: Io, flags: ZooFlags, shard: Shard): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1] ?? '', ...childArgs(flags, shard)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      for (const line of String(d).trimEnd().split('\n')) io.err(`[${shard.index}/${shard.count}] ${line}`);
    });
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(out) as R);
      } catch {
        reject(
          new CliError(
            'zoo_worker_failed',
            `zoo shard ${shard.index}/${shard.count} exited ${code} without a report`,
            3,
          ),
        );
      }
    });
  });
}

async function zooReport(io: Io, flags: ZooFlags): Promise<ZooReport> {
  if (flags.workers > 1 && flags.shard === undefined) {
    const shards = Array.from({ length: flags.workers }, (_, i) => ({ index: i + 1, count: flags.workers }));
    return mergeReports(await Promise.all(shards.map((s) => runChild(io, flags, s))));
  }
  return runZoo({ ...zooOptions(io, flags), apps: flags.apps, mistakeApps: flags.mistakeApps });
}

/** The options both zoos take, from the flags they share. */
function zooOptions(io: Io, flags: ZooFlags): ZooBaseOptions {
  return {
    from: flags.from,
    seed: flags.seed,
    ...(flags.property ? { properties: flags.property } : {}),
    ...(flags.runs !== undefined ? { runs: flags.runs } : {}),
    mistakes: flags.mistake ?? flags.mistakes,
    out: flags.out,
    ...(flags.android !== undefined ? { android: flags.android } : {}),
    // --shard I/N is 1-based (as for fuzz): subject i is in it when i % N = I-1.
    ...(flags.shard ? { shard: { index: flags.shard.index - 1, count: flags.shard.count } } : {}),
    onProgress: (line) => io.err(line),
  };
}

function printText(io: Io, s: ZooSummary): void {
  const c = io.color;
  io.out(
    c.bold(`cetp-sim zoo: ${s.apps} generated app(s), seed ${s.seed}, ${s.properties.length} properties`),
  );
  io.out(
    `  correct apps passing every property: ${s.appsPassed}/${s.apps}; vacuous (app, property): ${s.vacuous.length}`,
  );
  for (const a of s.falseAlarms)
    io.out(
      c.red(
        `  FALSE ALARM app ${a.app} ${a.property}: ${a.checkers.join(', ')} — ${a.replayCommand ?? 'no replay written'}`,
      ),
    );
  if (s.mistakes.length === 0) return;
  io.out('');
  for (const m of s.mistakes) {
    const rate = m.rate === null ? '—' : `${Math.round(m.rate * 100)}%`;
    const line = `  ${m.id.padEnd(28)} ${String(m.caught).padStart(3)}/${String(m.caught + m.missed).padEnd(3)} ${rate.padStart(4)}  ${Object.keys(m.by).join(', ') || m.needs}`;
    io.out(m.missed > 0 ? c.yellow(line) : line);
  }
  const rate = s.pairs.rate === null ? '—' : `${Math.round(s.pairs.rate * 1000) / 10}%`;
  io.out(c.bold(`  (app, mistake) pairs caught: ${s.pairs.caught}/${s.pairs.judged} (${rate})`));
  const withModel =
    s.pairs.rateWithModel === null ? '—' : `${Math.round(s.pairs.rateWithModel * 1000) / 10}%`;
  io.out(
    `  with the misses its model sees in a scripted session: ${s.pairs.withModel}/${s.pairs.judged} (${withModel})`,
  );
}

/** `--consumers N`: the consumer zoo (src/zoo/consumer): same flags, consumers in place of apps. */
async function consumerZooCommand(io: Io, flags: ZooFlags, consumers: number): Promise<number> {
  let report: ConsumerZooReport;
  if (flags.workers > 1 && flags.shard === undefined) {
    const shards = Array.from({ length: flags.workers }, (_, i) => ({ index: i + 1, count: flags.workers }));
    report = mergeConsumerReports(
      await Promise.all(shards.map((s) => runChild<ConsumerZooReport>(io, flags, s))),
    );
  } else
    report = await runConsumerZoo({
      ...zooOptions(io, flags),
      consumers,
      mistakeConsumers: flags.mistakeApps,
      ...(flags.mistakeBudget !== undefined ? { mistakeBudget: flags.mistakeBudget } : {}),
    });
  if (flags.raw) {
    io.out(JSON.stringify(report));
    return EXIT_OK;
  }
  const summary = summarizeConsumers(report);
  if (flags.json) io.out(JSON.stringify(summary));
  else for (const l of consumerZooLines(summary)) io.out(l.warn ? io.color.yellow(l.text) : l.text);
  return summary.falseAlarms.length === 0 ? EXIT_OK : EXIT_FAILED;
}

export async function zooCommand(io: Io, flags: ZooFlags): Promise<number> {
  try {
    if (flags.consumers !== undefined) return await consumerZooCommand(io, flags, flags.consumers);
    const report = await zooReport(io, flags);
    if (flags.raw) {
      io.out(JSON.stringify(report));
      return EXIT_OK;
    }
    const summary = summarize(report);
    if (flags.json) io.out(JSON.stringify(summary));
    else printText(io, summary);
    return summary.falseAlarms.length === 0 && summary.modelProblems.length === 0 ? EXIT_OK : EXIT_FAILED;
  } catch (error) {
    return reportError(io, error, flags.json);
  }
}

export function registerZooCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('zoo')
    .description('fuzz generated correct apps (false alarms) and generated user mistakes (catch rate)')
    .addOption(
      new Option('--apps <n>', 'generated apps')
        .argParser(parseIntArg('--apps', 1))
        .default(DEFAULT_ZOO_APPS),
    )
    .addOption(
      new Option('--consumers <n>', 'the consumer zoo: fuzz N generated consumers instead of apps').argParser(
        parseIntArg('--consumers', 1),
      ),
    )
    .addOption(new Option('--from <i>', 'index of the first app').argParser(parseIntArg('--from')).default(0))
    .addOption(
      new Option('--seed <n>', 'zoo seed (apps and campaigns derive from it)')
        .argParser(parseIntArg('--seed'))
        .default(0),
    )
    .option('--mistakes', 'also apply every mistake of the catalogue (docs/zoo.md)', false)
    .addOption(new Option('--mistake <id...>', 'only these mistakes (implies --mistakes)'))
    .addOption(
      new Option('--mistake-apps <n>', 'apply each mistake to the first N apps it fits')
        .argParser(parseIntArg('--mistake-apps', 1))
        .default(DEFAULT_MISTAKE_APPS),
    )
    .addOption(
      new Option(
        '--mistake-budget <k>',
        'with --consumers: mistake hunts at CI × k runs per property',
      ).argParser(parseIntArg('--mistake-budget', 1)),
    )
    .addOption(new Option('--property <id...>', 'only these properties (default: all)'))
    .addOption(
      new Option('--runs <n>', "runs per property (default: each property's CI budget)").argParser(
        parseIntArg('--runs', 1),
      ),
    )
    .addOption(
      new Option('--shard <I/N>', 'only the apps whose index i has i % N = I-1').argParser(parseShardArg),
    )
    .addOption(
      new Option('--workers <n>', 'child processes (the report is the same for any number)')
        .argParser(parseIntArg('--workers', 1))
        .default(1),
    )
    .addOption(
      new Option('--out <dir>', 'where false alarms write replay files and provider modules').default(
        DEFAULT_ZOO_OUT,
      ),
    )
    .addOption(androidFlag('the campaigns run'))
    .addOption(new Option('--json', 'print one JSON object on stdout').default(false))
    .addOption(new Option('--raw', 'print the raw report (for merging shards)').default(false).hideHelp())
    .addHelpText(
      'after',
      '\nExit codes: 0 no correct app failed, 1 a false alarm (replay files and provider modules under --out)\nor a correct app broke its own model, 2 bad usage.',
    )
    .action(async (opts: ZooFlags) => {
      setExit(await zooCommand(io, opts));
    });
}
