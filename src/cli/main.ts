/**
 * The cetp-sim command line. Commands are a contract that tools and users script against; each
 * lives in its own module under commands/. Exit codes: 0 ok, 1 failed, 2 bad usage or input,
 * 3 internal error (see errors.ts).
 */
import { Command, CommanderError, Option } from 'commander';
import { FLOW_KINDS } from '../fuzz/crashpoints.ts';
import { CliError, EXIT_OK, EXIT_USAGE, isCliErrorCode } from '../harness/errors.ts';
import { ANDROID_RELEASES, DEFAULT_ANDROID } from '../sim/core/release.ts';
import { parseAndroidArg, parseIntArg, parseSecondsArg, parseShardArg } from './args.ts';
import {
  DEFAULT_WATCHDOG_SECONDS,
  DEFAULT_WORKERS,
  DEFAULT_WORKERS_HELP,
  SHORT_CAMPAIGN_FACTOR,
  STRATEGIES,
} from './campaign.ts';
import { type AblateFlags, ablateCommand, DEFAULT_ABLATION_RUNS } from './commands/ablate.ts';
import {
  type CrashpointsFlags,
  crashpointsCommand,
  DEFAULT_CRASHPOINTS_OUT,
} from './commands/crashpoints.ts';
import { demoCommand } from './commands/demo.ts';
import { DEFAULT_OUT_DIR, type FuzzFlags, fuzzCommand } from './commands/fuzz.ts';
import { registerMatrixCommand } from './commands/matrix.ts';
import { type MergeFlags, mergeCommand } from './commands/merge.ts';
import { DEFAULT_MUTANT_RUNS, type MutantsFlags, mutantsCommand } from './commands/mutants.ts';
import { registerProposeCommand } from './commands/propose.ts';
import { type ReplayFlags, replayCommand } from './commands/replay.ts';
import { type RulesFlags, rulesCommand } from './commands/rules.ts';
import { registerServeCommand } from './commands/serve.ts';
import { mutantsVectorsCommand, registerVectorsCommand } from './commands/vectors.ts';
import { registerZooCommand } from './commands/zoo.ts';
import { type Io, processIo, reportError } from './io.ts';

export { parseIntArg } from './args.ts';

const seedOption = () =>
  new Option('--seed <n>', 'campaign seed (each property derives its own from it)')
    .argParser(parseIntArg('--seed'))
    .default(0);
const strategyOption = () =>
  new Option(
    '--strategy <name>',
    'how schedules continue after the generated decisions; portfolio mixes all three',
  )
    .choices(STRATEGIES)
    .default('portfolio');
const jsonOption = () => new Option('--json', 'print one JSON object on stdout').default(false);
const campaignTimeOption = () =>
  new Option('--time <seconds>', 'wall-time budget for the whole campaign').argParser(
    parseSecondsArg('--time'),
  );
const noShrinkOption = () =>
  new Option('--no-shrink', 'report a failing run as found, unshrunk (when only "does it fail" matters)');
const noIsolationCheckOption = () =>
  new Option('--no-isolation-check', 'do not re-run a failure in fresh instances of your modules');
const deviceFaultsOption = () =>
  new Option(
    '--device-faults',
    'also generate the device faults of issue 35 (deep sleep; src/sim/FIDELITY.md)',
  );
const workersOption = () =>
  new Option('--workers <n>', 'threads (results are the same for any number)')
    .argParser(parseIntArg('--workers', 1))
    .default(DEFAULT_WORKERS, `${DEFAULT_WORKERS}, the cores`);
const shardOption = (what: string) =>
  new Option('--shard <I/N>', `run the I-th of N shards of the selected ${what}`).argParser(parseShardArg);
const watchdogOption = () =>
  new Option('--watchdog <seconds>', 'wall-clock seconds one run may take before it is stopped and failed')
    .argParser(parseSecondsArg('--watchdog'))
    .default(DEFAULT_WATCHDOG_SECONDS);

