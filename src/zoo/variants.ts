/**
 * Manifest variants of a generated app (issue 35, FIDELITY.md row 35.8c "fuzzer reach"): what a
 * user's AndroidManifest.xml may say beyond one exported provider in one process of one user.
 *
 * - `process`: the CETP provider runs in its own `android:process=":cetp"` (`<package>:cetp`): the
 *   confirmation Activity stays in the main process, so killing one leaves the other. The fixture
 *   names that process (`ProviderFixture.processes`), so the fuzzer's kill faults aimed at the app
 *   kill it too (src/fuzz/scenario/arbitraries.ts), also while a confirmation is up.
 * - `guard`: the provider is guarded by a signature permission of the app (no other app holds it),
 *   declares a `<path-permission>` (another signature permission: the acquisition gate walks it and
 *   refuses), and `android:grantUriPermissions="true"`; the app grants a URI under its authority to
 *   every client app (`Context.grantUriPermission` by the provider's UID — as when the user shares
 *   an item with that app), when the client is installed and again after each boot (grants are not
 *   persisted). Every scenario caller is then a *grantee without the provider permission*: it
 *   acquires through the grant alone, and `call()` then reaches every CETP method, so CETP's
 *   per-call checks (§7: the caller's identity, its granted scopes, its sessions and tokens) are all
 *   that stands between it and the app's data. The mistake `trusts-permission-gate` relies on the
 *   gate instead (mistakes-state.ts).
 * - `secondUser`: the package is installed for user 10 too (`installExistingPackageAsUser`): a second
 *   UID, process and data directory; the scenario's callers (user 0) reach user 0's instance.
 *
 * Derived from a hash of (seed, index), not drawn by the description's arbitrary, so every app of a
 * seed keeps the description it had before the variants (generate.ts).
 */
import { createHash } from 'node:crypto';
import type { DefinedProvider, ProviderFixture, World } from '../index.ts';
import type { PackageSpec, ProviderSpec } from '../sim/pm/manifest.ts';
import type { InstalledPackage } from '../sim/pm/types.ts';

export interface ManifestVariant {
  readonly process: boolean;
  readonly guard: boolean;
  readonly secondUser: boolean;
}

export const NO_VARIANT: ManifestVariant = Object.freeze({ process: false, guard: false, secondUser: false });

/** The provider's own process, as `android:process` says it. */
export const PROVIDER_PROCESS = ':cetp';
export const SECOND_USER = 10;

/** The variants of app `index` of the zoo seeded `seed` (about half the apps each; independent). */
export function manifestVariantOf(seed: number, index: number): ManifestVariant {
  const h = createHash('sha256').update(`zoo/${seed}/${index}/manifest`).digest();
  return { process: (h[0] ?? 0) < 128, guard: (h[1] ?? 0) < 128, secondUser: (h[2] ?? 0) < 112 };
}

export function isPlain(v: ManifestVariant): boolean {
  return !v.process && !v.guard && !v.secondUser;
}

/** The permissions of a guarded app: the provider's, and its path permission's. */
export function guardPermissions(packageName: string) {
  return { provider: `${packageName}.permission.TOOLS`, path: `${packageName}.permission.EXPORT` };
}

/** The package with the variant's manifest: the provider's process, permission, path permission, grants. */
export function variantPackage(spec: PackageSpec, v: ManifestVariant): PackageSpec {
  const pkg = spec.manifest.packageName;
  const perms = guardPermissions(pkg);
  const provider = (p: ProviderSpec): ProviderSpec => ({
    ...p,
    ...(v.process ? { process: PROVIDER_PROCESS } : {}),
    ...(v.guard
      ? {
          permission: perms.provider,
          pathPermissions: [{ pathPrefix: '/export', permission: perms.path }],
          grantUriPermissions: true,
        }
      : {}),
  });
  return {
    ...spec,
    manifest: {
      ...spec.manifest,
      providers: (spec.manifest.providers ?? []).map(provider),
      ...(v.guard
        ? {
            permissions: [
              ...(spec.manifest.permissions ?? []),
              { name: perms.provider, protectionLevel: 'signature' as const },
              { name: perms.path, protectionLevel: 'signature' as const },
            ],
          }
        : {}),
    },
  };
}

/** Whether `pkg` is a client app the guarded app shares a URI with (one that looks for tool providers). */
function isClient(pkg: InstalledPackage, owner: string): boolean {
  return pkg.packageName !== owner && (pkg.manifest.queries?.intents ?? []).length > 0;
}

/**
 * The guarded app grants `content://<authority>/items` to every client app, as the app's own UID
 * (the grant is traced as `uri.grant`, which the frequency labels read: src/check/app-labels.ts).
 */
function grantClients(world: World, packageName: string, authority: string): void {
  const grantTo = (pkg: InstalledPackage) => {
    const owner = world.pm.getPackageInfo(packageName);
    const provider = world.pm.providerForAuthority(authority);
    if (!owner || !provider || !isClient(pkg, packageName)) return;
    const uri = `content://${authority}/items`;
    world.uriGrants.grant(
      provider,
      owner.uid,
      { packageName: pkg.packageName, uid: pkg.uid },
      uri,
      0x1 | 0x2,
    );
    world.trace.record('uri.grant', { actor: packageName, to: pkg.packageName, uid: pkg.uid, uri });
  };
  world.pm.addListener({
    onPackageAdded: grantTo,
    onPackageUpdated: grantTo,
    onReboot: () => {
      for (const pkg of world.pm.getInstalledPackages()) grantTo(pkg);
    },
  });
}

/** The fixture's install with the variant: the package as `variantPackage` says, the grants, user 10. */
export function withVariant(
  fixture: ProviderFixture,
  defined: DefinedProvider,
  v: ManifestVariant,
): ProviderFixture {
  if (isPlain(v)) return fixture;
  return {
    ...fixture,
    ...(v.process ? { processes: [`${fixture.packageName}${PROVIDER_PROCESS}`] } : {}),
    install: (world, variant) => {
      // As DefinedProvider.install does, with the variant's manifest.
      world.install(variantPackage(defined.package(), v), defined.app(defined.optionsFor(variant)));
      if (v.secondUser) world.pm.installExistingPackageAsUser(fixture.packageName, SECOND_USER);
      if (v.guard) grantClients(world, fixture.packageName, fixture.authority);
    },
  };
}
