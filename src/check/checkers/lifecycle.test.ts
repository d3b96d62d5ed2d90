/**
 * The lifecycle oracles (lifecycle.ts) on the `lifecycle` property's scenarios — an app with a
 * journal using what it held after a restart, a reboot, a reinstall or a re-sign of the provider or
 * of itself: each holds on the reference (and the situations it judges happen), and each fails on a
 * provider broken the way it exists to catch. single-effect and same-terminal-result count per
 * provider incarnation: on the reference a request re-sent after a reinstall does run again.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scenarioArb } from '../../fuzz/scenario/arbitraries.ts';
import { executeCommand, type Scenario, type Variant } from '../../fuzz/scenario/model.ts';
import { runScenario, type ScenarioRun } from '../../fuzz/scenario/runner.ts';
import { propertyById, type RawPropertyDef } from '../../fuzz/suites.ts';
import { SessionTable } from '../../providers/sdk/sessions.ts';
import { DurableStore } from '../../sim/storage/storage.ts';
import { World } from '../../sim/world.ts';
import type { Checker } from '../checker.ts';
import { singleEffect } from './effects.ts';
import {
  incarnationAt,
  LIFECYCLE_CHECKERS,
  restartKeepsOperation,
  restartSessionOutcome,
  wipedStateUnknown,
} from './lifecycle.ts';

const REFERENCE: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };
const def = propertyById('lifecycle') as RawPropertyDef;

/** `n` sampled lifecycle scenarios (fixed seed), run with `variant`. */
async function runs(variant: Variant, n: number): Promise<ScenarioRun[]> {
  const scenarios = fc.sample(scenarioArb(def.shape, ['fifo', 'random', 'pct'], true), {
    seed: 11,
    numRuns: n,
  });
  const out: ScenarioRun[] = [];
  for (const s of scenarios) out.push(await runScenario(def.fixture, s, variant));
  return out;
}

function messages(list: readonly ScenarioRun[], checker: Checker): string[] {
  return list.flatMap((r) => checker.check(r.observation, r.context).map((v) => v.message));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('lifecycle oracles (issue 22 item 7)', () => {
  it('hold on the reference', async () => {
    const list = await runs(REFERENCE, 16);
    for (const c of [...LIFECYCLE_CHECKERS, singleEffect]) expect(messages(list, c), c.id).toEqual([]);
  });

  it('count effects per provider incarnation: a request re-sent after a reinstall runs again, once', async () => {
    // An app re-sends a request its journal holds as done, once the provider was reinstalled: the
    // new incarnation has no record of it (nor the grant), asks again, and runs it again.
    const scenario: Scenario = {
      seed: 1,
      tail: 'fifo',
      actors: {
        a: [
          executeCommand('payments.reconcile_accounts'),
          { kind: 'wait', ms: 20_000 },
          { kind: 'after-faults' },
          { kind: 'retry', index: 0, afterMs: 0, resolve: true },
          { kind: 'retry', index: 0, afterMs: 0, resolve: true },
        ],
      },
      user: [],
      faults: [{ at: 300, fault: { kind: 'reinstall', package: 'com.example.payments' } }],
      decisions: [],
    };
    const run = await runScenario(def.fixture, scenario, REFERENCE);
    const obs = run.observation;
    const effects = obs.effects.filter((e) => e.provider === 'com.example.payments');
    expect(effects.map((e) => incarnationAt(obs, e.provider, e.step))).toEqual([0, 1]);
    expect(new Set(effects.map((e) => e.requestId)).size).toBe(1);
    expect(singleEffect.check(obs, run.context)).toEqual([]);
    expect(run.violations).toEqual([]);
  });

  it('restart-keeps-operation fails on a provider that keeps operations in memory', async () => {
    const list = await runs({ ...REFERENCE, providerBugs: ['operations-in-memory'] }, 16);
    const found = messages(list, restartKeepsOperation);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(
      /accepted before com\.example\.\w+ restarted, was unknown to (get|cancel)_operation/,
    );
  });

  it('restart-session-outcome fails on a provider that refuses its own caller’s lost session as misuse', async () => {
    // Sessions lost in a restart taken for another UID's, under the reading that answers those
    // INVALID_REQUEST (NOTES 8): the caller's own session is then refused as token misuse.
    const check = SessionTable.prototype.check;
    vi.spyOn(SessionTable.prototype, 'check').mockImplementation(function (this: SessionTable, ...args) {
      const r = check.apply(this, args);
      return !r.ok && r.reason === 'unknown' ? { ok: false, reason: 'foreign_uid' } : r;
    });
    const list = await runs(
      { ...REFERENCE, readings: { provider: { sessionMisuse: 'invalid-request' } } },
      12,
    );
    const found = messages(list, restartSessionOutcome);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(
      /session from before com\.example\.\w+ restarted was refused with INVALID_REQUEST/,
    );
  });

  it('wiped-state-unknown fails on a provider whose data outlives its reinstall', async () => {
    // The package's store survives its uninstall (as if kept outside the app's sandbox): the new
    // incarnation knows the operations and tokens of the one before.
    const kept = new WeakMap<World, Map<string, DurableStore>>();
    const storage = World.prototype.storage;
    vi.spyOn(DurableStore.prototype, 'wipe').mockImplementation(() => {});
    vi.spyOn(World.prototype, 'storage').mockImplementation(function (this: World, pkg: string) {
      const mine = kept.get(this) ?? new Map<string, DurableStore>();
      kept.set(this, mine);
      const store = mine.get(pkg) ?? storage.call(this, pkg);
      mine.set(pkg, store);
      return store;
    });
    const list = await runs(REFERENCE, 16);
    const found = messages(list, wipedStateUnknown);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(
      /before its data was wiped, (answered|was honoured)|issued before its data was wiped was honoured/,
    );
  });
});
