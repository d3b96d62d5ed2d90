/**
 * `replay(file, modules)`: re-runs a replay file's scenario bit for bit — same decisions, faults,
 * user answers and variant — in this process, against the implementations you hand it (the
 * reference apps when you hand none), and judges it again. The library twin of `npx cetp-sim replay`:
 * the same file reader (every problem a CliError naming the file and the place), the same check that
 * the scenario only calls providers and tools you installed, the same engine.
 *
 * A replay file is data: it may name the modules its campaign ran with, but nothing is loaded from
 * it — a file recorded with a provider (or consumer) module needs that implementation passed here.
 */

import { replayScenario } from '../fuzz/fuzz.ts';
import { replayablePropertyById } from '../fuzz/registry.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import type { CancellationLike, ConsumerUnderTest, ProviderFixture } from '../subjects/subjects.ts';
import { CliError } from './errors.ts';
import { traceText, type ViolationReport, violationReports } from './fuzz.ts';
import { checkScenarioFits, missingModules, readReplayFile } from './replay-file.ts';
import { checkConsumer, checkProviderFixtures, withConsumer, withProviders } from './subjects.ts';

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

export async function replay<C extends CancellationLike>(
  file: string,
  modules: ReplaySubjects<C> = {},
): Promise<ReplayReport> {
  const recorded = readReplayFile(file);
  const missing = missingModules(recorded, {
    provider: modules.providers !== undefined,
    consumer: modules.consumer !== undefined,
  });
  if (missing.length > 0)
    throw new CliError(
      'replay_needs_module',
      `${file} was recorded with ${missing.map((m) => `--${m.kind} ${m.recorded}`).join(' and ')}; a replay file never loads code by itself — pass ${missing.map((m) => (m.kind === 'provider' ? '{ providers }' : '{ consumer }')).join(' and ')} to replay()`,
    );
  let def = replayablePropertyById(recorded.property) as PropertyDef;
  if (modules.providers !== undefined) {
    const fail = (message: string): never => {
      throw new CliError('invalid_fixture', `replay(${file}): ${message}`);
    };
    const subject = await checkProviderFixtures(asList(modules.providers), undefined, 'replay', fail);
    def = withProviders(def, subject);
  }
  if (modules.consumer !== undefined) {
    const fail = (message: string): never => {
      throw new CliError('invalid_consumer', `replay(${file}): ${message}`);
    };
    def = withConsumer(def, checkConsumer(modules.consumer, fail));
  }
  checkScenarioFits(file, recorded, def);
  const run = await replayScenario(def, recorded);
  const events = run.world.trace.events;
  return {
    property: recorded.property,
    rules: recorded.rules,
    passed: run.violations.length === 0,
    violations: violationReports(run.violations),
    recordedViolations: recorded.violations.length,
    traceHash: run.report.traceHash,
    recordedTraceHash: recorded.traceHash,
    trace: traceText(events),
    events,
  };
}