const androidOption = (what: string) =>
  new Option(
    '--android <release>',
    `the Android release profile ${what}: ${ANDROID_RELEASES.join(', ')} (default ${DEFAULT_ANDROID}; src/sim/core/release.ts)`,
  ).argParser(parseAndroidArg);

/** The options of a sweep that switches one thing (`what`) off at a time: `mutants`, `ablate`. */
const sweepOptions = (what: string, runsWhat: string, runs: Option, runsDefault: number) => [
  seedOption(),
  runs.argParser(parseIntArg('--runs', 1)).default(runsDefault),
  strategyOption(),
  shardOption(what),
  androidOption(runsWhat),
  workersOption(),
  jsonOption(),
];

const FUZZ_HELP = `
Defaults: --seed 0; --runs = each property's CI budget x ${SHORT_CAMPAIGN_FACTOR} (a short campaign);
--strategy portfolio (fifo, random and pct tails); --out ${DEFAULT_OUT_DIR}.
--time S shares S seconds of wall time equally among the selected properties (run counts then
depend on the machine). --shard I/N runs the selected properties whose 0-based index i (in catalogue
order) has i % N = I-1; each shard is deterministic on its own.
--provider MODULE fuzzes your own provider apps: a module exporting \`providers\` (see the README).
--workers N spreads the properties over N threads, the results the same for any N (${DEFAULT_WORKERS_HELP}).
User modules always run in worker threads (--workers of them) under a watchdog: a run that takes more than --watchdog seconds of wall time (default
${DEFAULT_WATCHDOG_SECONDS}) — a blocked thread, an endless loop — fails its property with a replay file.
Each property reports what it exercised (calls, answers, successes, effects, confirmations,
finished operations); one that exercised nothing fails as vacuous.
Exit codes: 0 every property held, 1 a property failed or exercised nothing (replay files
written), 2 bad usage or input, 3 an internal error in cetp-sim (a bug: please report it),
130/143 interrupted by SIGINT/SIGTERM (the report so far printed, replay files kept).`;

const MUTANTS_HELP = `
The planted bugs are hunted in parallel, one per job, on --workers threads (${DEFAULT_WORKERS_HELP});
the report is in catalogue order and --json is identical for any
number of workers. --shard I/N hunts the selected bugs whose 0-based index i has i % N = I-1 (one
job of a CI matrix; join the shards' --json with \`cetp-sim merge\`).
Exit codes: 0 every planted bug killed, 1 one survived, 2 bad usage.`;

const ABLATE_HELP = `
Every property runs against every rule switched off: the full sweep takes minutes (narrow it with
--rule, spread it with --workers: one rule per job, --json identical for any number; ${DEFAULT_WORKERS_HELP}). --shard I/N ablates the selected rules whose 0-based index i has i % N = I-1 (join the
shards' --json with \`cetp-sim merge\`).
Exit codes: 0 it ran (rules nothing catches are findings, not failures), 2 bad usage.`;

