/**
 * Exhaustive crash points: every flow holds on the reference at every point (each kill applied), a
 * crash-only planted bug fails them, and the run is deterministic.
 */
import { describe, expect, it } from 'vitest';
import { CRASHPOINTS_CONSUMER, CRASHPOINTS_RAW } from '../src/fuzz/crashpoint-oracles.ts';
import {
  crashpointsOfFlow,
  FLOW_KINDS,
  type FlowKind,
  type FlowReport,
  killAt,
  rawFlowScenario,
} from '../src/fuzz/crashpoints.ts';
import { mutantById } from '../src/fuzz/mutants.ts';
import { replayablePropertyById } from '../src/fuzz/registry.ts';
import { REFERENCE, type Variant } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';

const DEFS = { raw: CRASHPOINTS_RAW, consumer: CRASHPOINTS_CONSUMER };

function points(kind: FlowKind, variant: Variant = REFERENCE) {
  return crashpointsOfFlow(kind, DEFS, { variant });
}

interface ReferenceFlow {
  readonly report: FlowReport;
  /** Runs started. */
  readonly started: number;
  /** Provider-side points (a kill before that step) whose run rolled a transaction back. */
  readonly rolledBack: number;
}

/** Each flow's points on the reference, run once for every test that reads them (run alone, a test makes its own). */
const REFERENCE_FLOWS = new Map<FlowKind, Promise<ReferenceFlow>>();

function referenceFlow(kind: FlowKind): Promise<ReferenceFlow> {
  const made = REFERENCE_FLOWS.get(kind);
  if (made) return made;
  let started = 0;
  let rolledBack = 0;
  const flow = crashpointsOfFlow(kind, DEFS, {
    variant: REFERENCE,
    started: () => started++,
    recorded: (side, step, _scenario, run) => {
      if (side === 'provider' && step >= 0 && run.world.trace.events.some((e) => e.kind === 'store.rollback'))
        rolledBack++;
    },
  }).then((report) => ({ report, started, rolledBack }));
  REFERENCE_FLOWS.set(kind, flow);
  return flow;
}

describe('crash points on the reference apps', () => {
  it.each(FLOW_KINDS)(
    'CETP-4.4-17 CETP-4.4-16: %s: every point of both sides is run, its kill applied, and every run holds',
    async (kind) => {
      const { report, started } = await referenceFlow(kind);
      expect(report.flow, 'the reference apps offer every flow').not.toBeNull();
      expect(report.sides.map((s) => s.side)).toEqual(['provider', 'consumer']);
      for (const side of report.sides) {
        expect(side.points, `${kind} ${side.side}`).toBeGreaterThan(20);
        expect(side.applied, `${kind} ${side.side}: every kill was applied`).toBe(side.points);
        // Most points find the process running (before its first start, a kill has nothing to kill).
        expect(side.live, `${kind} ${side.side}`).toBeGreaterThan(side.points / 2);
        expect(side.failure?.violations ?? [], `${kind} ${side.side}`).toEqual([]);
        expect(side.failedSteps).toEqual([]);
      }
      // One fault-free run and one run per point and side (plus the flow search and the consumer's timing).
      expect(started).toBe(2 + report.sides.reduce((n, s) => n + s.points, 0));
    },
  );

  it('the provider-side flow retries the same request_id and then sends a fresh one', () => {
    const flow = {
      kind: 'sync-write',
      provider: 'alerts',
      packageName: 'x',
      tool: 'create_alert',
      args: 0,
    } as const;
    const commands = rawFlowScenario(flow, [killAt(7, 'x')]).actors.a ?? [];
    expect(commands.map((c) => (c.kind === 'execute' ? `execute ${c.rid.kind}` : c.kind))).toEqual([
      'negotiate',
      'execute fresh',
      'execute reuse',
      'execute fresh',
    ]);
  });

  it('a kill inside the open transaction is really reached: some point of the sync write rolls one back', async () => {
    // Counted in the provider-side point runs themselves (rawFlowScenario(flow, [killAt(step, …)])).
    const { report, rolledBack } = await referenceFlow('sync-write');
    if (!report.flow) throw new Error('no sync-write flow');
    expect(report.sides[0]?.points).toBeGreaterThan(0);
    expect(rolledBack).toBeGreaterThan(0);
  });

  it('is deterministic: the same flow gives the same report and the same replay', async () => {
    const { report: a } = await referenceFlow('confirmation');
    const b = await points('confirmation');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('the crash-point properties are replayable by id, and not part of the fuzzed catalogue', async () => {
    expect(replayablePropertyById('crashpoints')).toBe(CRASHPOINTS_RAW);
    expect(replayablePropertyById('crashpoints-consumer')).toBe(CRASHPOINTS_CONSUMER);
    const { PROPERTIES } = await import('../src/fuzz/suites.ts');
    expect(PROPERTIES.map((p) => p.id)).not.toContain('crashpoints');
  });
});

describe('crash points catch crash bugs', () => {
  it('CETP-4.4-16 CETP-10-13: operations kept in memory until commit (planted bug operations-in-memory): the async flow fails with a replay', async () => {
    const mutant = mutantById('operations-in-memory');
    if (!mutant) throw new Error('catalogue changed');
    const report = await points('async-cancel', mutant.variant);
    const provider = report.sides.find((s) => s.side === 'provider');
    expect(provider?.failedSteps.length).toBeGreaterThan(0);
    const failure = provider?.failure;
    expect(failure?.violations.map((v) => v.checker)).toContain('operations-terminate');
    expect(failure?.replay.property).toBe('crashpoints');
    expect(failure?.replay.scenario.faults).toEqual([
      killAt(failure?.step ?? -1, report.flow?.packageName ?? ''),
    ]);
    // The replay's scenario fails again on its own.
    const again = await runScenario(
      CRASHPOINTS_RAW.fixture,
      failure?.replay.scenario as Parameters<typeof runScenario>[1],
      mutant.variant,
    );
    expect(again.report.traceHash).toBe(failure?.replay.traceHash);
    expect(again.violations.length).toBeGreaterThan(0);
  });

  it('CETP-6-08 CETP-4.1-16: a consumer that forgets its request_id on restart (planted bug): the consumer side of the sync write fails', async () => {
    const mutant = mutantById('consumer-forgets-request-id-on-restart');
    if (!mutant) throw new Error('catalogue changed');
    const report = await points('sync-write', mutant.variant);
    const [provider, consumer] = report.sides;
    expect(provider?.failedSteps).toEqual([]);
    expect(consumer?.failedSteps.length).toBeGreaterThan(0);
    expect(consumer?.failure?.violations.map((v) => v.checker)).toContain('consumer-request-id-stable');
    expect(consumer?.failure?.replay.property).toBe('crashpoints-consumer');
  });
});
