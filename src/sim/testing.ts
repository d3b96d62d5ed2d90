/**
 * Test helpers for simulated apps: manifest builders and tiny providers. Used by the simulation's
 * own tests and by benchmarks; not part of the public API.
 */
import { Bundle } from './bundle.ts';
import { ContentProvider } from './content-provider.ts';
import type { ManifestSpec, PackageSpec, ProviderSpec } from './manifest.ts';
import { certificate } from './signing.ts';

export interface AppSpecOptions {
  readonly authority?: string;
  readonly providerName?: string;
  readonly provider?: Partial<ProviderSpec>;
  readonly manifest?: Partial<ManifestSpec>;
  readonly cert?: string;
}

/** A package that optionally exposes one exported provider. Signed by `cert` (default `<pkg>-key`). */
export function appSpec(packageName: string, options: AppSpecOptions = {}): PackageSpec {
  const providers: ProviderSpec[] = options.authority
    ? [
        {
          name: options.providerName ?? 'Provider',
          authorities: [options.authority],
          exported: true,
          ...options.provider,
        },
      ]
    : [];
  return {
    manifest: {
      packageName,
      targetSdk: 34,
      providers,
      queries: { packages: [] },
      ...options.manifest,
    },
    signing: { signers: [certificate(options.cert ?? `${packageName}-key`)] },
  };
}

/** A client package that can see `visible` packages through `<queries>`. */
export function clientSpec(packageName: string, visible: readonly string[], cert?: string): PackageSpec {
  return appSpec(packageName, {
    manifest: { queries: { packages: [...visible] } },
    ...(cert !== undefined ? { cert } : {}),
  });
}

/** Echoes its extras back, adding `method` and the calling UID it saw at entry. */
export class EchoProvider extends ContentProvider {
  calls = 0;
  override call(_authority: string, method: string, _arg: string | null, extras: Bundle | null): Bundle {
    this.calls++;
    const reply = new Bundle();
    if (extras) reply.putAll(extras);
    reply.putString('method', method);
    reply.putInt('caller_uid', this.context.binder.getCallingUid());
    return reply;
  }
}

/** A provider whose behaviour is a function (for one-off tests). */
export class LambdaProvider extends ContentProvider {
  constructor(
    private readonly handler: (
      self: LambdaProvider,
      method: string,
      arg: string | null,
      extras: Bundle | null,
    ) => Bundle | null | Promise<Bundle | null>,
    private readonly onCreateHook?: (self: LambdaProvider) => void | Promise<void>,
  ) {
    super();
  }
  override onCreate(): void | Promise<void> {
    return this.onCreateHook?.(this);
  }
  override call(_authority: string, method: string, arg: string | null, extras: Bundle | null) {
    return this.handler(this, method, arg, extras);
  }
}
