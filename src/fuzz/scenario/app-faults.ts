/**
 * Faults aimed at what a provider app's manifest adds (issue 35 item 8; src/zoo/variants.ts): a
 * provider in its own `android:process` is killed by a fault of its own, apart from the app's main
 * process (its confirmation Activity), in the raw and the consumer-driven scenarios alike.
 */
import type { Fault } from '../../sim/core/faults.ts';
import type { ProviderFixture } from './fixtures.ts';

/**
 * The shape's faults, and for each kill of a provider app the kill of each of its other processes
 * (`ProviderFixture.processes`, its `android:process`): the provider's own process dies while the
 * app's main process (its confirmation Activity) lives on. A shape without such an app is unchanged.
 */
export function faultsOf(shape: {
  readonly faults: readonly Fault[];
  readonly providers: readonly Pick<ProviderFixture, 'packageName' | 'processes'>[];
}): readonly Fault[] {
  const extra = shape.providers.flatMap((p) =>
    shape.faults.some((f) => f.kind === 'kill' && f.process === p.packageName)
      ? (p.processes ?? []).map((process): Fault => ({ kind: 'kill', process }))
      : [],
  );
  return extra.length === 0 ? shape.faults : [...shape.faults, ...extra];
}
