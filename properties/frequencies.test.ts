/**
 * The frequency labels (src/check/frequencies.ts) on hand-written scenarios: each label is absent
 * from a run that does not do the thing and present in one that does — counted from the wire, so a
 * command that never reached a provider counts for nothing — and the floors check fails on a
 * generator without the moves that reach them (issue 22 items 4 and 7).
 */
import { describe, expect, it } from 'vitest';
import { FrequencyTally, floorGaps, runLabels } from '../src/check/frequencies.ts';
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import { ALERTS, PAYMENTS } from '../src/fuzz/scenario/fixtures.ts';
import type { ActorName, Command, Scenario } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { propertyById, type RawPropertyDef } from '../src/fuzz/suites.ts';

function execute(
  provider: string,
  tool: string,
  args = 0,
  resolve: 'honest' | 'late-before' | 'late-after' | 'foreign' = 'honest',
): Command {
  return {
    kind: 'execute',
    provider,
    tool,
    args,
    rid: { kind: 'fresh' },
    expiredDeadline: false,
    confirmedFlag: false,
    resolve,
    duplicates: 0,
  };
}

async function labelsOf(actors: Partial<Record<ActorName, Command[]>>): Promise<Set<string>> {
  const scenario: Scenario = { seed: 1, tail: 'fifo', actors, user: [], faults: [], decisions: [] };
  const run = await runScenario(
    { providers: [ALERTS, PAYMENTS], actors: ['a', 'b'], checkers: [] },
    scenario,
    REFERENCE,
  );
  return runLabels(run.observation, run.context);
}

const attacks = (labels: Set<string>) => [...labels].filter((l) => l.startsWith('attack:'));
const clocks = (labels: Set<string>) => [...labels].filter((l) => l.startsWith('clock:'));

describe('frequency labels, from what a run observed', () => {
  it('a lone honest caller attacks nothing and crosses no clock', async () => {
    const labels = await labelsOf({ a: [execute('alerts', 'get_quote')] });
    expect(attacks(labels)).toEqual([]);
    expect(clocks(labels)).toEqual([]);
  });

  it('a stolen session used by another app is a foreign session', async () => {
    const labels = await labelsOf({
      a: [execute('alerts', 'get_quote')],
      b: [{ kind: 'steal-session' }, { kind: 'collide' }],
    });
    expect(attacks(labels)).toContain('attack:foreign-session');
  });

  it('a resume token presented by another UID is a foreign resume token', async () => {
    const labels = await labelsOf({
      a: [execute('alerts', 'create_alert', 0, 'foreign')],
      b: [{ kind: 'resume-foreign' }],
    });
    expect(attacks(labels)).toContain('attack:foreign-resume-token');
  });

  it('crossings land on the side of the bound they aim at', async () => {
    const before = await labelsOf({
      a: [execute('alerts', 'get_quote'), { kind: 'cross', clock: 'session', side: 'before' }],
    });
    expect(clocks(before)).toContain('clock:session:before');
    expect(clocks(before)).not.toContain('clock:session:after');
    const after = await labelsOf({
      a: [execute('alerts', 'get_quote'), { kind: 'cross', clock: 'window', side: 'after' }],
    });
    expect(clocks(after)).toContain('clock:window:after');
    expect(clocks(after)).not.toContain('clock:window:before');
    const late = await labelsOf({ a: [execute('alerts', 'create_alert', 0, 'late-after')] });
    expect(clocks(late)).toContain('clock:resume-token:after');
  });

  it("method labels count protocol methods only, not a malformed call's made-up method", async () => {
    const malformed: Command = { kind: 'malformed', provider: 'alerts', flaw: 'unknown-method' };
    // Both apps' made-up calls are in flight at once: a race, were they methods.
    const labels = await labelsOf({ a: [malformed, malformed], b: [malformed, malformed] });
    const methods = [...labels].filter((l) => l.startsWith('method:') || l.startsWith('race:'));
    expect(methods.filter((l) => l.includes('execute_tool_v3'))).toEqual([]);
    expect(methods).toContain('race:negotiate+negotiate');
  });

  it('a poll, cancel or listing sent twice at once is duplicated, once after the answer repeated', async () => {
    const once = await labelsOf({
      a: [execute('payments', 'reconcile_accounts'), { kind: 'poll', other: false }],
    });
    expect([...once].filter((l) => l.endsWith(':duplicated') && !l.includes('negotiate'))).toEqual([]);
    const labels = await labelsOf({
      a: [
        execute('payments', 'reconcile_accounts'),
        { kind: 'duplicate-call', method: 'get_operation' },
        { kind: 'duplicate-call', method: 'cancel_operation' },
        { kind: 'duplicate-call', method: 'list_tools' },
        { kind: 'duplicate-call', method: 'get_provider_info' },
      ],
    });
    for (const m of ['get_operation', 'cancel_operation', 'list_tools', 'get_provider_info'])
      expect(labels).toContain(`method:${m}:duplicated`);
  });

  it("a provider's reinstall or re-sign under a new key, and a caller's, are followed by what was held", async () => {
    // An app with a journal (durable actors): it holds a resolution and an operation, the package
    // is reinstalled or re-signed, and it uses them.
    const held: Command[] = [
      execute('payments', 'reconcile_accounts'),
      execute('payments', 'transfer', 0, 'foreign'),
      { kind: 'wait', ms: 20_000 },
      { kind: 'after-faults' },
      { kind: 'poll', other: false },
      { kind: 'cancel', other: false, afterMs: 0 },
      { kind: 'resume-held' },
    ];
    const follow = ['session', 'resume', 'poll', 'cancel', 'negotiate'];
    for (const [fault, event] of [
      [{ kind: 'reinstall', package: PAYMENTS.packageName }, 'reinstall'],
      [{ kind: 'resign', package: PAYMENTS.packageName, cert: 'other', rotate: false }, 'resign-new-key'],
      [{ kind: 'reinstall', package: 'com.fuzz.agent.a' }, 'reinstall'],
      [{ kind: 'resign', package: 'com.fuzz.agent.a', cert: 'other', rotate: false }, 'resign-new-key'],
      [{ kind: 'reboot' }, 'reboot'],
    ] as const) {
      const scenario: Scenario = {
        seed: 1,
        tail: 'fifo',
        actors: { a: held },
        user: [],
        faults: [{ at: 300, fault }],
        decisions: [],
      };
      const run = await runScenario(
        { providers: [ALERTS, PAYMENTS], actors: ['a'], checkers: [], durableActors: true },
        scenario,
        REFERENCE,
      );
      const labels = runLabels(run.observation, run.context);
      for (const f of follow) expect(labels, `${fault.kind} ${f}`).toContain(`after:${event}:${f}`);
    }
  });

  it('a wait far from any bound crosses nothing', async () => {
    const labels = await labelsOf({
      a: [
        execute('alerts', 'get_quote'),
        { kind: 'wait', ms: 20_000 },
        { kind: 'retry', index: 0, afterMs: 0 },
      ],
    });
    expect(clocks(labels).filter((l) => !l.startsWith('clock:deadline'))).toEqual([]);
  });
});

