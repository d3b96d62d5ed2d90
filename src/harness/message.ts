/**
 * A property's verdict as a test runner shows it: for a failure, what failed and which rules it
 * guards, each violation with its checker, rule ids, class, message and evidence, the shrunk run's
 * trace, the replay file and the exact command that re-runs it; for a property that exercised
 * nothing, why — a verdict that judged nothing is not a pass. Plain text (no colours): it is the
 * message of a thrown Error, shown by vitest, jest or any runner.
 */
import type { Exercised } from '../check/exercised.ts';
import type { PropertyReport } from './fuzz.ts';

/** Violations shown in full; the rest are counted. */
const VIOLATIONS_SHOWN = 5;
/** Trace lines shown; the full trace is in the replay (`npx cetp-sim replay …`) and the .mmd file. */
const TRACE_LINES_SHOWN = 40;

export interface MessageOptions {
  /** How to re-run the failure inside the test file (e.g. `describeProvider(fixture, { replay: … })`). */
  readonly inTest?: (replayFile: string) => string;
}

function evidence(report: PropertyReport['violations'][number]): string | null {
  const parts = [
    report.evidence.events.length > 0 ? `trace events #${report.evidence.events.join(', #')}` : '',
    report.evidence.calls.length > 0 ? `calls #${report.evidence.calls.join(', #')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `evidence: ${parts.join('; ')}` : null;
}

/** `3,455 calls · 406 answered · …`: what a property's runs exercised, in one line. */
export function exercisedLine(e: Exercised): string {
  const n = (count: number) => count.toLocaleString('en-US');
  return [
    `${n(e.calls)} calls`,
    `${n(e.answered)} answered`,
    `${n(e.succeeded)} succeeded`,
    `${n(e.effects)} effects`,
    `${n(e.confirmations)} confirmations`,
    `${n(e.operationsFinished)} operations finished`,
    // Only where there were any: a file result whose bytes the world could not know is not judged.
    ...(e.fileResults > 0 ? [`${n(e.fileResults)} file results (${n(e.fileResultsJudged)} judged)`] : []),
    ...(e.malformedCalls > 0
      ? [`${n(e.malformedCalls)} malformed calls (${n(e.malformedRefused)} refused with a structured error)`]
      : []),
  ].join(' · ');
}

export function verdictMessage(report: PropertyReport, options: MessageOptions = {}): string {
  if (report.status === 'vacuous')
    return [
      `cetp-sim property ${report.id} exercised nothing: ${report.vacuity ?? ''}`,
      `  rules: ${report.rules.join(' ')}`,
      '  a property that judged nothing is not passed: check that install() installs your package, that it',
      '  answers negotiate and list_tools, and that propertyTools (if given) names your tools',
    ].join('\n');
  if (report.status === 'passed') return `cetp-sim property ${report.id} held in ${report.runs} runs`;
  const lines = [
    `cetp-sim property ${report.id} failed — ${report.title}`,
    `  rules: ${report.rules.join(' ')}`,
  ];
  const f = report.failure;
  if (f)
    lines.push(
      `  found after ${f.runsToFailure} run(s), shrunk ${f.shrinks} time(s) (property seed ${report.seed}${f.path !== '' ? `, path ${f.path}` : ''})`,
    );
  for (const v of report.violations.slice(0, VIOLATIONS_SHOWN)) {
    lines.push(`  ✗ ${v.checker} (${v.class}; rules ${v.ruleIds.join(' ') || 'none'})`);
    lines.push(`    ${v.message}`);
    const e = evidence(v);
    if (e) lines.push(`    ${e}`);
  }
  if (report.violations.length > VIOLATIONS_SHOWN)
    lines.push(`  … and ${report.violations.length - VIOLATIONS_SHOWN} more violation(s)`);
  if (report.replay !== null && report.replayCommand !== null) {
    lines.push(`  replay file: ${report.replay}`);
    lines.push(`  reproduce: ${report.replayCommand}`);
    for (const kind of report.replayCommandLacks)
      lines.push(
        kind === 'provider'
          ? '  (no --provider: the command would run the reference apps; pass `module` (or `providerModule`), the file that exports your fixtures as `providers`, to get the command for your code)'
          : '  (no --consumer: the command would run the reference consumer; pass `module`, the file that exports your consumer as `consumer`, to get the command for your code)',
      );
    if (options.inTest) lines.push(`  re-run in this test file: ${options.inTest(report.replay)}`);
  } else lines.push('  no replay file written (replayDir: null)');
  if (report.trace !== null) {
    const trace = report.trace.split('\n');
    lines.push('  minimal trace:');
    for (const line of trace.slice(0, TRACE_LINES_SHOWN)) lines.push(`    ${line}`);
    if (trace.length > TRACE_LINES_SHOWN)
      lines.push(`    … ${trace.length - TRACE_LINES_SHOWN} more line(s): see the replay`);
  }
  return lines.join('\n');
}
