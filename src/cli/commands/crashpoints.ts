/**
 * `cetp-sim crashpoints`: kills the provider — and separately the consumer — at every scheduling
 * point of each mutating flow, lets the flow recover, and judges every run (src/fuzz/crashpoints.ts).
 * Prints the number of points per flow and side. A failing point writes
 * `<out>/crashpoints-<flow>-<side>.replay.json`, which `cetp-sim replay` re-runs. `--json` prints one
 * object without wall-clock fields: the same arguments print the same bytes, whatever `--workers` is.
 * User modules (`--provider`) run only in worker threads under the watchdog, as in `fuzz`, and every
 * point of theirs is judged in the CLI's thread from its record (worker/judge-crashpoints.ts).
 */
import { join } from 'node:path';
import { FLOW_KINDS, type FlowKind, type FlowReport, type SideReport } from '../../fuzz/crashpoints.ts';
import { REFERENCE } from '../../fuzz/scenario/model.ts';
import type { ReplayModules } from '../../harness/code-identity.ts';
import { CliError, EXIT_FAILED, EXIT_OK } from '../../harness/errors.ts';
import { diagramFilePath, writeDiagramFile, writeReplayFile } from '../../harness/replay-file.ts';
import { selectMutant } from '../../harness/selection.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { printViolations, replayCommand, violationsJson, watchdogViolation } from '../failure-report.ts';
import type { Io } from '../io.ts';
import { checkOutputs } from '../output-paths.ts';
import { startProgress } from '../progress.ts';
import { table } from '../table.ts';
import { loadModules, targetOf } from '../user-modules.ts';
import { runJudgedCrashpoints } from '../worker/judge-crashpoints.ts';
import { runSpread } from '../worker/pool.ts';
import type { CrashpointsJob } from '../worker/protocol.ts';

export const DEFAULT_CRASHPOINTS_OUT = '.cetp-sim/failures';

/** Failing steps listed in the text report (--json lists them all). */
const STEPS_SHOWN = 20;

export interface CrashpointsFlags {
  readonly provider?: string;
  readonly flow?: readonly string[];
  readonly mutant?: string;
  readonly out: string;
  readonly workers: number;
  readonly watchdog: number;
  readonly json: boolean;
  /** The Android release profile (absent: the default; recorded in replay files when given). */
  readonly android?: AndroidRelease;
}

/** A side's report as the CLI has it: the replay file its first failure was written to. */
interface SideEntry extends SideReport {
  readonly replayFile: string | null;
}

interface FlowEntry {
  readonly report: FlowReport;
  readonly sides: readonly SideEntry[];
  /** Why the job never finished (the watchdog stopped it), if it did not. */
  readonly hung: string | null;
}

function selectFlows(names: readonly string[] | undefined): FlowKind[] {
  if (names === undefined || names.length === 0) return [...FLOW_KINDS];
  const bad = names.filter((n) => !(FLOW_KINDS as readonly string[]).includes(n));
  if (bad.length > 0)
    throw new CliError(
      'unknown_flow',
      `unknown flow${bad.length > 1 ? 's' : ''} ${bad.map((b) => `'${b}'`).join(', ')}; valid: ${FLOW_KINDS.join(', ')}`,
    );
  return FLOW_KINDS.filter((f) => names.includes(f));
}

function writeFailure(flow: FlowKind, side: SideReport, flags: CrashpointsFlags, modules: ReplayModules) {
  const failure = side.failure;
  if (!failure) return null;
  const file = join(flags.out, `crashpoints-${flow}-${side.side}.replay.json`);
  writeReplayFile(file, failure.replay, modules, process.cwd());
  writeDiagramFile(diagramFilePath(file), failure.events);
  return file;
}

const failedOf = (e: FlowEntry) => e.hung !== null || e.sides.some((s) => s.failedSteps.length > 0);

function flowJson(e: FlowEntry) {
  const { report } = e;
  return {
    flow: report.kind,
    tool: report.flow
      ? { provider: report.flow.provider, tool: report.flow.tool, args: report.flow.args }
      : null,
    ...(e.hung !== null ? { hung: e.hung } : {}),
    sides: e.sides.map((s) => ({
      side: s.side,
      process: s.process,
      points: s.points,
      live: s.live,
      applied: s.applied,
      failedSteps: s.failedSteps,
      ...(s.failure
        ? {
            replayFile: s.replayFile,
            traceHash: s.failure.replay.traceHash,
            violations: violationsJson(s.failure.violations),
          }
        : {}),
    })),
  };
}

function toolOf(report: FlowReport): string {
  return report.flow ? `${report.flow.provider}.${report.flow.tool} (args ${report.flow.args})` : '—';
}

function printTable(io: Io, entries: readonly FlowEntry[]): void {
  const c = io.color;
  const rows: string[][] = [];
  for (const e of entries) {
    if (e.hung !== null) {
      rows.push([e.report.kind, '—', '—', '—', '—', c.red('did not finish')]);
      continue;
    }
    if (e.report.flow === null) {
      rows.push([e.report.kind, '—', '—', '—', '—', c.yellow('no provider under test offers this flow')]);
      continue;
    }
    for (const s of e.sides) {
      const verdict =
        s.failedSteps[0] === -1
          ? c.red('the fault-free run already fails')
          : s.failedSteps.length > 0
            ? c.red(`${s.failedSteps.length} failing`)
            : c.green('all held');
      rows.push([e.report.kind, toolOf(e.report), s.side, String(s.points), String(s.live), verdict]);
    }
  }
  for (const line of table(['flow', 'tool', 'killed', 'points', 'live', 'verdict'], rows))
    io.out(`  ${line}`);
}

