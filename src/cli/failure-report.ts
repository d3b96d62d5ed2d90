/**
 * How a failing property reads on a terminal: what failed and which rules it guards, the first
 * violations with their evidence, the shrunk run's trace as a story (scheduler noise left out), where
 * its Mermaid sequence diagram was written, and the one line that reproduces it.
 */
import type { Violation } from '../check/checker.ts';
import { runProgress } from '../check/checkers/runtime.ts';
import type { ReplayModules } from '../harness/code-identity.ts';
import { violationReports } from '../harness/fuzz.ts';
import { diagramFilePath } from '../harness/replay-file.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import { QUIET_KINDS, renderText } from '../sim/core/trace-render.ts';
import type { Io } from './io.ts';

/** Violations shown in full; the rest are counted. */
export const VIOLATIONS_SHOWN = 3;

/** Violations as `--json` prints them: checker, rules, class, message and the evidence (as the library reports them). */
export const violationsJson = violationReports;

/**
 * The watchdog's verdict on a run that never finished (`what`: which run), naming the last trace
 * event it recorded — what it was doing when it stopped.
 */
export function watchdogViolation(what: string, reason: string, events: readonly TraceEvent[]): Violation {
  const last = events.at(-1);
  return {
    checker: 'watchdog',
    ruleIds: runProgress.ruleIds,
    class: 'liveness',
    message: `${what} never finished: ${reason}${last ? ` (its last trace event: #${last.seq} ${last.kind} at step ${last.step})` : ' (it recorded no trace event)'}`,
    events: last ? [last.seq] : [],
    calls: [],
  };
}

const shellWord = (word: string) => (/[\s"'$`\\]/.test(word) ? JSON.stringify(word) : word);

/**
 * The command that re-runs a replay file: with the modules the run used, since a replay file never
 * loads code by itself (without them `replay` stops with exit 2 and asks for them).
 */
export function replayCommand(file: string, modules: ReplayModules = {}): string {
  const flags = (['provider', 'consumer'] as const).flatMap((flag) =>
    modules[flag] !== undefined ? [`--${flag} ${shellWord(modules[flag])}`] : [],
  );
  return [`npx cetp-sim replay ${shellWord(file)}`, ...flags].join(' ');
}

export function printViolations(io: Io, violations: readonly Violation[], indent = '  '): void {
  const c = io.color;
  for (const v of violations.slice(0, VIOLATIONS_SHOWN)) {
    io.out(`${indent}${c.red('✗')} ${c.bold(v.checker)} (${v.class}; ${v.ruleIds.join(' ')})`);
    io.out(`${indent}  ${v.message}`);
    if (v.events.length > 0) io.out(`${indent}  ${c.dim(`evidence: trace events #${v.events.join(', #')}`)}`);
  }
  if (violations.length > VIOLATIONS_SHOWN)
    io.out(`${indent}${c.dim(`… and ${violations.length - VIOLATIONS_SHOWN} more violation(s)`)}`);
}

export function printTrace(io: Io, events: readonly TraceEvent[], indent = ''): void {
  const text = renderText(events, { omit: QUIET_KINDS });
  io.out(indent === '' ? text : text.replace(/^/gm, indent));
}

export interface FailureView {
  readonly property: string;
  readonly title: string;
  readonly rules: readonly string[];
  readonly violations: readonly Violation[];
  readonly events: readonly TraceEvent[];
  readonly runsToFailure: number;
  readonly shrinks: number;
  readonly replayFile: string;
  /** What the user's code threw in the run, with its frame (src/harness/escapes.ts). */
  readonly thrown?: readonly { readonly error: string; readonly frame: string }[];
  /** The --provider/--consumer modules the run used, as given on the command line. */
  readonly modules?: ReplayModules;
}

export function printFailure(io: Io, f: FailureView): void {
  const c = io.color;
  io.out('');
  io.out(c.red(c.bold(`FAILED ${f.property}`)) + ` — ${f.title}`);
  io.out(`  rules: ${f.rules.join(' ')}`);
  io.out(`  found after ${f.runsToFailure} run(s), shrunk ${f.shrinks} time(s)`);
  printViolations(io, f.violations);
  for (const t of f.thrown ?? []) io.out(`  your module threw ${c.bold(t.error)} at ${t.frame}`);
  io.out(c.bold('  minimal trace:'));
  printTrace(io, f.events, '    ');
  io.out(`  sequence diagram (Mermaid): ${diagramFilePath(f.replayFile)}`);
  io.out(`  reproduce: ${c.bold(replayCommand(f.replayFile, f.modules))}`);
}
