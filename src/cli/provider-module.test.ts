import { describe, expect, it } from 'vitest';
import { PAYMENTS } from '../fuzz/scenario/fixtures.ts';
import { type PropertyDef, propertyById } from '../fuzz/suites.ts';
import { CliError } from '../harness/errors.ts';
import { loadProviderModule, withProviders } from './provider-module.ts';

const cwd = process.cwd();
const def = (id: string) => propertyById(id) as PropertyDef;

describe('--provider modules', () => {
  it('loads a module, checks it, and retargets a raw property: providers, tools, faults', async () => {
    const module = await loadProviderModule('src/cli/testdata/my-alerts.provider.ts', cwd);
    expect(module.providers.map((p) => p.name)).toEqual(['myalerts']);
    const idempotency = withProviders(def('idempotency'), module);
    expect(idempotency.fixture.providers.map((p) => p.name)).toEqual(['myalerts']);
    expect(idempotency.shape.tools).toEqual(['myalerts.create_alert', 'myalerts.get_quote']);
    // Faults aimed at the reference apps now aim at the user's package; others stay.
    const faults = idempotency.shape.faults.map((f) => JSON.stringify(f));
    expect(faults.some((f) => f.includes(PAYMENTS.packageName))).toBe(false);
    expect(faults).toContain(JSON.stringify({ kind: 'kill', process: 'com.example.alerts' }));
    expect(faults).toContain(JSON.stringify({ kind: 'clockJump', ms: 2 * 3_600_000 }));
    // Without propertyTools for a property, every tool of the module is fuzzed.
    const versions = withProviders(def('versions'), module);
    expect(versions.shape.tools).toBeUndefined();
    // The catalogue's own definition is untouched.
    expect(def('idempotency').fixture.providers.map((p) => p.name)).toEqual(['alerts', 'payments']);
  });

  it('retargets a consumer-driven property, keeping its hostile provider', async () => {
    const module = await loadProviderModule('src/cli/testdata/my-alerts.provider.ts', cwd);
    const hostile = def('hostile');
    if (hostile.kind !== 'consumer') throw new Error('hostile is a consumer-driven property');
    const mine = withProviders(hostile, module);
    expect(mine.fixture.providers.map((p) => p.name)).toEqual(['myalerts']);
    expect(mine.shape.tools).toEqual(expect.arrayContaining(['myalerts.get_quote', 'hostile.lookup']));
    expect(mine.shape.tools?.some((t) => t.startsWith('alerts.'))).toBe(false);
  });

  it.each([
    ['broken.provider.ts', 'providers[0].install must be a function'],
    ['bad-schemas.provider.ts', "providers[0].inputSchemas: 'no_such_tool' is not in tools"],
    ['wrong-authority.provider.ts', 'declares no provider with authority com.example.nowhere'],
    [
      'contradicts.provider.ts',
      'providers[0].effects.get_quote: the fixture says "create", list_tools says "read"',
    ],
    ['throws.provider.ts', 'the module failed to load: cannot reach the build server'],
    [
      'own-no-fallback.provider.ts',
      'providers[0].tools.delete_alert[0].alert_id: $OWN:alert_id has nothing to stand for it until the caller owns one',
    ],
    ['nothing-here.ts', 'no such file'],
  ])('%s is refused: %s', async (file, message) => {
    const load = loadProviderModule(`src/cli/testdata/${file}`, cwd);
    await expect(load).rejects.toBeInstanceOf(CliError);
    await expect(load).rejects.toThrow(message);
  });
});
