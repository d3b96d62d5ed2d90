/**
 * The provider-side oracles of issue 22 item 1 can fail (common standard: a verdict must be able to
 * fail). Each passes on the reference apps (properties/properties.test.ts runs every property) and
 * fails here on a deliberately broken provider module (properties/controls/broken/), loaded as a
 * user's module is: a reference app with one enforcement point dropped, as a provider written
 * without that check would behave.
 */
import { describe, expect, it } from 'vitest';
import { loadProviderModule, withProviders } from '../../src/cli/provider-module.ts';
import { fuzzProperty } from '../../src/fuzz/fuzz.ts';
import type { Tail } from '../../src/fuzz/scenario/model.ts';
import { type PropertyDef, propertyById } from '../../src/fuzz/suites.ts';

async function fuzzWith(property: string, module: string, runs: number, tails: readonly Tail[] = []) {
  const def = propertyById(property) as PropertyDef;
  const provider = await loadProviderModule(
    `properties/controls/broken/${module}.provider.ts`,
    process.cwd(),
  );
  return fuzzProperty(withProviders(def, provider), { seed: 0, runs, ...(tails.length ? { tails } : {}) });
}

function violationOf(result: Awaited<ReturnType<typeof fuzzWith>>, checker: string) {
  expect(result.status).toBe('failed');
  const v = result.failure?.replay.violations.find((x) => x.checker === checker);
  expect(
    v,
    `violations: ${result.failure?.replay.violations.map((x) => x.checker).join(', ')}`,
  ).toBeDefined();
  return v;
}

describe('provider oracles (issue 22 item 1) fail on broken providers', () => {
  it('output-schema (CETP-4.2-03): a provider that sends what its output_schema forbids', async () => {
    const v = violationOf(await fuzzWith('large-results', 'unchecked-output', 200), 'output-schema');
    expect(v?.ruleIds).toContain('CETP-4.2-03');
    expect(v?.message).toMatch(
      /export_statement .*breaks the tool's output_schema at \/entries\/\d+\/amount/,
    );
  });

  it('runtime-risk-approved (CETP-3.4-12): a provider that applies only the static policy', async () => {
    const v = violationOf(
      await fuzzWith('confirmation', 'ignores-runtime-risk', 200),
      'runtime-risk-approved',
    );
    expect(v?.ruleIds).toEqual(['CETP-3.4-12']);
    expect(v?.message).toMatch(/effect of create_alert .*riskier than its tool's declaration/);
  });

  it('admission-limit (CETP-5-17): a provider that never answers RATE_LIMITED', async () => {
    const v = violationOf(await fuzzWith('idempotency', 'no-admission-limit', 200), 'admission-limit');
    expect(v?.ruleIds).toEqual(['CETP-5-17']);
    expect(v?.message).toMatch(/(\d+) executions of one session .* over its max_concurrent_requests 4/);
  });

  it('admission-limit (CETP-5-17): a provider that holds a reply after its admission slot is freed', async () => {
    // The slow control's first form: the wait wrapped call(), outside the SDK's slot (slow.provider.ts);
    // the CLI's default portfolio of schedules meets it at run 3.
    const portfolio = ['fifo', 'random', 'pct'] as const;
    const v = violationOf(
      await fuzzWith('idempotency', 'tail-outside-slot', 5, portfolio),
      'admission-limit',
    );
    expect(v?.message).toMatch(/(\d+) executions of one session .* over its max_concurrent_requests 4/);
  });

  it('business-refusal (CETP-7.3-04): a provider that relies on its JSON Schema alone', async () => {
    const v = violationOf(await fuzzWith('confirmation', 'no-business-rules', 200), 'business-refusal');
    expect(v?.ruleIds).toEqual(['CETP-7.3-04']);
    expect(v?.message).toMatch(/create_alert .*business rules refuse .*"price":5000/);
  });

  it('malformed-refused (CETP-4.1-08): a provider that executes valid args over max_request_bytes', async () => {
    const v = violationOf(await fuzzWith('malformed', 'no-size-limit', 100), 'malformed-refused');
    expect(v?.message).toMatch(/success|accepted/);
  });
});

describe('consumer-trusts-identity (CETP-3.1-02) fails on a consumer that does not check provider_id', () => {
  it('the reference consumer with its namespace check off uses an impersonating provider', async () => {
    const def = propertyById('hostile') as PropertyDef;
    const result = await fuzzProperty(def, {
      seed: 0,
      runs: 200,
      variant: { providerBugs: [], consumerBugs: [], disabledRules: ['CETP-3.1-02'] },
    });
    const v = violationOf(result, 'consumer-trusts-identity');
    expect(v?.message).toMatch(/provider_id "com\.example\.payments", outside package/);
  });
});
