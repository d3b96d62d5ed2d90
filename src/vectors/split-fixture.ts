/**
 * A fixture whose provider runs in a process of its own (`android:process`, e.g. ":cetp"): the same
 * app, its provider declaration given `process`. For tests and device-team experiments with the
 * `kill` step's `process` target (kill-target.ts); the package, authority and tools are the fixture's.
 */
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import type { PackageSpec } from '../sim/pm/manifest.ts';
import type { World } from '../sim/world.ts';

export function withProviderProcess(fixture: ProviderFixture, process: string): ProviderFixture {
  const split = (spec: PackageSpec): PackageSpec => {
    const providers = spec.manifest.providers?.map((p) => ({ ...p, process }));
    return { ...spec, manifest: { ...spec.manifest, ...(providers ? { providers } : {}) } };
  };
  return {
    ...fixture,
    install(world, variant) {
      const installing = new Proxy(world, {
        get(target, key, receiver) {
          if (key !== 'install') return Reflect.get(target, key, receiver);
          return (spec: PackageSpec, factory: Parameters<World['install']>[1]) =>
            target.install(split(spec), factory);
        },
      });
      fixture.install(installing, variant);
    },
  };
}
