/**
 * list-matches-visibility (CETP-7.2-01, 7.2-02) judges alerts' clear_alerts, hidden from callers
 * without a live alerts.write grant, against the grants committed in the provider's store: it holds
 * on the reference (listed under the seeded grant of the note-14 situation, absent without one) and
 * fails when the visibility check is ablated (listed to callers with no grant) and on a broken
 * module that hides the tool from a caller holding the grant.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { matrixPropertyById } from '../../fuzz/matrix.ts';
import { consumerScenarioArb, runConsumerScenario } from '../../fuzz/scenario/consumer.ts';
import type { Variant } from '../../fuzz/scenario/model.ts';
import { type ConsumerPropertyDef, propertyById } from '../../fuzz/suites.ts';
import { clearAlerts } from '../../providers/apps/alerts.ts';
import type { GrantRecord } from '../../providers/sdk/confirmations.ts';
import { grantLiveAt, listMatchesVisibility } from './visibility.ts';

const REFERENCE: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };

/** Runs `n` sampled scenarios of `def` and returns this checker's messages and how many lists named the tool. */
async function judge(def: ConsumerPropertyDef, variant: Variant, n: number) {
  const scenarios = fc.sample(consumerScenarioArb(def.shape, ['fifo'], true), { seed: 7, numRuns: n });
  const messages: string[] = [];
  let listedHidden = 0;
  for (const s of scenarios) {
    const run = await runConsumerScenario(def.fixture, s, variant);
    for (const v of listMatchesVisibility.check(run.observation, run.context)) messages.push(v.message);
    for (const c of run.observation.calls)
      if (
        c.method === 'list_tools' &&
        c.reply.kind === 'bundle' &&
        JSON.stringify(c.reply.data ?? null).includes('"clear_alerts"')
      )
        listedHidden++;
  }
  return { messages, listedHidden };
}

const situation = matrixPropertyById('matrix-grant-expires') as ConsumerPropertyDef;
const consumer = propertyById('consumer') as ConsumerPropertyDef;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('list-matches-visibility (CETP-7.2-01, CETP-7.2-02)', () => {
  it('holds on the reference: listed under a live grant, hidden without one', async () => {
    const granted = await judge(situation, REFERENCE, 6);
    expect(granted.messages).toEqual([]);
    expect(granted.listedHidden).toBeGreaterThan(0);
    const plain = await judge(consumer, REFERENCE, 6);
    expect(plain.messages).toEqual([]);
    expect(plain.listedHidden).toBe(0);
  });

  it('fails with the visibility check ablated: the tool is listed to callers without a grant', async () => {
    const { messages } = await judge(consumer, { ...REFERENCE, disabledRules: ['CETP-7.2-01'] }, 6);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages[0]).toMatch(
      /list_tools showed clear_alerts to uid \d+, which holds no live grant of alerts.write/,
    );
  });

  it('fails on a broken module that hides the tool from a caller holding the grant', async () => {
    vi.spyOn(clearAlerts, 'isVisibleTo').mockImplementation(async () => false);
    const { messages, listedHidden } = await judge(situation, REFERENCE, 6);
    expect(listedHidden).toBe(0);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages[0]).toMatch(
      /list_tools hid clear_alerts from uid \d+, which holds a live grant of alerts.write/,
    );
  });

  it('reads a grant table: live inside [granted, expires), unknown before the last grant began', () => {
    const g = (uid: number, from: number, to: number): GrantRecord => ({
      scope: 'alerts.write',
      identity: JSON.stringify([uid, [['com.x', ['c']]]]),
      grantedAtMs: from,
      expiresAtMs: to,
    });
    expect(grantLiveAt([g(10, 100, 200)], 10, 'alerts.write', 150)).toBe(true);
    expect(grantLiveAt([g(10, 100, 200)], 10, 'alerts.write', 200)).toBe(false);
    expect(grantLiveAt([g(10, 100, 200)], 10, 'alerts.write', 50)).toBeNull();
    expect(grantLiveAt([], 10, 'alerts.write', 50)).toBe(false);
    expect(grantLiveAt([g(11, 100, 200)], 10, 'alerts.write', 150)).toBe(false);
    expect(grantLiveAt([g(10, 100, 200)], 10, 'alerts.write', 150, 'someone else')).toBeNull();
  });
});
