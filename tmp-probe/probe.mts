import { fuzzProvider } from '../src/harness/index.ts';
import { ALERTS } from '../properties/scenario/fixtures.ts';
for (const seed of [5, 1, 2, 3, 4, 6, 7]) {
  const r = await fuzzProvider(
    { ...ALERTS, install: (world, variant) => ALERTS.install(world, { ...variant, providerBugs: ['dedup-ignores-args'] }) },
    { property: 'idempotency', seed, runs: 300, replayDir: null },
  );
  console.log(seed, r.properties[0]?.status, r.properties[0]?.runs);
}
