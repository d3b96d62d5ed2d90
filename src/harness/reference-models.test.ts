/**
 * A model of a reference app's tools (the alerts app, whose create_alert runs sync or async) holds
 * under the operations property — results read from get_operation for accepted requests — and a
 * model that ignores the price argument fails it.
 */
import { describe, expect, it } from 'vitest';
import { ALERTS } from '../fuzz/scenario/fixtures.ts';
import type { Invariant, ToolModel } from '../subjects/user-oracle-types.ts';
import { fuzzProvider } from './fuzz.ts';

type Alerts = Record<string, { symbol: string; price: number; owner_uid: number }>;
type Row = { alert_id: string; symbol: string; price: number; owner_uid: number };

function alertsModel(price: (args: { price: number }) => number): ToolModel<Alerts> {
  return {
    initial: () => ({}),
    tools: {
      create_alert: (m, { args, result, callerUid }) => {
        const a = args as { symbol: string; price: number };
        m[(result as { alert_id: string }).alert_id] = {
          symbol: a.symbol,
          price: price(a),
          owner_uid: callerUid,
        };
      },
      delete_alert: (m, { args }) => {
        delete m[(args as { alert_id: string }).alert_id];
      },
      clear_alerts: (m, { callerUid }) => {
        for (const [k, v] of Object.entries(m)) if (v.owner_uid === callerUid) delete m[k];
      },
    },
    fromStorage: (state) =>
      Object.fromEntries(
        Object.values(state.alerts ?? {}).map((r) => {
          const a = r as Row;
          return [a.alert_id, { symbol: a.symbol, price: a.price, owner_uid: a.owner_uid }];
        }),
      ),
  };
}

describe('a model of the alerts app', () => {
  it('holds under the operations property, accepted requests included; one that ignores the price fails', {
    timeout: 300_000,
  }, async () => {
    let asyncApplied = 0;
    const sawAsync: Invariant = {
      id: 'saw-async',
      check: (_state, history) => {
        asyncApplied += history.requests.filter(
          (r) => r.outcome.kind === 'succeeded' && r.calls.some((c) => c.answer === 'accepted'),
        ).length;
      },
    };
    const options = { property: 'operations', runs: 60, seed: 0, replayDir: null } as const;
    const good = {
      ...ALERTS,
      model: alertsModel((a) => a.price) as ToolModel<unknown>,
      invariants: [sawAsync],
    };
    const [held] = (await fuzzProvider(good, options)).properties;
    expect([held?.status, held?.violations]).toEqual(['passed', []]);
    expect(asyncApplied).toBeGreaterThan(0);
    const bad = { ...ALERTS, model: alertsModel(() => 100) as ToolModel<unknown> };
    const [failed] = (await fuzzProvider(bad, options)).properties;
    expect(failed?.violations.map((v) => v.checker)).toEqual(['model:alerts']);
    expect(failed?.violations[0]?.message).toMatch(/\.price: the model has 100, storage \d+/);
  });
});
