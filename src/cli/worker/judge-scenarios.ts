/**
 * Narrowing the worker's testimony (issue #31): a campaign's scenarios are a function of its seed,
 * the property and the module's catalogue — its providers' names, packages and tool names, the tools
 * it gives each property, its consumer's package — never of the module's code: the arbitraries read
 * nothing else of a provider (src/fuzz/scenario/arbitraries.ts, consumer.ts). So the judge in the
 * CLI's thread, given that catalogue as data, draws the campaign's scenarios itself with fast-check
 * (the same seed, the same arbitrary, a predicate of its own: no user code runs) and checks that
 * every run the worker handed over is the run the seed makes, in order, and that the shrunk
 * counterexample is the scenario at the path fast-check reported. A worker that hands over the
 * record of another run, a made-up scenario or another counterexample is `module-forges-verdict`.
 *
 * What stays testimony: the catalogue itself (the module's word, as its fixtures are), and that a
 * record is the record of its scenario's run (the trace is made in the module's realm).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Violation } from '../../check/checker.ts';
import { propertySeed, scenarioArbitrary } from '../../fuzz/fuzz.ts';
import type { ProviderFixture } from '../../fuzz/scenario/fixtures.ts';
import type { PropertyDef } from '../../fuzz/suites.ts';
import { withConsumer, withProviders } from '../../harness/subjects.ts';
import type { ConsumerUnderTest } from '../../subjects/subjects.ts';
import type { ConsumerModule } from '../consumer-module.ts';
import type { ProviderModule } from '../provider-module.ts';
import { forgedVerdict } from './forged.ts';
import type { Catalogue, FuzzJob } from './protocol.ts';

/** The catalogue of the loaded modules (in the worker). */
export function catalogueOf(provider: ProviderModule | null, consumer: ConsumerModule | null): Catalogue {
  return {
    ...(provider
      ? {
          providers: provider.providers.map((p) => ({
            name: p.name,
            packageName: p.packageName,
            tools: Object.keys(p.tools),
            pools: p.tools,
            effects: p.effects,
            ...(p.processes !== undefined ? { processes: p.processes } : {}),
          })),
          propertyTools: provider.propertyTools,
        }
      : {}),
    ...(consumer
      ? { consumer: { name: consumer.consumer.name, packageName: consumer.consumer.packageName } }
      : {}),
  };
}

const absent = () => {
  throw new Error("the judge's thread runs no user code");
};

/** `def` as the worker ran it against the catalogue's modules: its shape, from data alone. */
function defFor(def: PropertyDef, catalogue: Catalogue): PropertyDef {
  let d = def;
  if (catalogue.providers) {
    const providers = catalogue.providers.map(
      (p) =>
        ({
          name: String(p.name),
          packageName: String(p.packageName),
          tools: p.pools ?? Object.fromEntries(p.tools.map((t) => [String(t), []])),
          effects: p.effects ?? {},
          ...(p.processes !== undefined ? { processes: p.processes.map(String) } : {}),
          install: absent,
        }) as unknown as ProviderFixture,
    );
    d = withProviders(d, { providers, propertyTools: catalogue.propertyTools ?? {} });
  }
  if (catalogue.consumer) {
    const consumer = {
      ...catalogue.consumer,
      install: absent,
      agent: absent,
    } as unknown as ConsumerUnderTest;
    d = withConsumer(d, consumer);
  }
  return d;
}

const hashOf = (scenario: unknown) => createHash('sha256').update(JSON.stringify(scenario)).digest('hex');

/** The scenarios of a campaign's runs as the judge receives them, checked against the seed's. */
export class ScenarioCheck {
  private readonly hashes: string[] = [];

  /** A counted run's scenario (in the order the worker made them). */
  note(scenario: unknown): void {
    this.hashes.push(hashOf(scenario));
  }

  /**
   * Null when every noted run is the run the seed makes and `final` (the shrunk counterexample,
   * with fast-check's path) is the scenario at its path; else the verdict on the worker.
   */
  verify(
    job: FuzzJob,
    def: PropertyDef,
    catalogue: Catalogue | undefined,
    final?: { readonly scenario: unknown; readonly path: string },
  ): Violation | null {
    if (this.hashes.length === 0 && !final) return null;
    const modules = job.modules.provider !== undefined || job.modules.consumer !== undefined;
    if (!catalogue && modules)
      return forgedVerdict(
        "the worker handed over no catalogue of the module: its runs' scenarios cannot be checked",
      );
    // A fresh arbitrary for each walk: one can keep a campaign's state (the consumer scenarios' hostile
    // cases go round-robin by run index, consumer-reach.ts), so each walk starts where a campaign does.
    const arbitraryOf = () =>
      scenarioArbitrary(defFor(def, catalogue ?? {}), {
        seed: job.seed,
        runs: job.runs,
        tails: job.tails,
        variant: job.variant,
      });
    const arbitrary = arbitraryOf();
    const seed = propertySeed(job.seed, def.id);
    const drawn: string[] = [];
    if (this.hashes.length > 0)
      fc.check(
        fc.property(arbitrary, (s) => {
          drawn.push(hashOf(s));
          return true;
        }),
        { seed, numRuns: this.hashes.length },
      );
    const run = this.hashes.findIndex((h, i) => h !== drawn[i]);
    if (run >= 0)
      return forgedVerdict(
        `run ${run + 1} the worker handed over is not the scenario seed ${job.seed} makes for property ${def.id} ` +
          "and the module's catalogue: the record of another run, or a made-up scenario (drawn again here, in a thread no user code runs in)",
      );
    if (!final || final.path === '') return null;
    // A consumer shape with hostile cases draws them round-robin by run index (consumer-reach.ts): a
    // stateful arbitrary that fast-check's shrinking draws from again, so the shrunk scenario depends on
    // every candidate the worker tried, not on the path alone. Its runs are checked above; its
    // counterexample is the worker's word (docs/verdicts.md).
    if (def.kind === 'consumer' && def.shape.hostileCases.length > 0) return null;
    let atPath: unknown;
    fc.check(
      fc.property(arbitraryOf(), (s) => {
        atPath = s;
        return false;
      }),
      { seed, path: final.path, endOnFailure: true },
    );
    if (hashOf(atPath) === hashOf(final.scenario)) return null;
    return forgedVerdict(
      `the counterexample the worker handed over is not the scenario at fast-check's path ${final.path} (seed ${seed}): another run's record, or a made-up scenario`,
    );
  }
}
