/**
 * The campaign-level `tool-never-succeeds` verdict is sound at a short campaign (issue 30): the
 * unchanged reference world passes every property at 40 runs for seeds 3 and 4 (the seeds of the false
 * alarms the unit tests below record; seeds 0..4 in `npm run campaign:long`) — a tool that works
 * is never failed because too few fair attempts were made (those are reported `inconclusive`) —
 * while a tool that truly always fails is still named at the CI budget.
 */
import { describe, expect, it } from 'vitest';
import {
  ExerciseTally,
  NOTHING_EXERCISED,
  type RunExercise,
  type ToolTally,
} from '../src/check/exercised.ts';
import { fuzzProperty, NEVER_SUCCEEDS_AFTER } from '../src/fuzz/fuzz.ts';
import { PROPERTIES, propertyById } from '../src/fuzz/suites.ts';
import { fuzzProvider } from '../src/harness/fuzz.ts';
import { ALERT_TOOLS, ALERTS_PROVIDER, getQuote } from '../src/providers/apps/alerts.ts';
import { defineProvider } from '../src/providers/sdk/define.ts';

const PORTFOLIO = ['fifo', 'random', 'pct'] as const;
/** `npm run campaign:long` soaks five seeds; `npm test` the two whose false alarms the unit tests record. */
const SEEDS = process.env.CETP_SIM_CAMPAIGN === 'long' ? [0, 1, 2, 3, 4] : [3, 4];

/** One run's exercise with only the tallies the verdict reads. */
function runOf(parts: {
  tools?: [string, ToolTally][];
  providers?: [string, ToolTally][];
  args?: [string, string[], string[]][];
  succeeded?: string[];
}): RunExercise {
  return {
    ...NOTHING_EXERCISED,
    tools: new Map(parts.tools ?? []),
    providers: new Map(parts.providers ?? []),
    toolArgs: new Map(
      (parts.args ?? []).map(([k, failed, sent]) => [k, { failed: new Set(failed), sent: new Set(sent) }]),
    ),
    toolsSucceeded: new Set(parts.succeeded ?? []),
  };
}

const failing = (n: number): ToolTally => ({ calls: n, succeeded: 0, providerFailed: n, unmet: 0 });

describe('tool-never-succeeds judges only fair attempts', () => {
  const N = NEVER_SUCCEEDS_AFTER;
  const key = 'com.example.payments|export_statement';

  it('fails a tool that failed by its own fault on every args it was sent', () => {
    const tally = new ExerciseTally();
    tally.add(runOf({ tools: [[key, failing(N)]], args: [[key, ['a', 'b'], ['a', 'b']]] }));
    expect(tally.neverSucceeded(N).map((b) => b.tool)).toEqual([key]);
    expect(tally.inconclusive(N)).toEqual([]);
  });

  it('is inconclusive when every failure had the same args (the seed-3 export_statement of SAV-$UID)', () => {
    const tally = new ExerciseTally();
    tally.add(runOf({ tools: [[key, failing(N)]], args: [[key, ['SAV'], ['SAV', 'CHK']]] }));
    expect(tally.neverSucceeded(N)).toEqual([]);
    expect(tally.inconclusive(N).map((i) => i.tool)).toEqual([key]);
    expect(tally.inconclusive(N)[0]?.why).toContain('same args');
  });

  it('does not judge a tool that succeeded in a run with faults', () => {
    const tally = new ExerciseTally();
    tally.add(runOf({ tools: [[key, failing(N)]], args: [[key, ['a', 'b'], ['a', 'b']]] }));
    tally.add(runOf({ succeeded: [key] }));
    expect(tally.neverSucceeded(N)).toEqual([]);
    expect(tally.inconclusive(N)).toEqual([]);
  });

  it('does not count calls whose preconditions were unmet against a provider (the seed-4 identity campaign)', () => {
    const provider = 'com.example.payments|*';
    const refused: ToolTally = { calls: 141, succeeded: 0, providerFailed: 0, unmet: 135 };
    const tally = new ExerciseTally();
    tally.add(runOf({ providers: [[provider, refused]] }));
    expect(tally.neverSucceeded(N)).toEqual([]);
    expect(tally.inconclusive(N).map((i) => i.tool)).toEqual([provider]);
    const fair: ToolTally = { calls: 141, succeeded: 0, providerFailed: 0, unmet: 131 };
    const judged = new ExerciseTally();
    judged.add(runOf({ providers: [[provider, fair]] }));
    expect(judged.neverSucceeded(N).map((b) => b.tool)).toEqual([provider]);
  });
});

describe('the reference world at a short campaign', () => {
  it.each(SEEDS)(
    'seed %i: every property passes at 40 runs (no tool-never-succeeds false alarm)',
    async (seed) => {
      const failed: string[] = [];
      for (const def of PROPERTIES) {
        const result = await fuzzProperty(def, { seed, runs: 40, tails: PORTFOLIO });
        if (result.status !== 'passed')
          failed.push(`${def.id}: ${result.failure?.replay.violations.map((v) => v.checker).join(', ')}`);
      }
      expect(failed).toEqual([]);
    },
    600_000,
  );
});

describe('a tool that truly always fails', () => {
  // The alerts app with get_quote broken: every call throws (INTERNAL_ERROR); the other tools work.
  const { providerId: _, ...descriptor } = ALERTS_PROVIDER.descriptor;
  const BROKEN_QUOTES = defineProvider({
    packageName: 'com.example.brokenquotes',
    descriptor,
    tools: ALERT_TOOLS.filter((t) => t.name !== 'clear_alerts').map((t) =>
      t === getQuote
        ? {
            ...getQuote,
            read: async () => {
              throw new Error('quote service misconfigured');
            },
          }
        : t,
    ),
    authorize: { freeScopes: ['alerts.read'] },
  });

  it('is still reported tool-never-succeeds at the CI budget', async () => {
    const fixture = BROKEN_QUOTES.fixture({
      name: 'brokenquotes',
      tools: {
        get_quote: [{ symbol: 'AAPL' }, { symbol: 'MSFT' }],
        list_alerts: [{}],
        create_alert: [{ symbol: 'AAPL', price: 190 }],
        delete_alert: [{ alert_id: '$OWN:alert_id' }, { alert_id: 'ALRT-1' }],
      },
    });
    const def = propertyById('idempotency');
    const report = await fuzzProvider(fixture, {
      property: 'idempotency',
      runs: def?.ciRuns ?? 40,
      replayDir: null,
    });
    const [idempotency] = report.properties;
    expect(idempotency?.status).toBe('failed');
    // Its INTERNAL_ERROR answers are caught at the first run by app-internal-error (CETP-4.2-02),
    // before the campaign-wide liveness verdict is needed; either names the tool.
    const verdict = idempotency?.violations.find(
      (v) => v.checker === 'tool-never-succeeds' || v.checker === 'app-internal-error',
    );
    expect(verdict?.message).toMatch(
      /get_quote (on com\.example\.brokenquotes never succeeded|with args that fit its input schema)/,
    );
  }, 300_000);
});
