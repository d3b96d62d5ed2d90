/**
 * `cetp-sim matrix`: the interpretation matrix (src/fuzz/matrix.ts). For each selected NOTES item,
 * every pairing of the provider's readings with the consumer's runs through the consumer-driven
 * properties; a pairing that fails one breaks, and its shrunk run is written as a replay file (which
 * `cetp-sim replay` reproduces: the readings are in it) with its Mermaid diagram. `--md FILE` writes
 * the generated document for spec authors (spec/matrix.md). Breaks are findings, not failures: the
 * command exits 0 when it ran. Jobs (one per pairing and property) spread over `--workers`; the
 * report, the JSON and the document do not depend on the number of workers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import {
  DEFAULT_MATRIX_RUNS,
  describePairing,
  divergentRuns,
  MATRIX_PROPERTIES,
  matrixPropertiesFor,
  type Pairing,
  pairingsOf,
  pairingVariant,
  readingRunsOf,
} from '../../fuzz/matrix.ts';
import type { PropertyDef } from '../../fuzz/suites.ts';
import { CliError, EXIT_OK } from '../../harness/errors.ts';
import {
  diagramFilePath,
  replayFilePath,
  writeDiagramFile,
  writeReplayFile,
} from '../../harness/replay-file.ts';
import { type ReadingRun, switchableNotes } from '../../protocol/readings.ts';
import { vectorVerdictFor } from '../../protocol/readings-findings.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { renderMermaid } from '../../sim/core/trace-render.ts';
import { loadCorpus, runInputs } from '../../vectors/corpus.ts';
import { PROFILES } from '../../vectors/format.ts';
import { dependenciesOf, vectorReadingsTable } from '../../vectors/readings.ts';
import type { VectorOutcome } from '../../vectors/run.ts';
import { parseIntArg } from '../args.ts';
import { DEFAULT_WORKERS, tailsOf } from '../campaign.ts';
import type { Io } from '../io.ts';
import { renderMatrixDoc } from '../matrix-doc.ts';
import { androidOption, RELEASES_RECORD, recordRelease } from '../matrix-releases.ts';
import type { MatrixResult, MatrixVectors, PairingResult, PropertyVerdict } from '../matrix-results.ts';
import { checkOutputs } from '../output-paths.ts';
import { startProgress } from '../progress.ts';
import { table } from '../table.ts';
import { mustFinish, runSpread } from '../worker/pool.ts';
import type { FuzzJob, PropertyOutcome, VectorFileJob } from '../worker/protocol.ts';
import type { Host } from '../worker/worker-host.ts';
import { HUNT_BUDGET_MS } from './mutants.ts';
import { DEFAULT_VECTORS_DIR } from './vectors.ts';

export const DEFAULT_MATRIX_OUT = '.cetp-sim/matrix';

export interface MatrixFlags {
  readonly note?: readonly string[];
  readonly seed: number;
  readonly runs: number;
  readonly out: string;
  readonly md?: string;
  readonly workers: number;
  readonly json: boolean;
  /** Also run the shared vectors against every reading (default; --no-vectors skips them). */
  readonly vectors: boolean;
  /** The Android release profile the pairings run (absent: the default, src/sim/core/release.ts). */
  readonly android?: AndroidRelease;
  /** Merge this run's verdicts, under its release, into this record (spec/matrix/releases.json). */
  readonly releases?: string;
}

export type { MatrixResult, MatrixVectors, PairingResult, PropertyVerdict } from '../matrix-results.ts';

/** A vector file's budget in a worker (as `vectors run`). */
const VECTOR_FILE_BUDGET_MS = 60_000;

/**
 * The shared vectors against each reading of the selected notes: provider vectors with the
 * reference providers made with each provider reading, consumer vectors with the reference consumer
 * made with each consumer reading, and once with the reference readings to compare with.
 */