const CRASHPOINTS_HELP = `
Each flow (a synchronous write; a confirmation and its resume; an async operation polled and
cancelled; a file result) is run once without faults to count its scheduler steps N, then N times
with a kill before step k: first of the provider's process (the driver then retries with the same
request_id and sends one fresh request), then of the consumer's (it is restarted and re-sends what it
journaled). Every run is judged: one business effect per request, the same terminal result for
every answer, no terminal result lost, the provider usable afterwards. "live" counts the points whose
kill found the process running. See docs/crashpoints.md.
Exit codes: 0 every point held, 1 a point broke a rule (replay files written), 2 bad usage or input.`;

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command();
  program
    .name('cetp-sim')
    .description(
      'Deterministic simulation, reference implementations and property-based fuzzing for CETP v2 on Android.',
    )
    .version('0.1.0')
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (s) => io.out(s.trimEnd()),
      writeErr: (s) => io.err(s.trimEnd()),
    })
    .exitOverride();

  program
    .command('demo')
    .description('hunt a check-then-insert race in a toy provider and print the shrunk minimal trace')
    .addOption(new Option('--seed <n>', 'fast-check seed').argParser(parseIntArg('--seed')).default(42))
    .addOption(new Option('--runs <n>', 'maximum runs').argParser(parseIntArg('--runs', 1)).default(300))
    .option('--mermaid', 'also print the trace as a Mermaid sequence diagram', false)
    .option('--json', 'print one JSON object', false)
    .action(async (opts: { seed: number; runs: number; mermaid: boolean; json: boolean }) => {
      setExit(await demoCommand(io, opts));
    });

  program
    .command('fuzz')
    .description('run the property suites; exit 1 and write replay files when a property fails')
    .addOption(seedOption())
    .addOption(
      new Option('--runs <n>', 'generated scenarios per property')
        .argParser(parseIntArg('--runs', 1))
        .conflicts('time'),
    )
    .addOption(campaignTimeOption())
    .addOption(new Option('--property <id...>', 'only these properties (default: all)'))
    .addOption(strategyOption())
    .addOption(androidOption('the worlds run (recorded in replay files)'))
    .addOption(deviceFaultsOption())
    .addOption(new Option('--mutant <id>', 'run against this planted bug (see `cetp-sim mutants`)'))
    .addOption(noShrinkOption())
    .addOption(noIsolationCheckOption())
    .addOption(new Option('--provider <module>', 'fuzz your own provider apps instead of the reference apps'))
    .addOption(new Option('--consumer <module>', 'load your own consumer for consumer-driven properties'))
    .addOption(shardOption('properties'))
    .addOption(new Option('--out <dir>', 'where failures write replay files').default(DEFAULT_OUT_DIR))
    .addOption(new Option('--junit <file>', 'also write a JUnit XML report'))
    .addOption(workersOption())
    .addOption(watchdogOption())
    .addOption(jsonOption())
    .addHelpText('after', FUZZ_HELP)
    .action(async (opts: FuzzFlags) => {
      setExit(await fuzzCommand(io, opts));
    });

  registerReplayCommand(program, io, setExit);

  const mutants = program
    .command('mutants')
    .description('hunt every planted bug with its killer properties; exit 1 if one survives')
    .addOption(new Option('--id <id...>', 'only these planted bugs (default: all)'));
  const runs = new Option('--runs <n>', 'runs per killer property');
  for (const o of sweepOptions('planted bugs', 'the hunts run', runs, DEFAULT_MUTANT_RUNS))
    mutants.addOption(o);
  mutants
    .option('--vectors', 'instead of hunting, report which shared test vectors kill each planted bug', false)
    .addHelpText('after', MUTANTS_HELP)
    .action(async (opts: MutantsFlags & { vectors: boolean }) => {
      setExit(opts.vectors ? await mutantsVectorsCommand(io, opts) : await mutantsCommand(io, opts));
    });

  registerAblateCommand(program, io, setExit);

  program
    .command('crashpoints')
    .description('kill the provider, then the consumer, at every scheduling point of each mutating flow')
    .addOption(new Option('--provider <module>', 'your own provider apps instead of the reference apps'))
    .addOption(new Option('--flow <name...>', `only these flows (default: all): ${FLOW_KINDS.join(', ')}`))
    .addOption(new Option('--mutant <id>', 'run against this planted bug (see `cetp-sim mutants`)'))
    .addOption(androidOption('the worlds run (recorded in replay files)'))
    .addOption(
      new Option('--out <dir>', 'where failures write replay files').default(DEFAULT_CRASHPOINTS_OUT),
    )
    .addOption(workersOption())
    .addOption(watchdogOption())
    .addOption(jsonOption())
    .addHelpText('after', CRASHPOINTS_HELP)
    .action(async (opts: CrashpointsFlags) => {
      setExit(await crashpointsCommand(io, opts));
    });

  program
    .command('rules')
    .description(
      'the rule catalogue; --coverage: the checkers, properties and tests covering each rule; --fields: every wire field and the oracles judging it',
    )
    .option('--coverage', 'show what covers each rule', false)
    .option('--fields', 'show every wire field (both directions) and the oracles that judge it', false)
    .addOption(jsonOption())
    .action((opts: RulesFlags) => {
      setExit(rulesCommand(io, opts));
    });

  program
    .command('merge')
    .description('join the --json reports of the --shard jobs of one fuzz, mutants or ablate run')
    .argument('<file...>', "each shard's --json output")
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPrints the report one run over all the shards would have printed (same shape, catalogue order).\n' +
        'Reports of different commands or seeds, or shards that overlap, are refused. See docs/ci-matrix.md.\n' +
        'Exit codes: 0 merged and every shard held, 1 a shard failed (a property failed, a planted bug\n' +
        'survived), 2 an invalid or mismatched report (file and field named).',
    )
    .action((files: string[], opts: MergeFlags) => {
      setExit(mergeCommand(io, files, opts));
    });

  registerMatrixCommand(program, io, setExit);
  registerProposeCommand(program, io, setExit);
  registerVectorsCommand(program, io, setExit);
  registerServeCommand(program, io, setExit);
  registerZooCommand(program, io, setExit);

  return program;
}

