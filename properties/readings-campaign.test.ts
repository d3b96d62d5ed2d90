/**
 * Every documented-defensible reading of the reference provider SDK and of the reference consumer
 * (src/protocol/readings.ts, spec/interpretations.md) passes every property, paired with the
 * reference's readings on the other side (issue 30): an oracle that fails a reading the spec allows
 * is a false alarm for every app written that way. The one exception is a pairing the matrix found
 * not to interoperate (src/protocol/readings-findings.ts FINDINGS, spec/matrix.md): there a failure
 * is the finding, and only the properties that show it may fail.
 *
 * `npm test` runs each campaign's first SHORT_RUNS runs; `npm run campaign:long` each property's CI
 * budget (docs/long-campaigns.md). Run i of a campaign is drawn from (seed, i) alone, so the short
 * campaign is the long one's first runs: at seed 0 they reach 29 of the 31 (reading, property) pairs
 * in which the reading changes any run of the CI budget at all (bench/README.md, shared-tests).
 */
import { describe, expect, it } from 'vitest';
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import type { Variant } from '../src/fuzz/scenario/model.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';
import { type ReadingSide, readingOptions, VARIANTS } from '../src/protocol/readings.ts';
import { FINDINGS } from '../src/protocol/readings-findings.ts';

/** `npm run campaign:long`: every property at its CI budget; `npm test`: the first SHORT_RUNS of them. */
const LONG = process.env.CETP_SIM_CAMPAIGN === 'long';
const SHORT_RUNS = 13;

/** Each non-reference reading of today's text, one at a time (a proposed reading is not defensible yet). */
const READINGS = VARIANTS.flatMap((v) =>
  v.readings
    .slice(1)
    .filter((r) => r.proposed === undefined)
    .map((r) => ({ side: v.side, id: v.id, name: r.name, label: `${v.side} ${v.id}=${r.name}` })),
);

/** The option value of `id` on `side` under `readings` (the reference's when not named). */
function optionValue(
  side: ReadingSide,
  id: string,
  readings: Record<string, string>,
): string | boolean | undefined {
  const named = readingOptions(side, readings)[id];
  return named ?? VARIANTS.find((v) => v.side === side && v.id === id)?.readings[0].value;
}

/** The matrix findings (breaking pairings) this reading, paired with the reference, is. */
function findingsOf(side: ReadingSide, id: string, name: string) {
  const mine = { [id]: name };
  const provider = side === 'provider' ? mine : {};
  const consumer = side === 'consumer' ? mine : {};
  return FINDINGS.filter(
    (f) =>
      Object.entries(f.provider).every(([k, v]) => optionValue('provider', k, provider) === v) &&
      Object.entries(f.consumer).every(([k, v]) => {
        const def = VARIANTS.find((x) => x.side === 'consumer' && x.id === k);
        const wanted = def?.readings.find((r) => r.name === v)?.value ?? v;
        return optionValue('consumer', k, consumer) === wanted;
      }) &&
      // A finding about this variant, not one the reference pairing already is.
      (f.provider[id] !== undefined || f.consumer[id] !== undefined),
  );
}

/** What the matrix says a breaking pairing fails (spec/matrix.md): the agent is told a refusal. */
const FINDING_ORACLES = new Set([
  'agent-not-refused-as-misuse',
  'agent-outcome-truth',
  'tool-never-succeeds',
]);

describe(`each defensible reading passes every property (seed 0, ${LONG ? 'the CI budget' : `${SHORT_RUNS} runs; the CI budget in campaign:long`})`, () => {
  it.each(READINGS)(
    '$label',
    async ({ side, id, name }) => {
      const readings = side === 'provider' ? { provider: { [id]: name } } : { consumer: { [id]: name } };
      const variant: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [], readings };
      const breaks = findingsOf(side, id, name).length > 0;
      const failed: string[] = [];
      for (const def of PROPERTIES) {
        // Without the frequency floors (properties.test.ts asks them of the reference): a missed floor
        // only re-runs, for its replay file, a scenario this campaign already judged; no status changes.
        const result = await fuzzProperty(
          { ...def, floors: {} },
          {
            seed: 0,
            runs: LONG ? def.ciRuns : Math.min(def.ciRuns, SHORT_RUNS),
            tails: ['fifo', 'random', 'pct'],
            variant,
          },
        );
        if (result.status === 'passed') continue;
        const checkers = result.failure?.replay.violations.map((v) => v.checker) ?? [String(result.vacuity)];
        if (breaks && checkers.every((c) => FINDING_ORACLES.has(c))) continue;
        failed.push(`${def.id}: ${result.status} ${checkers.join(', ')}`);
      }
      expect(failed).toEqual([]);
    },
    600_000,
  );
});

describe('a reading an app is configured with, not declared to the judge', () => {
  it('cancelFinished accept, undeclared (the reference with CETP-5-16 off answers exactly so): operations passes', async () => {
    // The issue's case: the SDK configured with cancelFinished: accept failed `operations` at run 2.
    const def = PROPERTIES.find((p) => p.id === 'operations');
    if (!def) throw new Error('no operations property');
    const variant: Variant = { providerBugs: [], consumerBugs: [], disabledRules: ['CETP-5-16'] };
    const result = await fuzzProperty(def, {
      seed: 0,
      runs: def.ciRuns,
      tails: ['fifo', 'random', 'pct'],
      variant,
    });
    expect(result.failure?.replay.violations.map((v) => v.checker) ?? []).toEqual([]);
    expect(result.status).toBe('passed');
  }, 300_000);
});