async function runMatrixVectors(notes: readonly number[], workers: number): Promise<MatrixVectors> {
  const corpus = loadCorpus(DEFAULT_VECTORS_DIR);
  const inputs = runInputs(corpus);
  const providerFiles = inputs.filter((f) => f.vectors !== undefined);
  const consumerFiles = inputs.filter((f) => f.consumerVectors !== undefined);
  const readings = readingRunsOf(notes);
  const filesOf = (side: ReadingRun['side']) => (side === 'provider' ? providerFiles : consumerFiles);
  const sides = [...new Set(readings.map((r) => r.side))];
  const jobs: { run: ReadingRun | null; file: (typeof inputs)[number] }[] = [
    ...sides.flatMap((side) => filesOf(side).map((file) => ({ run: null, file }))),
    ...readings.flatMap((run) => filesOf(run.side).map((file) => ({ run, file }))),
  ];
  const perJob = await runSpread(jobs, {
    workers,
    userCode: false,
    run: (host, { run, file }) => {
      const job: VectorFileJob = {
        kind: 'vectors',
        file,
        dir: corpus.dir,
        profiles: [...PROFILES],
        modules: {},
        cwd: process.cwd(),
        ...(run
          ? {
              variant: {
                providerBugs: [],
                consumerBugs: [],
                disabledRules: [],
                readings: { [run.side]: run.readings },
              },
            }
          : {}),
      };
      return mustFinish<VectorOutcome[]>(host, job, VECTOR_FILE_BUDGET_MS);
    },
  });
  const outcomesOf = (run: ReadingRun | null) =>
    jobs.flatMap((j, i) => (j.run === run ? (perJob[i] ?? []) : []));
  const reference = outcomesOf(null);
  const count = (files: typeof inputs) =>
    files.reduce((n, f) => n + (f.vectors?.length ?? 0) + (f.consumerVectors?.length ?? 0), 0);
  return {
    readings,
    providerVectors: count(providerFiles),
    consumerVectors: count(consumerFiles),
    dependencies: readings.flatMap((run) => dependenciesOf(run, reference, outcomesOf(run))),
  };
}

function selectedNotes(ids: readonly string[] | undefined): number[] {
  const available = switchableNotes();
  if (!ids || ids.length === 0) return available;
  const notes = ids.map((id) => {
    const n = /^\d{1,2}$/.test(id) ? Number(id) : Number.NaN;
    if (!available.includes(n))
      throw new CliError(
        'unknown_note',
        `--note ${id}: no switchable readings for that NOTES item; notes with readings: ${available.join(', ')}`,
      );
    return n;
  });
  return [...new Set(notes)].sort((a, b) => a - b);
}

/** A pairing's verdict from its properties' and its reached counts (exported for the tests). */
export function verdictOf(
  pairing: Pairing,
  results: readonly PropertyVerdict[],
  divergent: Readonly<Record<string, number>>,
): PairingResult['verdict'] {
  if (results.some((r) => r.status === 'failed')) return 'breaks';
  if (results.some((r) => r.status === 'vacuous')) return 'vacuous';
  if (!pairing.reference && Object.values(divergent).every((n) => n === 0)) return 'not-reached';
  return 'interoperates';
}

/** How many scenarios of a pairing ran differently from the reference readings, over its properties. */
export function reachedCount(result: PairingResult): number {
  return Object.values(result.divergent).reduce((a, b) => a + b, 0);
}

/** One matrix property of one pairing: a fuzz job on the reference apps switched to the pairing's readings. */
export function runPairingProperty(
  host: Host,
  pairing: Pairing,
  def: PropertyDef,
  flags: { readonly seed: number; readonly runs: number; readonly android?: AndroidRelease | undefined },
): Promise<PropertyOutcome> {
  return mustFinish<PropertyOutcome>(host, pairingJob(pairing, def.id, flags), HUNT_BUDGET_MS);
}

