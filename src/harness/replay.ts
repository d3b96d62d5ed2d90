/**
 * `replay(file, modules)`: re-runs a replay file's scenario bit for bit — same decisions, faults,
 * user answers and variant — in this process, against the implementations you hand it (the
 * reference apps when you hand none), and judges it again. The library twin of `npx cetp-sim replay`,
 * on the same replay core (replay-core.ts): the same file reader (every problem a CliError naming the
 * file and the place), the same check that the scenario only calls providers and tools you installed,
 * the same engine; only the runner differs (this process, not a worker thread).
 *
 * A replay file is data: it may name the modules its campaign ran with, but nothing is loaded from
 * it — a file recorded with a provider (or consumer) module needs that implementation passed here.
 */

import { replayScenario } from '../fuzz/fuzz.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import type { CancellationLike, ConsumerUnderTest, ProviderFixture } from '../subjects/subjects.ts';
import { CliError } from './errors.ts';
import { traceText, type ViolationReport, violationReports } from './fuzz.ts';
import { type ReplayRunner, replayProperty, replayWith } from './replay-core.ts';
import { checkConsumer, checkProviderFixtures } from './subjects.ts';

/** The implementations a replay runs against (absent: the reference ones). */
export interface ReplaySubjects<C extends CancellationLike = CancellationLike> {
  readonly providers?: ProviderFixture | readonly ProviderFixture[];
  readonly consumer?: ConsumerUnderTest<C>;
}

export interface ReplayReport {
  readonly property: string;
  readonly rules: readonly string[];
  /** True when the run now breaks no rule. */
  readonly passed: boolean;
  readonly violations: readonly ViolationReport[];
  /** How many violations the file recorded. */
  readonly recordedViolations: number;
  readonly traceHash: string;
  readonly recordedTraceHash: string;
  /** The run's trace as text, and its events. */
  readonly trace: string;
  readonly events: readonly TraceEvent[];
}

function asList<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** The runner of replay(): in this process, against the implementations handed over (checked first). */
function inProcess<C extends CancellationLike>(modules: ReplaySubjects<C>): ReplayRunner {
  const failWith =
    (code: 'invalid_fixture' | 'invalid_consumer', path: string) =>
    (message: string): never => {
      throw new CliError(code, `replay(${path}): ${message}`);
    };
  return {
    given: { provider: modules.providers !== undefined, consumer: modules.consumer !== undefined },
    howToPass: (_path, missing) =>
      `pass ${missing.map((m) => (m.kind === 'provider' ? '{ providers }' : '{ consumer }')).join(' and ')} to replay()`,
    async run(path, file) {
      const providers =
        modules.providers === undefined
          ? undefined
          : await checkProviderFixtures(
              asList(modules.providers),
              undefined,
              'replay',
              failWith('invalid_fixture', path),
            );
      const consumer =
        modules.consumer === undefined
          ? undefined
          : checkConsumer(modules.consumer, failWith('invalid_consumer', path));
      const def = replayProperty(path, file, {
        ...(providers ? { providers } : {}),
        ...(consumer ? { consumer } : {}),
      });
      const run = await replayScenario(def, file);
      return {
        violations: run.violations,
        traceHash: run.report.traceHash,
        events: run.world.trace.events,
        finished: true,
      };
    },
    codeNow: () => null,
  };
}

export async function replay<C extends CancellationLike>(
  file: string,
  modules: ReplaySubjects<C> = {},
): Promise<ReplayReport> {
  const { file: recorded, run, failed } = await replayWith(file, inProcess(modules));
  return {
    property: recorded.property,
    rules: recorded.rules,
    passed: !failed,
    violations: violationReports(run.violations),
    recordedViolations: recorded.violations.length,
    traceHash: run.traceHash,
    recordedTraceHash: recorded.traceHash,
    trace: traceText(run.events),
    events: run.events,
  };
}
