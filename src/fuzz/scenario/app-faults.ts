/**
 * Faults aimed at what a provider app's manifest adds (issue 35 item 8; src/zoo/variants.ts): a
 * provider in its own `android:process` is killed by a fault of its own, apart from the app's main
 * process (its confirmation Activity), in the raw and the consumer-driven scenarios alike.
 */
import type { Fault } from '../../sim/core/faults.ts';
import type { ProviderFixture } from './fixtures.ts';

type Shape = {
  readonly faults: readonly Fault[];
  readonly providers: readonly Pick<ProviderFixture, 'packageName' | 'processes'>[];
};

/**
 * The shape's faults, for an app with other processes (`ProviderFixture.processes`, its provider's
 * `android:process`): a kill or a slow start of the app becomes that of each such process — the
 * provider's own process dies (or starts slowly) while the app's main process, with its
 * confirmation Activity, lives on. The list keeps its length, so a campaign draws the same faults
 * at the same steps as against the app without the variant, each now aimed at the provider's
 * process (the main process still dies of memory pressure and reboots). A slow start is there to
 * make a provider miss its publish timeout (suite-kit.ts), and the main process publishes nothing
 * (the sim gives up any slow start at 10 s, a process without providers too, where AMS posts the
 * publish timeout only for a process with providers to publish: a slow main process would kill the
 * confirmation's process, which no device does; FIDELITY.md row 35.8d). A shape without such an app
 * is unchanged.
 */
export function faultsOf(shape: Shape): readonly Fault[] {
  const processesOf = new Map(
    shape.providers
      .filter((p) => (p.processes ?? []).length > 0)
      .map((p) => [p.packageName, p.processes ?? []]),
  );
  if (processesOf.size === 0) return shape.faults;
  return shape.faults.flatMap((f): Fault[] => {
    const own = f.kind === 'kill' || f.kind === 'slowStart' ? processesOf.get(f.process) : undefined;
    return own === undefined ? [f] : own.map((process) => ({ ...f, process }));
  });
}