describe('floors', () => {
  it('a tally below a floor is reported, one at or above is not', () => {
    const tally = new FrequencyTally();
    for (let i = 0; i < 10; i++)
      tally.add(new Set(i < 2 ? ['attack:foreign-session', 'clock:session:before'] : []));
    expect(
      floorGaps(tally.frequencies, { 'attack:foreign-session': 0.2, 'clock:session:before': 0.1 }),
    ).toEqual([]);
    expect(floorGaps(tally.frequencies, { 'attack:foreign-session': 0.3 })).toEqual([
      { label: 'attack:foreign-session', floor: 0.3, share: 0.2 },
    ]);
  });

  it('lifecycle with actors that die with their process (no journal) misses its floors', async () => {
    const def = propertyById('lifecycle') as RawPropertyDef;
    const mortal: RawPropertyDef = {
      ...def,
      fixture: { ...def.fixture, durableActors: false },
      shape: { ...def.shape, durableActors: false },
    };
    const result = await fuzzProperty(mortal, { seed: 0, runs: def.ciRuns });
    const missed = floorGaps(result.frequencies, def.floors ?? {}).map((g) => g.label);
    expect(missed).toContain('after:reboot:resume');
    expect(missed).toContain('after:reboot:retry');
  });

  it('identity without its attack moves misses its floors at the CI budget', async () => {
    const def = propertyById('identity') as RawPropertyDef;
    const { extras: _e, extraPercent: _p, weights: _w, otherOpWeight: _o, ...plain } = def.shape;
    const weakened: RawPropertyDef = {
      ...def,
      shape: { ...plain, commands: ['negotiate', 'poll', 'cancel'] },
    };
    const result = await fuzzProperty(weakened, { seed: 0, runs: def.ciRuns });
    const missed = floorGaps(result.frequencies, def.floors ?? {}).map((g) => g.label);
    expect(missed).toContain('attack:foreign-session');
    expect(missed).toContain('attack:foreign-resume-token');
  });
});