/** `cetp-sim replay FILE`: re-runs a replay file (commands/replay.ts). */
function registerReplayCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('replay')
    .description('re-run a replay file bit for bit; exit 1 if it still fails, 0 if it now passes')
    .argument('<file>', 'a replay file written by `cetp-sim fuzz`')
    .option('--mermaid', 'also print the trace as a Mermaid sequence diagram', false)
    .addOption(
      new Option('--provider <module>', 'load this provider module (a replay file never loads one itself)'),
    )
    .addOption(
      new Option('--consumer <module>', 'load this consumer module (a replay file never loads one itself)'),
    )
    .addOption(androidOption("to re-run on instead of the file's (absent in the file: the default)"))
    .addOption(watchdogOption())
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nA replay file is data: the modules its campaign used are named in it, but only modules given here\n' +
        'are loaded (replay tells you which to pass). After a fix, replay it with your fixed module.\n' +
        'Exit codes: 0 now passes, 1 still fails, 2 bad file or usage, 3 determinism break: the same code\n' +
        '(content hashes recorded in the file) gave a different trace. A changed module or cetp-sim\n' +
        'may change the trace: then the verdict alone decides.',
    )
    .action(async (file: string, opts: ReplayFlags) => {
      setExit(await replayCommand(io, file, opts));
    });
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  let exit = EXIT_OK;
  const json = argv.includes('--json');
  const program = buildProgram(io, (code) => {
    exit = code;
  });
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT_USAGE;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exit;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
      if (error.code === 'commander.help') return EXIT_OK;
      const code = error.code.replace('commander.', '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      return json
        ? reportError(io, new CliError(isCliErrorCode(code) ? code : 'invalid_usage', error.message), true)
        : EXIT_USAGE;
    }
    return reportError(io, error, json);
  }
}

/** `cetp-sim ablate` (apart from buildProgram, which is long enough). */
function registerAblateCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  const ablate = program
    .command('ablate')
    .description("switch each rule's enforcement off and list the properties that catch it")
    .addOption(new Option('--rule <id...>', 'only these rules (default: every ablatable rule)'));
  const runs = new Option('--runs <n>', 'runs per property for each rule');
  for (const o of sweepOptions('rules', 'the ablated campaigns run', runs, DEFAULT_ABLATION_RUNS))
    ablate.addOption(o);
  ablate.addHelpText('after', ABLATE_HELP).action(async (opts: AblateFlags) => {
    setExit(await ablateCommand(io, opts));
  });
}
