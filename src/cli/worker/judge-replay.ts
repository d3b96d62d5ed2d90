/**
 * A replay of a run with user modules, judged in the CLI's thread (issue #31; the campaign's judge is
 * judge.ts): the worker that loaded the modules runs the scenario again and hands over the run's
 * record; its verdict — the property's oracles, the campaign verdict the file names (a tool that
 * never succeeds), the trace hash — is made here, from the record alone, with the verdicts only the
 * module's realm can give (judge.ts isModuleVerdict) taken as they come. `cetp-sim replay` and the
 * module-state-isolation re-run both go through it.
 */

import type { Violation } from '../../check/checker.ts';
import { ALL_CHECKERS, runCheckers } from '../../check/checkers/index.ts';
import { runLabels } from '../../check/frequencies.ts';
import { observeRecord, withFaultFree } from '../../check/observation.ts';
import { floorViolation } from '../../fuzz/floor-witness.ts';
import { stillNeverSucceeds } from '../../fuzz/fuzz.ts';
import { replayablePropertyById } from '../../fuzz/registry.ts';
import { CliError } from '../../harness/errors.ts';
import { forgedVerdict } from './forged.ts';
import { isModuleVerdict, noteJudged } from './judge.ts';
import type { RecordMessage, ReplayJob, ReplayOutcome, WorkerMessage } from './protocol.ts';
import type { Host, JobEnd, JobWatch } from './worker-host.ts';

/** The replay's verdict from its record (`record`), or a failure when the worker handed over none. */
export function judgeReplay(job: ReplayJob, record: RecordMessage | null): ReplayOutcome {
  if (record === null)
    return {
      violations: [
        forgedVerdict(
          "the worker running the module answered the replay without handing over the run's record: it cannot be judged",
        ),
      ],
      traceHash: '',
      events: [],
    };
  const def = replayablePropertyById(job.property);
  if (!def) throw new CliError('unknown_property', `unknown property '${job.property}'`);
  const observation = withFaultFree(observeRecord(record.record), record.faultFree);
  const own = runCheckers(observation, record.context, def.fixture.checkers ?? ALL_CHECKERS);
  const theirs = record.own.filter((v) => isModuleVerdict(v.checker));
  const campaign = job.replay.campaign ? stillNeverSucceeds({ observation }, job.replay.campaign.tool) : null;
  const floor = job.replay.floor
    ? floorViolation(job.replay.floor, runLabels(observation, record.context))
    : null;
  const verdict = campaign ?? floor;
  const violations: Violation[] = [...(verdict ? [verdict] : []), ...own, ...theirs];
  noteJudged();
  return { violations, traceHash: observation.report.traceHash, events: record.record.events };
}

/** Runs a replay job on `host` and judges it here when it runs user code (else its own answer stands). */
export async function runJudgedReplay(
  host: Host,
  job: ReplayJob,
  watch: JobWatch,
): Promise<JobEnd<ReplayOutcome>> {
  const userCode = job.modules.provider !== undefined || job.modules.consumer !== undefined;
  let record: RecordMessage | null = null;
  const end = await host.run<ReplayOutcome>(job, {
    ...watch,
    onMessage: (m: WorkerMessage) => {
      if (m.type === 'record') {
        if (m.phase === 'replay') record = m;
      } else watch.onMessage?.(m);
    },
  });
  if (end.kind !== 'done' || !userCode) return end;
  return { ...end, result: judgeReplay(job, record) };
}
