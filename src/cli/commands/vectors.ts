/**
 * `cetp-sim vectors generate|verify|run|export` and `cetp-sim mutants --vectors`: the shared test
 * vectors for real devices (src/vectors). generate fills the committed corpus from the sources by
 * running the reference apps; verify checks a corpus against its schemas and hashes; run replays it
 * in the simulation against the reference, a user's provider module or a planted bug; export writes
 * adb smoke-test scripts. A malformed corpus or baseline is a CliError (exit 2) naming file and path.
 * `run` spreads the corpus over `--workers` threads one vector file per job (a `--provider` module
 * loads only in the workers) and joins the outcomes in corpus order: the same report for any number.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Command, Option } from 'commander';
import { MUTANTS } from '../../fuzz/mutants.ts';
import { REFERENCE } from '../../fuzz/scenario/model.ts';
import type { CliErrorCode } from '../../harness/error-codes.ts';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from '../../harness/errors.ts';
import { PACKAGE_ROOT } from '../../harness/root.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { exportAdb } from '../../vectors/adb.ts';
import { type Baseline, loadBaseline } from '../../vectors/baseline.ts';
import {
  blobReader,
  type Corpus,
  CorpusError,
  loadCorpus,
  runInputs,
  vectorIds,
  verifyCorpus,
} from '../../vectors/corpus.ts';
import { ABILITIES, type Ability, PROFILES, type Profile } from '../../vectors/format.ts';
import { droppedIds, GenerationError, generateCorpus } from '../../vectors/generate.ts';
import { killMatrix } from '../../vectors/kills.ts';
import { inspectOutDir, staleFiles } from '../../vectors/out-dir.ts';
import { ctrfReport, junitXml, runJson } from '../../vectors/reports.ts';
import {
  type RunInput,
  type RunOptions,
  selectsAny,
  summarize,
  type VectorOutcome,
} from '../../vectors/run.ts';
import { androidFlag, parseIntArg } from '../args.ts';
import { DEFAULT_WORKERS, DEFAULT_WORKERS_HELP } from '../campaign.ts';
import type { Io } from '../io.ts';
import { checkOutputs } from '../output-paths.ts';
import { table } from '../table.ts';
import { judgeVectorFile } from '../worker/judge-vectors.ts';
import { type Host, mustFinish, runSpread } from '../worker/pool.ts';
import type { VectorFileJob } from '../worker/protocol.ts';

export const DEFAULT_VECTORS_DIR = join(PACKAGE_ROOT, 'vectors');
const VERSION = '0.1.0';

function corpusAt(dir: string): Corpus {
  try {
    return loadCorpus(dir);
  } catch (error) {
    if (error instanceof CorpusError) throw new CliError('invalid_corpus', error.message);
    throw error;
  }
}

function write(path: string, content: string, what: 'corpus' | 'junit' | 'ctrf' | 'adb'): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  } catch (error) {
    throw new CliError(`${what}_write_failed`, `cannot write ${path}: ${(error as Error).message}`);
  }
}

// ---- generate ----

export interface GenerateFlags {
  readonly out: string;
  readonly json: boolean;
}

/** A CorpusError of the output folder or its baselines as a usage error (exit 2). */
function refused<T>(code: CliErrorCode, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof CorpusError) throw new CliError(code, error.message);
    throw error;
  }
}

/**
 * Writes only into an empty folder or a corpus it generated; removes only what that corpus's
 * manifest lists (src/vectors/out-dir.ts). Checked before generating, so a refusal costs nothing.
 */
