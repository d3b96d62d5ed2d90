/**
 * The judge draws a campaign's scenarios again (issue #31): from the seed, the property and the
 * module's catalogue as data — no user code — it finds every run the worker handed over to be the
 * run the seed makes, and the shrunk counterexample to be the scenario at fast-check's path; the
 * record of another run, a made-up scenario, another counterexample, a catalogue that is not the one
 * the runs were drawn from, or none at all, is module-forges-verdict.
 */
import { describe, expect, it } from 'vitest';
import { fuzzProperty } from '../../fuzz/fuzz.ts';
import { mutantById } from '../../fuzz/mutants.ts';
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';
import { REFERENCE, type Variant } from '../../fuzz/scenario/model.ts';
import { propertyById } from '../../fuzz/suites.ts';
import { withProviders } from '../../harness/subjects.ts';
import type { ProviderModule } from '../provider-module.ts';
import { MODULE_FORGES_VERDICT } from './judge.ts';
import { catalogueOf, ScenarioCheck } from './judge-scenarios.ts';
import type { FuzzJob } from './protocol.ts';

/** A user's module as the worker loads it: the alerts app under its own name. */
const MODULE: ProviderModule = {
  specifier: './mine.provider.ts',
  providers: [{ ...ALERTS, name: 'mine' }],
  propertyTools: {},
};

async function campaign(runs: number, variant: Variant = REFERENCE) {
  const def = propertyById('idempotency');
  if (!def) throw new Error('no idempotency');
  const scenarios: unknown[] = [];
  let final: unknown;
  const result = await fuzzProperty(withProviders(def, MODULE), {
    seed: 11,
    runs,
    variant,
    probe: {
      recorded: (phase, scenario) => {
        if (phase === 'run') scenarios.push(structuredClone(scenario));
        if (phase === 'final') final = structuredClone(scenario);
      },
    },
  });
  const job: FuzzJob = {
    kind: 'fuzz',
    property: 'idempotency',
    seed: 11,
    runs,
    tails: ['fifo'],
    variant,
    modules: { provider: MODULE.specifier },
    cwd: '.',
  };
  // The runs the judge counts: up to the first failure (the rest are fast-check's shrinking).
  const counted = scenarios.slice(0, result.runs);
  return { def, job, counted, final, path: result.failure?.replay.fuzz.path ?? '' };
}

function checked(counted: readonly unknown[]): ScenarioCheck {
  const check = new ScenarioCheck();
  for (const s of counted) check.note(s);
  return check;
}

describe('scenarios drawn again in the judge', () => {
  it("every run is the seed's, from the catalogue as data; a swapped, made-up or foreign run, another catalogue or none is forged", async () => {
    const { def, job, counted } = await campaign(6);
    expect(counted).toHaveLength(6);
    const catalogue = catalogueOf(MODULE, null);
    expect(JSON.parse(JSON.stringify(catalogue)).providers[0].tools).toEqual(Object.keys(ALERTS.tools));
    expect(checked(counted).verify(job, def, structuredClone(catalogue))).toBeNull();

    const swapped = [counted[0], counted[2], counted[1], ...counted.slice(3)];
    const lie = checked(swapped).verify(job, def, catalogue);
    expect(lie?.checker).toBe(MODULE_FORGES_VERDICT);
    expect(lie?.message).toMatch(/^run 2 the worker handed over is not the scenario seed 11 makes/);

    const madeUp = [...counted.slice(0, 5), { ...(counted[5] as object), commands: [] }];
    expect(checked(madeUp).verify(job, def, catalogue)?.message).toMatch(/^run 6 /);

    const other = await campaign(6, REFERENCE);
    expect(checked(other.counted).verify({ ...job, seed: 12 }, def, catalogue)?.message).toMatch(/^run 1 /);

    const renamed = {
      ...catalogue,
      providers: [{ name: 'yours', packageName: ALERTS.packageName, tools: ['get_quote'] }],
    };
    expect(checked(counted).verify(job, def, renamed)?.checker).toBe(MODULE_FORGES_VERDICT);
    expect(checked(counted).verify(job, def, undefined)?.message).toMatch(/no catalogue of the module/);
  }, 120_000);

  it("the shrunk counterexample is the scenario at fast-check's path; another one is forged", async () => {
    const variant = mutantById('dedup-check-then-insert')?.variant ?? REFERENCE;
    const { def, job, counted, final, path } = await campaign(200, variant);
    expect(path).not.toBe('');
    const catalogue = catalogueOf(MODULE, null);
    expect(checked(counted).verify(job, def, catalogue, { scenario: final, path })).toBeNull();
    const lie = checked(counted).verify(job, def, catalogue, { scenario: counted[0], path });
    expect(lie?.message).toMatch(
      /^the counterexample the worker handed over is not the scenario at fast-check's path/,
    );
  }, 120_000);
});