/** Runs the matrix of the selected notes; writes the replay and diagram files of every break. */
export async function runMatrix(
  flags: Pick<MatrixFlags, 'note' | 'seed' | 'runs' | 'out' | 'workers' | 'android'> & {
    readonly vectors?: boolean;
  },
  observe: {
    readonly begin?: (what: string) => void;
    readonly done?: (what: string, line: string, failed: boolean) => void;
  } = {},
  renderDiagram: (events: Parameters<typeof writeDiagramFile>[1]) => string = () => '',
): Promise<MatrixResult> {
  const notes = selectedNotes(flags.note);
  const pairings = notes.flatMap(pairingsOf);
  const jobs = pairings.flatMap((pairing) =>
    matrixPropertiesFor(pairing.note).map((def) => ({ pairing, def })),
  );
  const outcomes = await runSpread(jobs, {
    workers: flags.workers,
    userCode: false,
    onStart: ({ pairing, def }) => observe.begin?.(`${pairing.id} ${def.id}`),
    run: (host, { pairing, def }) => runPairingProperty(host, pairing, def, flags),
    onResult: (outcome, { pairing, def }) =>
      observe.done?.(
        `${pairing.id} ${def.id}`,
        `  ${pairing.id} ${outcome.id}: ${outcome.status === 'failed' ? 'breaks' : outcome.status}`,
        outcome.status === 'failed',
      ),
  });
  const divergent = await divergentOf(pairings, flags.seed, flags.android);
  let next = 0;
  const results: PairingResult[] = pairings.map((pairing, p) => {
    const properties = matrixPropertiesFor(pairing.note).map((def): PropertyVerdict => {
      const outcome = outcomes[next++] as PropertyOutcome;
      const base = { property: def.id, status: outcome.status, runs: outcome.runs };
      const failure = outcome.failure;
      if (!failure) return base;
      const replay = replayFilePath(join(flags.out, pairing.id), def.id, flags.seed);
      writeReplayFile(replay, failure.replay, {}, process.cwd());
      writeDiagramFile(diagramFilePath(replay), failure.events);
      const first = failure.violations[0];
      return {
        ...base,
        ...(first ? { checker: first.checker, ruleIds: first.ruleIds, message: first.message } : {}),
        replay,
        diagram: diagramFilePath(replay),
        mermaid: renderDiagram(failure.events),
      };
    });
    const counts = divergent[p] ?? {};
    return { pairing, verdict: verdictOf(pairing, properties, counts), properties, divergent: counts };
  });
  const vectors = flags.vectors === false ? undefined : await runMatrixVectors(notes, flags.workers);
  if (vectors) writeVectorTable(flags.out, vectors);
  const android = flags.android !== undefined ? { android: flags.android } : {};
  return {
    seed: flags.seed,
    runs: flags.runs,
    notes,
    pairings: results,
    ...(vectors ? { vectors } : {}),
    ...android,
  };
}

/** The fuzz job of one property on one pairing (the same for matrix and propose). */
export function pairingJob(
  pairing: Pairing,
  property: string,
  flags: { readonly seed: number; readonly runs: number; readonly android?: AndroidRelease | undefined },
): FuzzJob {
  return {
    kind: 'fuzz',
    property,
    seed: flags.seed,
    runs: flags.runs,
    tails: tailsOf('portfolio'),
    variant: pairingVariant(pairing, flags.android),
    modules: {},
    cwd: process.cwd(),
  };
}

/** Per pairing, per property: how many sampled scenarios ran differently from the reference readings. */
async function divergentOf(
  pairings: readonly Pairing[],
  seed: number,
  android: AndroidRelease | undefined,
): Promise<Record<string, number>[]> {
  const referenceHashes = new Map<string, readonly string[]>();
  const divergent: Record<string, number>[] = [];
  for (const pairing of pairings) {
    const counts: Record<string, number> = {};
    for (const def of matrixPropertiesFor(pairing.note))
      counts[def.id] = pairing.reference
        ? 0
        : await divergentRuns(def, pairing, seed, referenceHashes, android);
    divergent.push(counts);
  }
  return divergent;
}

/** --out/vector-readings.json: per vector, the readings it assumes (for device teams). */
function writeVectorTable(out: string, vectors: MatrixVectors): void {
  const path = join(out, 'vector-readings.json');
  const table = vectorReadingsTable(vectors.dependencies, (d) => vectorVerdictFor(d.vector, d.readings));
  try {
    mkdirSync(out, { recursive: true });
    writeFileSync(path, `${JSON.stringify(table, null, 2)}\n`);
  } catch (error) {
    throw new CliError('matrix_write_failed', `cannot write ${path}: ${(error as Error).message}`);
  }
}

