/**
 * `cetp-sim replay FILE`: re-runs a replay file's scenario bit for bit — same seed, decisions,
 * faults, user answers, variant — prints the trace and judges it again.
 *
 * A replay file is data, never code: it may name the modules its campaign ran with, but only the
 * modules named on this command line (`--provider`, `--consumer`) are loaded, and the file's names
 * are shown as a hint. The run happens in a worker thread under the watchdog, like a campaign's.
 *
 * Exit 0 if it now passes, 1 if it still fails, 2 for a bad file or usage, 3 when the same code gives
 * a different trace than the recorded one — a determinism break. The file records content hashes of
 * the code it was recorded with (code-identity.ts): after a fix (of the module, or of cetp-sim) a
 * different trace is expected, and the verdict alone decides. So it does when the file itself was
 * edited since it was recorded (its `inputs` digests no longer match its fields: a planted bug
 * removed, a fault dropped): the run is a new scenario, reported as such, exit 0 or 1.
 *
 * The replay and its verdict are the harness's (harness/replay-core.ts), run by the worker's runner
 * (worker/replay-runner.ts); this command only formats the verdict.
 */

import type { ReplayModules } from '../../harness/code-identity.ts';
import { CliError, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK } from '../../harness/errors.ts';
import { type ReplayVerdict, replayWith } from '../../harness/replay-core.ts';
import type { CliReplayFile } from '../../harness/replay-file.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { renderMermaid } from '../../sim/core/trace-render.ts';
import { printTrace, printViolations, violationsJson } from '../failure-report.ts';
import type { Io } from '../io.ts';
import { workerReplayRunner } from '../worker/replay-runner.ts';

export interface ReplayFlags {
  readonly mermaid: boolean;
  readonly json: boolean;
  readonly provider?: string;
  readonly consumer?: string;
  readonly watchdog: number;
  /** Re-run on this Android release profile instead of the file's (an edit of its variant). */
  readonly android?: AndroidRelease;
}

/** The variant a replay file runs: planted bugs, Android profile, rules switched off, readings. */
function printVariant(io: Io, variant: CliReplayFile['variant']): void {
  const bugs = [...variant.providerBugs, ...variant.consumerBugs];
  if (bugs.length > 0) io.out(`  planted bugs: ${bugs.join(', ')}`);
  if (variant.android !== undefined) io.out(`  Android ${variant.android} profile`);
  if (variant.disabledRules.length > 0) io.out(`  rules switched off: ${variant.disabledRules.join(' ')}`);
  for (const side of ['provider', 'consumer'] as const) {
    const readings = Object.entries(variant.readings?.[side] ?? {});
    if (readings.length > 0)
      io.out(`  ${side} readings: ${readings.map(([v, r]) => `${v}=${r}`).join(', ')}`);
  }
}
/** The verdict as one JSON object (a determinism break is an error, exit 3). */
function printJson(io: Io, verdict: ReplayVerdict, mermaid: boolean): number {
  const { file, run, failed, edited } = verdict;
  if (verdict.determinismBreak !== null)
    throw new CliError('determinism_break', verdict.determinismBreak, EXIT_INTERNAL);
  io.out(
    JSON.stringify({
      failed,
      traceHash: run.traceHash,
      recordedTraceHash: file.traceHash,
      codeChanged: verdict.codeChanged,
      ...(edited !== null && edited.length > 0 ? { edited } : {}),
      violations: violationsJson(run.violations),
      ...(mermaid ? { mermaid: renderMermaid(run.events, { omit: ['pm'] }) } : {}),
    }),
  );
  return failed ? EXIT_FAILED : EXIT_OK;
}

/** What ran: the file, the property, its variant and the modules. */
function printHeader(
  io: Io,
  path: string,
  file: CliReplayFile,
  edited: ReplayVerdict['edited'],
  modules: ReplayModules,
): void {
  const c = io.color;
  io.out(c.bold(`cetp-sim replay ${path}`));
  if (edited !== null && edited.length > 0)
    io.out(
      c.yellow(
        `  edited since it was recorded (fields ${edited.join(', ')}): re-run as a new scenario, judged by its verdict alone`,
      ),
    );
  io.out(`  property ${file.property} (rules ${file.rules.join(' ')})`);
  printVariant(io, file.variant);
  for (const flag of ['provider', 'consumer'] as const)
    if (modules[flag] !== undefined) io.out(`  --${flag} ${modules[flag]}`);
}

/** The verdict for a human: the trace, the violations, the trace hash and what it means. */
function printText(
  io: Io,
  path: string,
  verdict: ReplayVerdict,
  flags: ReplayFlags,
  modules: ReplayModules,
): number {
  const c = io.color;
  const { file, run, failed } = verdict;
  printHeader(io, path, file, verdict.edited, modules);
  io.out(c.bold('trace:'));
  printTrace(io, run.events);
  if (flags.mermaid) {
    io.out(c.bold('\nMermaid:'));
    io.out(renderMermaid(run.events, { omit: ['pm'] }));
  }
  io.out('');
  if (failed) {
    io.out(c.red(c.bold(`still fails: ${run.violations.length} violation(s)`)));
    printViolations(io, run.violations);
  } else {
    io.out(c.green(`now passes (recorded: ${file.violations.length} violation(s))`));
  }
  if (run.traceHash !== '') io.out(c.dim(`trace hash ${run.traceHash}`));
  if (verdict.note) io.out(c.yellow(verdict.note));
  if (verdict.determinismBreak !== null) {
    io.err(c.red(c.bold(verdict.determinismBreak)));
    return EXIT_INTERNAL;
  }
  return failed ? EXIT_FAILED : EXIT_OK;
}

export async function replayCommand(io: Io, path: string, flags: ReplayFlags): Promise<number> {
  // Only the modules named on the command line: a replay file never loads code by itself.
  const modules: ReplayModules = {
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    ...(flags.consumer !== undefined ? { consumer: flags.consumer } : {}),
  };
  const runner = workerReplayRunner(modules, flags.watchdog * 1000, process.cwd());
  const verdict = await replayWith(
    path,
    runner,
    flags.android === undefined ? {} : { android: flags.android },
  );
  return flags.json ? printJson(io, verdict, flags.mermaid) : printText(io, path, verdict, flags, modules);
}