export async function vectorsGenerateCommand(io: Io, flags: GenerateFlags): Promise<number> {
  checkOutputs([['--out', flags.out, 'dir']]);
  const outDir = refused('output_refused', () => inspectOutDir(flags.out));
  for (const b of outDir.baselines) refused('invalid_baseline', () => loadBaseline(join(flags.out, b)));
  let generated: Awaited<ReturnType<typeof generateCorpus>>;
  try {
    generated = await generateCorpus();
  } catch (error) {
    if (error instanceof GenerationError) throw new CliError('generation_failed', error.message, 3);
    throw error;
  }
  const { corpus, vectors, coverage: c } = generated;
  const dropped = refused('invalid_corpus', () => droppedIds(flags.out, corpus, outDir));
  if (dropped.length > 0)
    throw new CliError(
      'vector_removed',
      `${dropped.join(', ')} left the sources: ids are never reused; keep the vector and mark it "deprecated" instead`,
    );
  for (const stale of staleFiles(flags.out, outDir, corpus)) rmSync(join(flags.out, stale));
  for (const [path, content] of corpus) write(join(flags.out, path), content, 'corpus');
  if (flags.json) {
    io.out(
      JSON.stringify({
        files: corpus.size,
        vectors,
        coverage: {
          rules: c.rules.length,
          covered: c.covered.length,
          percent: c.percent,
          uncovered: c.uncovered,
        },
        error_codes_missing: c.codesMissing,
      }),
    );
    return EXIT_OK;
  }
  io.out(`Wrote ${vectors} vectors (${corpus.size} files: manifest, schemas, uncovered.md) to ${flags.out}.`);
  io.out(
    `Rule coverage: ${c.covered.length}/${c.rules.length} provider-side testable MUST / MUST NOT rules (${c.percent}%); the rest are in uncovered.md.`,
  );
  if (c.codesMissing.length > 0) io.out(`Error codes no vector produces: ${c.codesMissing.join(', ')}`);
  return EXIT_OK;
}

// ---- verify ----

export interface VerifyFlags {
  readonly dir: string;
  readonly json: boolean;
}

export function vectorsVerifyCommand(io: Io, flags: VerifyFlags): number {
  const { issues, corpus } = verifyCorpus(flags.dir);
  const vectors = corpus ? vectorIds(corpus).length : 0;
  if (flags.json) io.out(JSON.stringify({ ok: issues.length === 0, vectors, issues }));
  else if (issues.length === 0)
    io.out(io.color.green(`${flags.dir}: ${vectors} vectors; schemas and hashes verify.`));
  else
    for (const i of issues)
      io.err(`${io.color.red('error')} invalid_corpus: ${i.file}: ${i.path}: ${i.message}`);
  return issues.length === 0 ? EXIT_OK : EXIT_USAGE;
}

// ---- run ----

export interface RunFlags {
  readonly dir: string;
  readonly provider?: string;
  readonly fixture?: string;
  readonly profile: readonly string[];
  readonly lacks?: readonly Ability[];
  readonly id?: readonly string[];
  readonly baseline?: string;
  readonly json: boolean;
  readonly junit?: string;
  readonly ctrf?: string;
  readonly workers: number;
  /** `--android`: the release profile of the vectors' worlds (src/sim/core/release.ts; absent: the default). */
  readonly android?: AndroidRelease;
}

/** Wall-clock ms one vector file may take (its vectors take well under a second): past it, a hang. */
const VECTOR_FILE_BUDGET_MS = 60_000;

function profilesOf(flag: readonly string[]): Profile[] {
  return flag.includes('all') ? ['core', 'async', 'cancellation', 'large-results'] : (flag as Profile[]);
}

function baselineAt(path: string | undefined): Baseline | undefined {
  if (path === undefined) return undefined;
  try {
    return loadBaseline(path);
  } catch (error) {
    if (error instanceof CorpusError) throw new CliError('invalid_baseline', error.message);
    throw error;
  }
}

/** Checks --fixture against the corpus (the module itself loads in the workers: worker/jobs.ts). */
function checkFixture(flags: RunFlags, corpus: Corpus): void {
  if (flags.fixture === undefined) return;
  if (!flags.provider) throw new CliError('invalid_usage', '--fixture needs --provider');
  if (!(flags.fixture in corpus.manifest.fixtures))
    throw new CliError(
      'unknown_fixture',
      `--fixture ${flags.fixture}: the corpus has the fixtures ${Object.keys(corpus.manifest.fixtures).join(', ')}`,
    );
}

