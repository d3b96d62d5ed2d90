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
 */

import { codeChanges, codeIdentity, type ReplayModules } from '../../harness/code-identity.ts';
import { CliError, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK } from '../../harness/errors.ts';
import {
  type CliReplayFile,
  editedFields,
  missingModules,
  readReplayFile,
} from '../../harness/replay-file.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import type { TraceEvent } from '../../sim/core/trace.ts';
import { renderMermaid } from '../../sim/core/trace-render.ts';
import { printTrace, printViolations, violationsJson, watchdogViolation } from '../failure-report.ts';
import type { Io } from '../io.ts';
import { runJudgedReplay } from '../worker/judge-replay.ts';
import { hostFor } from '../worker/pool.ts';
import type { WorkerMessage } from '../worker/protocol.ts';

export interface ReplayFlags {
  readonly mermaid: boolean;
  readonly json: boolean;
  readonly provider?: string;
  readonly consumer?: string;
  readonly watchdog: number;
  /** Re-run on this Android release profile instead of the file's (an edit of its variant). */
  readonly android?: AndroidRelease;
}

/** The modules this replay runs with: the command line's only; a module the file names but the command line does not is refused, with the flag to pass. */
function modulesFor(path: string, file: CliReplayFile, flags: ReplayFlags): ReplayModules {
  const missing = missingModules(file, {
    provider: flags.provider !== undefined,
    consumer: flags.consumer !== undefined,
  }).map((m) => `--${m.kind} ${m.recorded}`);
  if (missing.length > 0)
    throw new CliError(
      'replay_needs_module',
      `${path} was recorded with ${missing.join(' and ')}; a replay file never loads code by itself — pass ${missing.length > 1 ? 'them' : 'it'} to re-run: npx cetp-sim replay ${path} ${missing.join(' ')}`,
    );
  return {
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    ...(flags.consumer !== undefined ? { consumer: flags.consumer } : {}),
  };
}

/** The replay in a worker under the watchdog; a run that never finishes ends as a watchdog violation. */
async function rerun(path: string, file: CliReplayFile, modules: ReplayModules, budgetMs: number) {
  const events: TraceEvent[] = [];
  const host = hostFor(modules.provider !== undefined || modules.consumer !== undefined, 1);
  try {
    const end = await runJudgedReplay(
      host,
      {
        kind: 'replay',
        path,
        property: file.property,
        replay: file,
        modules,
        cwd: process.cwd(),
        stream: true,
      },
      {
        budgetMs,
        onMessage: (m: WorkerMessage) => {
          if (m.type === 'event') events.push(m.event);
        },
      },
    );
    if (end.kind === 'done') return { ...end.result, finished: true };
    return {
      violations: [watchdogViolation('the run', end.reason, events)],
      traceHash: '',
      events,
      finished: false,
    };
  } finally {
    await host.close();
  }
}

/** The variant a replay file runs: planted bugs, Android profile, rules switched off, readings. */
function printVariant(io: Io, variant: ReturnType<typeof readReplayFile>['variant']): void {
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
export async function replayCommand(io: Io, path: string, flags: ReplayFlags): Promise<number> {
  const c = io.color;
  const read = readReplayFile(path);
  const file =
    flags.android === undefined ? read : { ...read, variant: { ...read.variant, android: flags.android } };
  const modules = modulesFor(path, file, flags);
  const run = await rerun(path, file, modules, flags.watchdog * 1000);
  const failed = run.violations.length > 0;
  const hash = run.traceHash;
  const changed = file.code ? codeChanges(file.code, codeIdentity(modules, process.cwd())) : null;
  const edited = editedFields(file);
  const wasEdited = edited !== null && edited.length > 0;
  // A run that never finished has no trace hash, now or when it was recorded: nothing to compare.
  // An edited file is a new scenario: its recorded hash belongs to the run before the edit.
  const comparable = run.finished && file.traceHash !== '' && !wasEdited;
  const diverged = comparable && hash !== file.traceHash;
  const determinismBreak = diverged && changed !== null && changed.length === 0;
  const divergence =
    `DETERMINISM BREAK: the re-run's trace hash ${hash} differs from the recorded ${file.traceHash}, ` +
    'with the same code (cetp-sim and the modules hash as they did): a run is no longer reproducible ' +
    'from its inputs. This is a bug — in cetp-sim, or nondeterminism in a module (real time, Math.random, state kept between runs).' +
    (edited === null
      ? ' (This file records no digest of its inputs, as older files do: if you edited its scenario, variant or faults, that, not cetp-sim, changed the trace.)'
      : '');
  const note = !diverged
    ? null
    : changed === null
      ? 'the trace differs from the recorded one; the file does not say what code it was recorded with, so this may be a change of code'
      : changed.length > 0
        ? `the trace differs from the recorded one, as expected: ${changed.join(' and ')} changed since the file was recorded`
        : null;
  if (flags.json) {
    if (determinismBreak) throw new CliError('determinism_break', divergence, EXIT_INTERNAL);
    const mermaid = flags.mermaid ? { mermaid: renderMermaid(run.events, { omit: ['pm'] }) } : {};
    io.out(
      JSON.stringify({
        failed,
        traceHash: hash,
        recordedTraceHash: file.traceHash,
        codeChanged: changed,
        ...(wasEdited ? { edited } : {}),
        violations: violationsJson(run.violations),
        ...mermaid,
      }),
    );
    return failed ? EXIT_FAILED : EXIT_OK;
  }
  io.out(c.bold(`cetp-sim replay ${path}`));
  if (wasEdited)
    io.out(
      c.yellow(
        `  edited since it was recorded (fields ${edited.join(', ')}): re-run as a new scenario, judged by its verdict alone`,
      ),
    );
  io.out(`  property ${file.property} (rules ${file.rules.join(' ')})`);
  printVariant(io, file.variant);
  for (const flag of ['provider', 'consumer'] as const)
    if (modules[flag] !== undefined) io.out(`  --${flag} ${modules[flag]}`);
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
  if (hash !== '') io.out(c.dim(`trace hash ${hash}`));
  if (note) io.out(c.yellow(note));
  if (determinismBreak) {
    io.err(c.red(c.bold(divergence)));
    return EXIT_INTERNAL;
  }
  return failed ? EXIT_FAILED : EXIT_OK;
}
