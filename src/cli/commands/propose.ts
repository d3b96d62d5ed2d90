/**
 * `cetp-sim propose FILE...`: checks proposed wordings of the spec against the interpretation
 * matrix. A wording file (src/fuzz/propose.ts) says which readings of the notes it touches it still
 * allows, or which proposed reading it adds; the matrix then runs today's pairings of those notes and
 * the pairings the wording leaves (each once, whatever number of wordings share it), and the report
 * says per break: closed (the wording excludes the pairing), still open (it keeps it), or new (a
 * pairing only the wording allows breaks). Replays of open and new breaks go under --out/<wording>/.
 * A wording is verified when it leaves no break open and opens none (closing none: it pins today's readings).
 * Same arguments, same bytes (text and --json); exit 0 when it ran, 2 on a bad wording file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import {
  DEFAULT_MATRIX_RUNS,
  describePairing,
  divergentRuns,
  matrixPropertiesFor,
} from '../../fuzz/matrix.ts';
import {
  type BreakOutcome,
  baselinePairings,
  classifyBreaks,
  notesOf,
  type PlannedPairing,
  proposedPairings,
  readWording as readWordingFile,
  type Wording,
  WordingError,
} from '../../fuzz/propose.ts';
import { CliError, EXIT_OK, isCliErrorCode } from '../../harness/errors.ts';
import {
  diagramFilePath,
  replayFilePath,
  writeDiagramFile,
  writeReplayFile,
} from '../../harness/replay-file.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { parseIntArg } from '../args.ts';
import { DEFAULT_WORKERS } from '../campaign.ts';
import type { Io } from '../io.ts';
import { androidOption } from '../matrix-releases.ts';
import type { BreakReport, ProposeResult, WordingReport } from '../matrix-results.ts';
import { checkOutputs } from '../output-paths.ts';
import { outcomeLine } from '../wordings-record.ts';
import { runSpread } from '../worker/pool.ts';
import type { PropertyOutcome } from '../worker/protocol.ts';
import { type PropertyVerdict, runPairingProperty, verdictOf } from './matrix.ts';

export const DEFAULT_PROPOSE_OUT = '.cetp-sim/propose';

export interface ProposeFlags {
  readonly seed: number;
  readonly runs: number;
  readonly out: string;
  readonly workers: number;
  readonly json: boolean;
  readonly record?: string;
  /** The Android release profile the pairings run (absent: the default, src/sim/core/release.ts). */
  readonly android?: AndroidRelease;
}

/** One pairing's run: its verdict and, for a break, the failing properties. */
interface PairingRun {
  readonly pairing: PlannedPairing;
  readonly verdict: ReturnType<typeof verdictOf>;
  readonly properties: readonly (PropertyVerdict & { readonly outcome: PropertyOutcome })[];
  readonly reached?: number;
}

export type { BreakReport, ProposeResult, WordingReport } from '../matrix-results.ts';

/** A wording file, read and checked; its problem as a CliError (exit 2, file and field named). */
function readWording(file: string): Wording {
  try {
    return readWordingFile(file);
  } catch (error) {
    if (error instanceof WordingError)
      throw new CliError(isCliErrorCode(error.code) ? error.code : 'bad_wording', error.message);
    throw error;
  }
}

/** Runs every pairing once (in a fixed order), whichever wordings need it. */
async function runPairings(
  pairings: readonly PlannedPairing[],
  fresh: ReadonlySet<string>,
  flags: Pick<ProposeFlags, 'seed' | 'runs' | 'workers' | 'android'>,
): Promise<Map<string, PairingRun>> {
  const jobs = pairings.flatMap((pairing) =>
    matrixPropertiesFor(pairing.note).map((def) => ({ pairing, def })),
  );
  const outcomes = await runSpread(jobs, {
    workers: flags.workers,
    userCode: false,
    run: (host, { pairing, def }) => runPairingProperty(host, pairing, def, flags),
  });
  const referenceHashes = new Map<string, readonly string[]>();
  const runs = new Map<string, PairingRun>();
  let next = 0;
  for (const pairing of pairings) {
    const properties = matrixPropertiesFor(pairing.note).map((def) => {
      const outcome = outcomes[next++] as PropertyOutcome;
      const first = outcome.failure?.violations[0];
      return {
        property: def.id,
        status: outcome.status,
        runs: outcome.runs,
        ...(first ? { checker: first.checker, ruleIds: first.ruleIds, message: first.message } : {}),
        outcome,
      };
    });
    // Only a pairing no baseline has needs its reach measured: a proposed reading never reached judges nothing.
    const counts: Record<string, number> = {};
    if (fresh.has(pairing.id))
      for (const def of matrixPropertiesFor(pairing.note))
        counts[def.id] = await divergentRuns(def, pairing, flags.seed, referenceHashes, flags.android);
    const reached = fresh.has(pairing.id) ? Object.values(counts).reduce((a, b) => a + b, 0) : undefined;
    const verdict = verdictOf(pairing, properties, fresh.has(pairing.id) ? counts : { any: 1 });
    runs.set(pairing.id, { pairing, verdict, properties, ...(reached !== undefined ? { reached } : {}) });
  }
  return runs;
}