/** The job of one vector file (worker/jobs.ts), with the run's selection, module and profile. */
function vectorFileJob(
  flags: RunFlags,
  corpus: Corpus,
  selection: Pick<RunOptions, 'profiles' | 'ids' | 'baseline'>,
  file: RunInput,
): VectorFileJob {
  return {
    kind: 'vectors',
    file,
    dir: corpus.dir,
    profiles: selection.profiles,
    modules: flags.provider !== undefined ? { provider: flags.provider } : {},
    cwd: process.cwd(),
    ...(flags.fixture !== undefined ? { fixture: flags.fixture } : {}),
    ...(flags.lacks ? { lacks: flags.lacks } : {}),
    ...(flags.id ? { ids: flags.id } : {}),
    ...(selection.baseline ? { baseline: [...selection.baseline] } : {}),
    ...(flags.android !== undefined ? { variant: { ...REFERENCE, android: flags.android } } : {}),
  };
}

/** Runs one vector file; a module's runs are judged here, from their records (judge-vectors.ts). */
async function runFileJob(host: Host, job: VectorFileJob): Promise<VectorOutcome[]> {
  const outcomes = await mustFinish<VectorOutcome[]>(host, job, VECTOR_FILE_BUDGET_MS);
  return job.modules.provider !== undefined ? judgeVectorFile(job, outcomes) : outcomes;
}

export async function vectorsRunCommand(io: Io, flags: RunFlags): Promise<number> {
  checkOutputs([
    ['--junit', flags.junit, 'file'],
    ['--ctrf', flags.ctrf, 'file'],
  ]);
  const corpus = corpusAt(flags.dir);
  const baseline = baselineAt(flags.baseline);
  checkFixture(flags, corpus);
  const known = new Set(vectorIds(corpus));
  const unknown = (flags.id ?? []).filter((id) => !known.has(id));
  if (unknown.length > 0) throw new CliError('unknown_vector', `no vector with id ${unknown.join(', ')}`);
  const selection: Pick<RunOptions, 'profiles' | 'ids' | 'baseline'> = {
    profiles: profilesOf(flags.profile),
    ...(flags.id ? { ids: flags.id } : {}),
    ...(baseline ? { baseline } : {}),
  };
  const inputs = runInputs(corpus);
  const job = (file: (typeof inputs)[number]) => vectorFileJob(flags, corpus, selection, file);
  const start = Date.now();
  const perFile = await runSpread(
    inputs.filter((file) => selectsAny(file, selection)),
    {
      workers: flags.workers,
      userCode: flags.provider !== undefined,
      run: (host, file) => runFileJob(host, job(file)),
    },
  );
  const summary = summarize(inputs, perFile.flat(), selection);
  const stop = Date.now();
  if (flags.junit) write(flags.junit, junitXml(summary), 'junit');
  if (flags.ctrf)
    write(flags.ctrf, `${JSON.stringify(ctrfReport(summary, { start, stop }, VERSION), null, 2)}\n`, 'ctrf');
  if (flags.json) {
    io.out(
      JSON.stringify({
        ...(flags.android !== undefined ? { android: flags.android } : {}),
        ...runJson(summary),
      }),
    );
    return summary.ok ? EXIT_OK : EXIT_FAILED;
  }
  const c = io.color;
  const paint = { pass: c.green, fail: c.red, stale: c.red, skip: c.yellow, xfail: c.yellow } as const;
  for (const o of summary.outcomes) {
    if (o.status === 'pass') continue;
    const f = o.failures?.[0];
    const why = o.status === 'fail' && f ? `step ${f.step}: ${f.path}: ${f.message}` : (o.reason ?? '');
    io.out(`  ${paint[o.status](o.status.padEnd(5))} ${o.id}  ${why}`);
  }
  for (const id of summary.unknownBaselineIds)
    io.out(`  ${c.red('stale')} ${id}  the baseline names no such vector`);
  const n = summary.counts;
  io.out(
    `${summary.outcomes.length} vectors: ${n.pass} pass, ${n.fail} fail, ${n.skip} skip, ${n.xfail} xfail, ${n.stale} stale.`,
  );
  io.out(
    `Profile claims: ${Object.entries(summary.claims)
      .map(([p, s]) => `${p} ${s}`)
      .join(', ')}.`,
  );
  return summary.ok ? EXIT_OK : EXIT_FAILED;
}

