/**
 * The aimed extras moves (src/fuzz/scenario/aimed-arb.ts): `make` executes a tool declared `create`,
 * `own` / `other` an args entry naming the caller's own object or another actor's; and before a
 * `$OTHER:` is filled the raw driver waits a little for another actor to know that field
 * (driver-own.ts), so a second caller acts on the first caller's real object.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aimedArb, aimsOf } from '../../src/fuzz/scenario/aimed-arb.ts';
import { ALERTS } from '../../src/fuzz/scenario/fixtures.ts';
import { type Command, REFERENCE, type Scenario } from '../../src/fuzz/scenario/model.ts';
import { resultFields } from '../../src/fuzz/scenario/placeholders.ts';
import { runScenario } from '../../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../../src/fuzz/suites.ts';

const TOOLS = ['alerts.get_quote', 'alerts.create_alert', 'alerts.delete_alert'];

const execute = (tool: string, args: number): Command => ({
  kind: 'execute',
  provider: 'alerts',
  tool,
  args,
  rid: { kind: 'fresh' },
  expiredDeadline: false,
  confirmedFlag: false,
  resolve: 'honest',
  duplicates: 0,
});

describe('aimed moves', () => {
  it('make names the tools declared create; own and other the pool entries with their placeholder', () => {
    expect(aimsOf('make', [ALERTS], TOOLS)).toEqual([
      { provider: 'alerts', tool: 'create_alert', index: undefined },
    ]);
    expect(aimsOf('own', [ALERTS], TOOLS)).toEqual([{ provider: 'alerts', tool: 'delete_alert', index: 0 }]);
    expect(aimsOf('other', [ALERTS], TOOLS)).toEqual([]);
  });

  it('an aimed execution is sent to an aim; with none it stays the plain execution', () => {
    const plain = fc.constant(execute('get_quote', 5));
    const aims = aimsOf('own', [ALERTS], TOOLS);
    for (const c of fc.sample(aimedArb(aims, plain), { numRuns: 20, seed: 1 }))
      expect(c).toMatchObject({ tool: 'delete_alert', args: 0 });
    expect(fc.sample(aimedArb([], plain), { numRuns: 3, seed: 1 })).toEqual([
      execute('get_quote', 5),
      execute('get_quote', 5),
      execute('get_quote', 5),
    ]);
  });

  it("a second caller's `$OTHER:` waits for the first caller's async create and names its real id", async () => {
    const p = PROPERTIES.find((x) => x.id === 'idempotency');
    if (p?.kind !== 'raw') throw new Error('the idempotency property drives the raw driver');
    const pool = [{ alert_id: '$OTHER:alert_id' }, { alert_id: 'ALRT-99' }];
    const providers = p.fixture.providers.map((x) =>
      x.name === 'alerts' ? { ...x, tools: { ...x.tools, delete_alert: pool } } : x,
    );
    const scenario: Scenario = {
      seed: 1,
      tail: 'fifo',
      actors: {
        a: [execute('create_alert', 2), { kind: 'wait', ms: 3_000 }, { kind: 'poll', other: false }],
        // At once: without the wait for a's id it would fall back on the pool's ALRT-99.
        b: [execute('delete_alert', 0)],
      },
      user: [],
      faults: [],
      decisions: [],
    };
    const run = await runScenario({ ...p.fixture, providers }, scenario, REFERENCE);
    const created = run.observation.calls.flatMap((c) =>
      c.method === 'get_operation' ? resultFields(c.reply.kind === 'bundle' ? c.reply.data : null) : [],
    );
    const id = created.find(([field]) => field === 'alert_id')?.[1];
    expect(id).toMatch(/^ALRT-/);
    const deletes = run.observation.calls.filter((c) => c.toolName === 'delete_alert');
    expect(deletes.map((d) => d.args)).toEqual([JSON.stringify({ alert_id: id })]);
  });
});
