/**
 * Crash points judged apart from the module (issue #31), unit by unit: the judge in the CLI's thread
 * makes each side's report from the points' records alone (structured clones, as the worker hands
 * them over). An honest worker's report comes out unchanged; a worker that reports a failing point
 * holding, or hands over no record of a point, fails with module-forges-verdict.
 */
import { describe, expect, it } from 'vitest';
import { CRASHPOINTS_CONSUMER, CRASHPOINTS_RAW } from '../../fuzz/crashpoint-oracles.ts';
import { crashpointsOfFlow, type FlowReport } from '../../fuzz/crashpoints.ts';
import type { ProviderFixture } from '../../fuzz/scenario/fixtures.ts';
import { REFERENCE } from '../../fuzz/scenario/model.ts';
import type { ConsumerPropertyDef, RawPropertyDef } from '../../fuzz/suites.ts';
import { providers as splitCommit } from '../testdata/split-commit.provider.ts';
import { isModuleVerdict, MODULE_FORGES_VERDICT } from './judge.ts';
import { judgeFlow } from './judge-crashpoints.ts';
import type { CrashpointsJob, RecordMessage } from './protocol.ts';

const JOB: CrashpointsJob = {
  kind: 'crashpoints',
  flow: 'sync-write',
  variant: REFERENCE,
  modules: { provider: 'unused' },
  cwd: '.',
};

/** The sync-write flow as the worker runs it, with every point's record as the judge receives it. */
async function flow(providers?: readonly ProviderFixture[]) {
  const records: RecordMessage[] = [];
  const withOwn = <T extends RawPropertyDef | ConsumerPropertyDef>(d: T): T =>
    providers ? { ...d, fixture: { ...d.fixture, providers } } : d;
  const report = await crashpointsOfFlow(
    'sync-write',
    { raw: withOwn(CRASHPOINTS_RAW), consumer: withOwn(CRASHPOINTS_CONSUMER) },
    {
      variant: REFERENCE,
      recorded: (side, step, scenario, run) =>
        records.push(
          structuredClone({
            type: 'record',
            phase: 'run',
            scenario,
            record: run.observation.record,
            ...(run.observation.faultFree ? { faultFree: run.observation.faultFree } : {}),
            context: run.context,
            own: run.violations.filter((v) => isModuleVerdict(v.checker)),
            point: { side, step },
          }),
        ),
    },
  );
  return { report: structuredClone(report) as FlowReport, records };
}

describe('crash points judged from their records', () => {
  it("an honest worker's report is the judge's, field for field; a missing record fails the side", async () => {
    const { report, records } = await flow();
    expect(report.sides.every((s) => s.failedSteps.length === 0)).toBe(true);
    expect(judgeFlow(JOB, report, records)).toEqual(report);
    const dropped = records.filter((m) => !(m.point?.side === 'consumer' && m.point.step === 5));
    const judged = judgeFlow(JOB, report, dropped).sides.find((s) => s.side === 'consumer');
    expect(judged?.failedSteps).toEqual([5]);
    expect(judged?.failure?.violations[0]?.checker).toBe(MODULE_FORGES_VERDICT);
    expect(judged?.failure?.violations[0]?.message).toMatch(/no record of consumer point 5/);
  }, 120_000);

  it('CETP-4.4-17: a worker that reports the failing points of a crash-only bug holding fails with module-forges-verdict, its failures judged again', async () => {
    const { report, records } = await flow(splitCommit as readonly ProviderFixture[]);
    const honest = judgeFlow(JOB, report, records);
    expect(honest).toEqual(report);
    const provider = report.sides.find((s) => s.side === 'provider');
    expect(provider?.failedSteps.length).toBeGreaterThan(0);
    // The forged claim: every point held.
    const claim: FlowReport = {
      ...report,
      sides: report.sides.map(({ failure: _, ...s }) => ({ ...s, failedSteps: [] })),
    };
    const judged = judgeFlow(JOB, claim, records).sides.find((s) => s.side === 'provider');
    expect(judged?.failedSteps).toEqual(provider?.failedSteps);
    const checkers = judged?.failure?.violations.map((v) => v.checker) ?? [];
    expect(checkers[0]).toBe(MODULE_FORGES_VERDICT);
    expect(checkers).toContain('single-effect');
    expect(judged?.failure?.replay.traceHash).toBe(provider?.failure?.replay.traceHash);
  }, 120_000);
});