// ---- export ----

export interface ExportFlags {
  readonly dir: string;
  readonly adb: string;
  readonly json: boolean;
}

/**
 * The scripts an earlier export left in `dir` (removed before writing the new ones); anything else
 * there is the user's: exit 2 naming it, and nothing is removed.
 */
function previousExport(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  const foreign = entries.find(
    (e) => !e.isFile() || !/^([A-Za-z0-9_.-]+\.sh|NOT-EXPORTED\.md)$/.test(e.name),
  );
  if (foreign)
    throw new CliError(
      'output_refused',
      `--adb ${dir}: ${join(dir, foreign.name)} is not a script an export wrote: export writes only into an empty folder or an earlier export's (choose another --adb)`,
    );
  return entries.map((e) => e.name);
}

export function vectorsExportCommand(io: Io, flags: ExportFlags): number {
  checkOutputs([['--adb', flags.adb, 'dir']]);
  const corpus = corpusAt(flags.dir);
  const result = exportAdb(corpus);
  for (const old of previousExport(flags.adb)) rmSync(join(flags.adb, old));
  for (const [path, content] of result.files) write(join(flags.adb, path), content, 'adb');
  if (flags.json) io.out(JSON.stringify({ exported: result.exported, skipped: result.skipped }));
  else
    io.out(
      `Wrote ${result.exported.length} adb scripts to ${flags.adb}; ${result.skipped.length} vectors could not be exported (see ${join(flags.adb, 'NOT-EXPORTED.md')}).`,
    );
  return EXIT_OK;
}

// ---- mutants --vectors ----

export interface MutantVectorsFlags {
  readonly id?: readonly string[];
  readonly json: boolean;
  /** `mutants --vectors --android R`: the profile the vectors' worlds run on. */
  readonly android?: AndroidRelease;
}

export async function mutantsVectorsCommand(io: Io, flags: MutantVectorsFlags): Promise<number> {
  const corpus = corpusAt(DEFAULT_VECTORS_DIR);
  const mutants = MUTANTS.filter((m) => !flags.id || flags.id.includes(m.id));
  const rows = await killMatrix(runInputs(corpus), mutants, blobReader(corpus), flags.android);
  // Only provider bugs must die: the consumer side has a handful of vectors, reported for what they catch.
  const survivors = rows.filter(
    (r) => r.component === 'provider' && r.killedBy.length === 0 && r.invisible === null,
  );
  if (flags.json) {
    io.out(
      JSON.stringify({ ...(flags.android !== undefined ? { android: flags.android } : {}), mutants: rows }),
    );
    return survivors.length === 0 ? EXIT_OK : EXIT_FAILED;
  }
  const c = io.color;
  const lines = table(
    ['planted bug', 'side', 'killed by vectors', 'rules'],
    rows.map((r) => [
      r.id,
      r.component,
      r.killedBy.length > 0
        ? r.killedBy.join(' ')
        : r.invisible !== null
          ? c.yellow(`not visible from outside: ${r.invisible}`)
          : r.component === 'consumer'
            ? c.yellow('no consumer vector')
            : c.red('SURVIVED'),
      r.rules.join(' '),
    ]),
  );
  for (const line of lines) io.out(line);
  io.out(
    survivors.length === 0
      ? c.green(
          `Every planted provider bug visible from outside fails at least one vector (${rows.filter((r) => r.component === 'provider').length} provider bugs).`,
        )
      : c.red(
          `${survivors.length} planted bug(s) no vector catches: ${survivors.map((s) => s.id).join(', ')}`,
        ),
  );
  return survivors.length === 0 ? EXIT_OK : EXIT_FAILED;
}

// ---- registration ----