/** The properties a pairing broke; for a break left open or new, its replay and diagram written under `dir`. */
function brokenOf(run: PairingRun, outcome: BreakOutcome, dir: string, seed: number): BreakReport['broken'] {
  return run.properties
    .filter((p) => p.status === 'failed')
    .map((p) => {
      const base = {
        property: p.property,
        checker: p.checker ?? '?',
        ruleIds: p.ruleIds ?? [],
        message: p.message ?? '',
      };
      const failure = p.outcome.failure;
      if (outcome === 'closed' || !failure) return base;
      const replay = replayFilePath(dir, p.property, seed);
      writeReplayFile(replay, failure.replay, {}, process.cwd());
      writeDiagramFile(diagramFilePath(replay), failure.events);
      return { ...base, replay };
    });
}

/** Checks the wordings: plans, runs and classifies; writes the replays of open and new breaks. */
export async function runPropose(
  files: readonly string[],
  flags: Pick<ProposeFlags, 'seed' | 'runs' | 'workers' | 'out' | 'android'>,
): Promise<ProposeResult> {
  const wordings = files.map(readWording);
  const seen = new Set<string>();
  for (const w of wordings) {
    if (seen.has(w.id)) throw new CliError('bad_wording', `${w.file}: $.id: "${w.id}" is used by two files`);
    seen.add(w.id);
  }
  const plans = wordings.map((w) => {
    const notes = notesOf(w);
    const baseline = notes.flatMap(baselinePairings);
    const proposal = notes.flatMap((n) => proposedPairings(w, n));
    if (notes.some((n) => !proposal.some((p) => p.note === n)))
      throw new CliError('bad_wording', `${w.file}: $.allow: leaves no pairing of a note it touches`);
    return { w, notes, baseline, proposal };
  });
  const all = new Map<string, PlannedPairing>();
  const fresh = new Set<string>();
  for (const { baseline, proposal } of plans) {
    for (const p of [...baseline, ...proposal]) all.set(p.id, p);
    const before = new Set(baseline.map((p) => p.id));
    for (const p of proposal) if (!before.has(p.id)) fresh.add(p.id);
  }
  const ordered = [...all.values()].sort(
    (a, b) => a.note - b.note || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const runs = await runPairings(ordered, fresh, flags);
  const runOf = (p: PlannedPairing) => runs.get(p.id) as PairingRun;
  const reports = plans.map(({ w, notes, baseline, proposal }): WordingReport => {
    const classified = classifyBreaks(baseline, proposal, (p) => runOf(p).verdict);
    const breaks = classified.map(({ pairing, outcome }): BreakReport => {
      const run = runOf(pairing);
      const broken = brokenOf(run, outcome, join(flags.out, w.id, pairing.id), flags.seed);
      return { pairing: pairing.id, describe: describePairing(pairing), outcome, broken };
    });
    const count = (o: BreakOutcome) => breaks.filter((b) => b.outcome === o).length;
    const notReached = proposal.filter((p) => fresh.has(p.id) && runOf(p).verdict === 'not-reached');
    const closes = count('closed');
    const stillOpen = count('still-open');
    const opens = count('new');
    return {
      id: w.id,
      file: w.file,
      source: w.source,
      text: w.text,
      notes,
      allow: w.allow,
      pairings: proposal.map((p) => {
        const r = runOf(p);
        return { id: p.id, verdict: r.verdict, ...(r.reached !== undefined ? { reached: r.reached } : {}) };
      }),
      breaks,
      closes,
      stillOpen,
      opens,
      notReached: notReached.map((p) => p.id),
      verified: stillOpen === 0 && opens === 0 && notReached.length === 0,
    };
  });
  return {
    seed: flags.seed,
    runs: flags.runs,
    ...(flags.android !== undefined ? { android: flags.android } : {}),
    wordings: reports,
  };
}

function jsonOf(result: ProposeResult, pretty: boolean): string {
  return pretty ? `${JSON.stringify(result, null, 2)}\n` : JSON.stringify(result);
}

export async function proposeCommand(io: Io, files: readonly string[], flags: ProposeFlags): Promise<number> {
  const c = io.color;
  checkOutputs([
    ['--out', flags.out, 'dir'],
    ['--record', flags.record, 'file'],
  ]);
  const result = await runPropose(files, flags);
  if (flags.record !== undefined) {
    try {
      mkdirSync(dirname(flags.record), { recursive: true });
      writeFileSync(flags.record, jsonOf(result, true));
    } catch (error) {
      throw new CliError('propose_write_failed', `cannot write ${flags.record}: ${(error as Error).message}`);
    }
  }
  if (flags.json) {
    io.out(jsonOf(result, false));
    return EXIT_OK;
  }
  io.out(
    c.bold(
      `cetp-sim propose: ${result.wordings.length} wording(s) (seed ${result.seed}, ${result.runs} runs per property and pairing${result.android !== undefined ? `, Android ${result.android}` : ''})`,
    ),
  );
  for (const w of result.wordings) {
    io.out('');
    io.out(`${c.bold(w.id)} (${w.file}; notes ${w.notes.join(', ')}): ${w.text}`);
    for (const b of w.breaks) {
      const how = b.broken.map((p) => `${p.property} (${p.checker})`).join(', ');
      const mark =
        b.outcome === 'closed'
          ? c.green('closed')
          : b.outcome === 'new'
            ? c.red('NEW BREAK')
            : c.yellow('still open');
      io.out(`  ${mark}: ${b.describe}: ${how}`);
      for (const p of b.broken) if (p.replay) io.out(`    cetp-sim replay ${p.replay}`);
    }
    if (w.breaks.length === 0) io.out('  no pairing of these notes breaks, today or under the wording');
    for (const id of w.notReached)
      io.out(c.yellow(`  not reached: ${id} (no sampled run differed from the reference)`));
    io.out(`  ${w.verified ? c.green(outcomeLine(w)) : c.yellow(outcomeLine(w))}`);
  }
  if (flags.record !== undefined) io.out(`record written: ${flags.record}`);
  return EXIT_OK;
}

const PROPOSE_HELP = `
A wording file is JSON (format "cetp-sim/wording@1"): id, text, source, rules, and "allow": per side
("provider", "consumer") and variant, the readings the wording allows (src/protocol/readings.ts; a
proposed reading, one today's text does not allow, is added by naming it). Variants not named keep
today's readings. For each note the wordings touch, today's pairings and the wording's pairings run
the matrix properties (same scenarios: --seed); per break the report says closed (the wording
excludes the pairing), still open, or new (a pairing only the wording allows breaks). Replays of open
and new breaks are written under --out/<wording id>/. The repository's wordings: spec/wordings/;
their outcomes, recorded in spec/matrix.md: cetp-sim propose spec/wordings/*.json --record spec/wordings/verified.json
Exit codes: 0 it ran (whatever the outcome), 2 a bad wording file (the file and field are named).`;

export function registerProposeCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('propose')
    .description(
      'check proposed spec wordings against the interpretation matrix: which breaks they close or open',
    )
    .argument('<wording...>', 'wording files (JSON)')
    .addOption(
      new Option('--runs <n>', 'runs per property and pairing')
        .argParser(parseIntArg('--runs', 1))
        .default(DEFAULT_MATRIX_RUNS),
    )
    .addOption(new Option('--seed <n>', 'campaign seed').argParser(parseIntArg('--seed')).default(0))
    .addOption(
      new Option('--out <dir>', 'where open and new breaks write replay files').default(DEFAULT_PROPOSE_OUT),
    )
    .addOption(
      new Option('--workers <n>', 'worker threads (results are the same for any number)')
        .argParser(parseIntArg('--workers', 1))
        .default(DEFAULT_WORKERS),
    )
    .addOption(
      new Option('--record <file>', 'also write the report as pretty JSON (spec/wordings/verified.json)'),
    )
    .addOption(androidOption())
    .addOption(new Option('--json', 'print one JSON object on stdout').default(false))
    .addHelpText('after', PROPOSE_HELP)
    .action(async (files: string[], opts: ProposeFlags) => {
      setExit(await proposeCommand(io, files, opts));
    });
}