function jsonOf(result: MatrixResult): string {
  return JSON.stringify({
    seed: result.seed,
    runs: result.runs,
    ...(result.android !== undefined ? { android: result.android } : {}),
    coverage: 'full product of the provider and consumer readings of each note',
    properties: MATRIX_PROPERTIES.map((p) => p.id),
    situations: Object.fromEntries(
      result.notes.map((n) => [
        String(n),
        matrixPropertiesFor(n)
          .slice(MATRIX_PROPERTIES.length)
          .map((p) => p.id),
      ]),
    ),
    pairings: result.pairings.map((r) => ({
      note: r.pairing.note,
      id: r.pairing.id,
      provider: r.pairing.provider,
      consumer: r.pairing.consumer,
      reference: r.pairing.reference,
      verdict: r.verdict,
      reached: reachedCount(r),
      divergent: r.divergent,
      properties: r.properties.map(({ mermaid: _m, ...p }) => p),
    })),
    ...(result.vectors
      ? {
          vectors: {
            readings: result.vectors.readings.map((r) => r.id),
            providerVectors: result.vectors.providerVectors,
            consumerVectors: result.vectors.consumerVectors,
            dependencies: result.vectors.dependencies,
          },
        }
      : {}),
  });
}

export async function matrixCommand(io: Io, flags: MatrixFlags): Promise<number> {
  const c = io.color;
  checkOutputs([
    ['--out', flags.out, 'dir'],
    ['--md', flags.md, 'file'],
    ['--releases', flags.releases, 'file'],
  ]);
  const all = selectedNotes(flags.note).flatMap(pairingsOf);
  const notes = selectedNotes(flags.note);
  const jobCount = all.reduce((n, pairing) => n + matrixPropertiesFor(pairing.note).length, 0);
  if (!flags.json)
    io.out(
      c.bold(
        `cetp-sim matrix: ${notes.length} note(s), ${all.length} pairing(s) (full product of each note's readings), ${MATRIX_PROPERTIES.length} consumer-driven properties each, plus the note's situation (seed ${flags.seed}, ${flags.runs} runs per property)`,
      ),
    );
  const progress = startProgress(io, jobCount, {
    json: flags.json,
    noun: 'matrix',
    units: 'pairing runs',
    failure: 'breaking',
    countsRuns: false,
  });
  let result: MatrixResult;
  try {
    result = await runMatrix(
      flags,
      {
        begin: (what) => progress.begin(what),
        done: (what, line, failed) => progress.done(what, line, { failed }),
      },
      (events) => renderMermaid(events, { omit: ['pm'] }),
    );
  } finally {
    progress.finish();
  }
  if (flags.md !== undefined) {
    const doc = renderMatrixDoc(result, recordRelease(flags.releases, result));
    try {
      mkdirSync(dirname(flags.md), { recursive: true });
      writeFileSync(flags.md, doc);
    } catch (error) {
      throw new CliError('matrix_write_failed', `cannot write ${flags.md}: ${(error as Error).message}`);
    }
  }
  if (flags.md === undefined) recordRelease(flags.releases, result);
  if (flags.json) {
    io.out(jsonOf(result));
    return EXIT_OK;
  }
  const rows = result.pairings.map((r) => {
    const broken = r.properties.filter((p) => p.status === 'failed');
    const how = broken
      .map((p) => `${p.property} (${p.checker ?? '?'} ${(p.ruleIds ?? []).join(' ')})`)
      .join(', ');
    const verdict =
      r.verdict === 'breaks'
        ? c.red(c.bold('breaks'))
        : r.verdict === 'vacuous'
          ? c.yellow('vacuous')
          : r.verdict === 'not-reached'
            ? c.yellow('not reached')
            : c.green('interoperates');
    const reached = r.pairing.reference ? 'reference' : String(reachedCount(r));
    return [String(r.pairing.note), describePairing(r.pairing), verdict, reached, how];
  });
  io.out('');
  for (const line of table(
    ['note', 'pairing', 'verdict', 'reached', 'broken by (property (checker rules))'],
    rows,
  ))
    io.out(line);
  const breaks = result.pairings.filter((r) => r.verdict === 'breaks');
  io.out('');
  for (const r of breaks)
    for (const p of r.properties)
      if (p.replay) io.out(`  ${r.pairing.id}: cetp-sim replay ${p.replay}   (diagram ${p.diagram})`);
  const unreached = result.pairings.filter((r) => r.verdict === 'not-reached');
  if (unreached.length > 0)
    io.out(
      c.yellow(
        `${unreached.length} pairing(s) not reached: no sampled run went differently from the reference readings, so they were not judged (${unreached.map((r) => r.pairing.id).join(', ')}).`,
      ),
    );
  if (result.vectors) {
    io.out(
      `Vectors: ${result.vectors.providerVectors} provider and ${result.vectors.consumerVectors} consumer vectors against ${result.vectors.readings.length} reading(s); ${result.vectors.dependencies.length} verdict(s) depend on a reading:`,
    );
    for (const d of result.vectors.dependencies)
      io.out(
        `  ${d.vector} (${d.level}): ${d.reference} → ${d.status} under ${d.side} ${Object.entries(d.readings)
          .map(([v, r]) => `${v}=${r}`)
          .join(', ')} — ${vectorVerdictFor(d.vector, d.readings)?.kind ?? 'not yet judged'}`,
      );
    io.out(`  table: ${join(flags.out, 'vector-readings.json')}`);
  }
  io.out(
    breaks.length === 0 && unreached.length === 0
      ? c.green(`Every one of the ${result.pairings.length} pairing(s) interoperates.`)
      : breaks.length === 0
        ? c.yellow(`No pairing breaks, but ${unreached.length} were not reached.`)
        : c.yellow(
            `${breaks.length} of ${result.pairings.length} pairing(s) break: each is a place where the spec lets two careful implementations disagree.`,
          ),
  );
  if (flags.md !== undefined) io.out(`document written: ${flags.md}`);
  return EXIT_OK;
}

