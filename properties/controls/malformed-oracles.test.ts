/**
 * The malformed oracles can fail (common standard: a verdict must be able to fail). The `malformed`
 * property, whose batches are derived from the wire key tables, passes on the reference apps with
 * every malformed call refused by a structured error — and fails on two deliberately broken provider
 * modules (properties/controls/broken/, loaded as users' modules are): one that creates the alert of
 * a malformed create_alert before refusing it (error-means-no-effect), one that throws on a request
 * whose keys have the wrong Bundle types (malformed-refused).
 */
import { describe, expect, it } from 'vitest';
import { loadProviderModule, withProviders } from '../../src/cli/provider-module.ts';
import { fuzzProperty } from '../../src/fuzz/fuzz.ts';
import { type PropertyDef, propertyById } from '../../src/fuzz/suites.ts';

const MALFORMED = propertyById('malformed') as PropertyDef;

async function fuzzWith(module: string, runs: number) {
  const provider = await loadProviderModule(module, process.cwd());
  return fuzzProperty(withProviders(MALFORMED, provider), { seed: 0, runs });
}

describe('malformed oracles', () => {
  it('the reference apps pass, every malformed call refused with a structured error', async () => {
    const result = await fuzzProperty(MALFORMED, { seed: 0, runs: MALFORMED.ciRuns });
    expect(result.status).toBe('passed');
    expect(result.exercised.malformedCalls).toBeGreaterThan(1_000);
    expect(result.exercised.malformedRefused).toBe(result.exercised.malformedCalls);
  });

  it('error-means-no-effect fails a provider that commits a malformed write before refusing it', async () => {
    const result = await fuzzWith('properties/controls/broken/commits-on-malformed.provider.ts', 100);
    expect(result.status).toBe('failed');
    const checkers = result.failure?.replay.violations.map((v) => v.checker) ?? [];
    expect(checkers).toContain('error-means-no-effect');
    const v = result.failure?.replay.violations.find((x) => x.checker === 'error-means-no-effect');
    expect(v?.ruleIds).toContain('CETP-5-15');
    expect(v?.message).toMatch(
      /create_alert request .* committed an effect, but every answer to it was an error/,
    );
  });

  it('malformed-refused fails a provider that throws on keys of the wrong Bundle type', async () => {
    const result = await fuzzWith('properties/controls/broken/throws-on-wrong-type.provider.ts', 100);
    expect(result.status).toBe('failed');
    const v = result.failure?.replay.violations.find((x) => x.checker === 'malformed-refused');
    expect(v?.class).toBe('crash');
    expect(v?.message).toMatch(
      /was answered with the exception (NullPointerException|IllegalArgumentException)/,
    );
  });
});