/** `providerFlag`: what `replay` needs passed to re-run with the same module (never read from the file). */
function printFailures(io: Io, entries: readonly FlowEntry[], providerFlag: string): void {
  const c = io.color;
  for (const e of entries) {
    if (e.hung !== null) {
      io.out('');
      io.out(c.red(c.bold(`FAILED ${e.report.kind}`)));
      printViolations(io, [watchdogViolation(`the ${e.report.kind} crash points`, e.hung, [])]);
    }
    for (const s of e.sides) {
      const failure = s.failure;
      if (!failure) continue;
      io.out('');
      const where =
        failure.step === -1
          ? 'without any fault'
          : `with the ${s.side} (${s.process}) killed before step ${failure.step}`;
      io.out(c.red(c.bold(`FAILED ${e.report.kind} ${where}`)) + ` — ${toolOf(e.report)}`);
      if (failure.step !== -1)
        io.out(
          `  failing points: ${s.failedSteps.length} of ${s.points} (steps ${s.failedSteps.slice(0, STEPS_SHOWN).join(', ')}${s.failedSteps.length > STEPS_SHOWN ? ', …' : ''})`,
        );
      printViolations(io, failure.violations);
      if (s.replayFile !== null) {
        io.out(`  replay file: ${s.replayFile}`);
        io.out(`  reproduce:   ${replayCommand(s.replayFile)}${providerFlag}`);
      }
    }
  }
}
export async function crashpointsCommand(io: Io, flags: CrashpointsFlags): Promise<number> {
  const c = io.color;
  checkOutputs([['--out', flags.out, 'dir']]);
  const flows = selectFlows(flags.flow);
  const mutant = flags.mutant !== undefined ? selectMutant(flags.mutant) : null;
  const modules: ReplayModules = flags.provider !== undefined ? { provider: flags.provider } : {};
  const cwd = process.cwd();
  const watchdogMs = flags.watchdog * 1000;
  const loaded = await loadModules(modules, cwd, watchdogMs);
  const target = targetOf(loaded, mutant);
  if (!flags.json)
    io.out(
      c.bold(
        `cetp-sim crashpoints: ${flows.length} flow${flows.length === 1 ? '' : 's'} against ${target}; a kill of the provider, then of the consumer, before every step`,
      ),
    );
  const variant = {
    ...(mutant?.variant ?? REFERENCE),
    ...(flags.android !== undefined ? { android: flags.android } : {}),
  };
  const progress = startProgress(io, flows.length, {
    json: flags.json,
    noun: 'crashpoints',
    units: 'flows',
    failure: 'failed',
    countsRuns: true,
  });
  const entries = await runSpread(flows, {
    workers: Math.max(1, Math.min(flags.workers, flows.length)),
    userCode: flags.provider !== undefined,
    onStart: (flow) => progress.begin(flow),
    // The report is the table printed at the end: no line per flow, only the bar on a terminal.
    onResult: (entry: FlowEntry, flow) =>
      progress.done(flow, null, {
        failed: failedOf(entry),
        runs: entry.sides.reduce((n, s) => n + s.points, 0),
      }),
    run: async (host, flow): Promise<FlowEntry> => {
      const job: CrashpointsJob = { kind: 'crashpoints', flow, variant, modules, cwd };
      const end = await runJudgedCrashpoints(host, job, {
        budgetMs: watchdogMs,
        onRuns: (runs) => progress.runs(flow, runs),
      });
      if (end.kind === 'hung')
        return {
          report: { kind: flow, flow: null, sides: [] },
          sides: [],
          hung: `run ${end.run + 1}: ${end.reason}`,
        };
      const sides = end.result.sides.map((s) => ({
        ...s,
        replayFile: writeFailure(flow, s, flags, modules),
      }));
      return { report: end.result, sides, hung: null };
    },
  }).finally(() => progress.finish());
  const failed = entries.filter(failedOf);
  const points = entries.flatMap((e) => e.sides).reduce((n, s) => n + s.points, 0);
  if (flags.json) {
    io.out(
      JSON.stringify({
        passed: failed.length === 0,
        ...(mutant ? { mutant: mutant.id } : {}),
        ...(loaded.provider ? { provider: loaded.provider.specifier } : {}),
        points,
        flows: entries.map(flowJson),
      }),
    );
    return failed.length === 0 ? EXIT_OK : EXIT_FAILED;
  }
  printTable(io, entries);
  printFailures(io, entries, flags.provider !== undefined ? ` --provider ${flags.provider}` : '');
  io.out('');
  const summary = `${points.toLocaleString('en-US')} crash points in ${entries.length} flow${entries.length === 1 ? '' : 's'}`;
  io.out(
    failed.length === 0
      ? c.green(`All crash points held: ${summary}`)
      : c.red(
          c.bold(`FAILED: ${failed.length} flow${failed.length === 1 ? '' : 's'} broke a rule (${summary})`),
        ),
  );
  return failed.length === 0 ? EXIT_OK : EXIT_FAILED;
}