const MATRIX_HELP = `
Every pairing of a note's provider readings with its consumer readings (the full product: at most
4 x 4 today) runs the consumer-driven properties (${MATRIX_PROPERTIES.map((p) => p.id).join(', ')}) and, for
notes 5, 8, 10, 11 and 16, the note's situation property (a world that makes the readings' deciding
moment happen). Each pairing runs the same scenarios (seeded by --seed alone), so two pairings
differ only by their readings; a pairing no sampled run distinguishes from the reference readings
is reported "not reached", not "interoperates". Then the shared vectors (vectors/) run against
every provider reading (provider vectors) and consumer reading (consumer vectors); the vectors whose
verdict changes are listed and written to --out/vector-readings.json (--no-vectors skips this).
Breaking pairings write a replay file and a Mermaid diagram under --out (default ${DEFAULT_MATRIX_OUT});
\`cetp-sim replay FILE\` reproduces the break. --md FILE writes the generated document for spec
authors (the repository's is spec/matrix.md: cetp-sim matrix --md spec/matrix.md --out spec/matrix
--releases ${RELEASES_RECORD}). --android N runs every pairing on that release profile; with
--releases FILE its verdicts are merged into FILE under N, and the document states per break the
releases it breaks on (re-run each: --android 15 and 16 with --no-vectors and --out elsewhere).
Same arguments, same bytes (--json and the document); --workers changes only the speed.
Exit codes: 0 it ran (breaking pairings are findings, not failures), 2 bad usage.`;

export function registerMatrixCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('matrix')
    .description('pair the readings of each ambiguous spec point and report which pairings break')
    .addOption(
      new Option(
        '--note <n...>',
        `only these NOTES items (default: all with readings: ${switchableNotes().join(', ')})`,
      ),
    )
    .addOption(
      new Option('--runs <n>', 'runs per property and pairing')
        .argParser(parseIntArg('--runs', 1))
        .default(DEFAULT_MATRIX_RUNS),
    )
    .addOption(
      new Option('--seed <n>', 'campaign seed (each property derives its own from it)')
        .argParser(parseIntArg('--seed'))
        .default(0),
    )
    .addOption(
      new Option('--out <dir>', 'where breaking pairings write replay files').default(DEFAULT_MATRIX_OUT),
    )
    .addOption(new Option('--md <file>', 'also write the generated document (spec/matrix.md)'))
    .addOption(
      new Option('--workers <n>', 'worker threads (results are the same for any number)')
        .argParser(parseIntArg('--workers', 1))
        .default(DEFAULT_WORKERS),
    )
    .addOption(new Option('--no-vectors', 'do not run the shared vectors against each reading'))
    .addOption(androidOption())
    .addOption(
      new Option(
        '--releases <file>',
        `merge this run's verdicts, under its release, into a record (${RELEASES_RECORD}, which --md reads)`,
      ),
    )
    .addOption(new Option('--json', 'print one JSON object on stdout').default(false))
    .addHelpText('after', MATRIX_HELP)
    .action(async (opts: MatrixFlags) => {
      setExit(await matrixCommand(io, opts));
    });
}