const RUN_HELP = `
Runs the corpus in the simulation: against the reference apps (they must pass 100%), or against the
provider apps of --provider MODULE (the fuzz command's module interface; a vector runs against the
module's fixture of the same name, else it is skipped; --fixture NAME makes a module's single
provider stand for the corpus fixture NAME). --lacks ABILITY skips the vectors a device
runner without that ability could not run. --baseline FILE lists expected failures by vector id with
a reason (vectors/schemas/baseline.schema.json); an entry that passes is stale and fails the run.
A profile claim is met only if every MUST / MUST NOT vector of the profile passes.
The vector files are spread over --workers threads (${DEFAULT_WORKERS_HELP}; a --provider module
always loads in worker threads); the report is in corpus order and identical for any number of workers.
Exit codes: 0 all pass (or expected failures), 1 a failure or stale baseline entry, 2 bad input.`;

/** `--workers N` of `vectors run`. */
function workersFlag(): Option {
  return new Option('--workers <n>', 'worker threads (results are the same for any number)')
    .argParser(parseIntArg('--workers', 1))
    .default(DEFAULT_WORKERS, `${DEFAULT_WORKERS}, the cores`);
}

/** `cetp-sim vectors …` (the one registration main.ts makes). */
export function registerVectorsCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  const vectors = program
    .command('vectors')
    .description('shared test vectors for real devices: generate, verify, run, export')
    .action(() => {
      // No subcommand: a usage error that shows the subcommands (not a silent exit 0).
      vectors.outputHelp({ error: true });
      setExit(EXIT_USAGE);
    });
  const json = () => new Option('--json', 'print one JSON object on stdout').default(false);
  const dir = () => new Option('--dir <dir>', 'the corpus folder').default(DEFAULT_VECTORS_DIR);
  vectors
    .command('generate')
    .description('fill the corpus from the sources by running the reference apps (deterministic)')
    .addOption(new Option('--out <dir>', 'where to write the corpus').default(DEFAULT_VECTORS_DIR))
    .addOption(json())
    .action(async (opts: GenerateFlags) => {
      setExit(await vectorsGenerateCommand(io, opts));
    });
  vectors
    .command('verify')
    .description("check a corpus against its schemas and its manifest's hashes")
    .addOption(dir())
    .addOption(json())
    .addHelpText(
      'after',
      '\nExit codes: 0 the corpus verifies, 2 it does not (each problem with file and JSON path).',
    )
    .action((opts: VerifyFlags) => {
      setExit(vectorsVerifyCommand(io, opts));
    });
  vectors
    .command('run')
    .description('replay the corpus in the simulation and report each vector')
    .addOption(dir())
    .addOption(new Option('--provider <module>', 'run against your own provider apps'))
    .addOption(
      new Option(
        '--fixture <name>',
        "the corpus fixture your module's one provider stands for (e.g. alerts)",
      ),
    )
    .addOption(
      new Option('--profile <profile...>', 'conformance profiles to run')
        .choices([...PROFILES, 'all'])
        .default(['all']),
    )
    .addOption(new Option('--lacks <ability...>', 'abilities the runner lacks').choices([...ABILITIES]))
    .addOption(new Option('--id <id...>', 'only these vectors'))
    .addOption(new Option('--baseline <file>', 'expected failures'))
    .addOption(new Option('--junit <file>', 'also write a JUnit XML report'))
    .addOption(new Option('--ctrf <file>', 'also write a CTRF JSON report'))
    .addOption(androidFlag('the vectors run on'))
    .addOption(workersFlag())
    .addOption(json())
    .addHelpText('after', RUN_HELP)
    .action(async (opts: RunFlags) => {
      setExit(await vectorsRunCommand(io, opts));
    });
  vectors
    .command('export')
    .description('write adb `content call` smoke-test scripts for the vectors that allow it')
    .addOption(dir())
    .addOption(new Option('--adb <dir>', 'where to write the scripts').makeOptionMandatory())
    .addOption(json())
    .action((opts: ExportFlags) => {
      setExit(vectorsExportCommand(io, opts));
    });
}
