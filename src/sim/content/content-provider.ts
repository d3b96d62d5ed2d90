/**
 * android.content.ContentProvider, the part CETP uses: `call(authority, method, arg, extras)`.
 *
 * The framework's Transport.call() validates the authority and invokes call() — no read/write
 * permission or app-op check (ContentProvider.java): the only gate was at acquisition. Inside
 * call(), Binder.getCallingUid() is the caller only until the first await (see binder.ts).
 * getCallingPackage() is verified against the calling UID (SecurityException otherwise) and null
 * outside a call; getCallingPackageUnchecked() and getCallingAttributionTag() are caller-supplied.
 */

import type { AppContext } from '../app/context.ts';
import type { Bundle } from '../binder/bundle.ts';
import { SecurityException, SimUsageError } from '../core/errors.ts';

export interface ProviderInfo {
  readonly name: string;
  readonly authorities: readonly string[];
  readonly packageName: string;
}

export abstract class ContentProvider {
  private attached: { context: AppContext; info: ProviderInfo } | null = null;

  /** @internal — called by the process start sequence before onCreate. */
  attachInfo(context: AppContext, info: ProviderInfo): void {
    if (this.attached) throw new SimUsageError(`provider ${info.name} attached twice`);
    this.attached = { context, info };
  }

  get context(): AppContext {
    if (!this.attached) throw new SimUsageError('ContentProvider used before attachInfo');
    return this.attached.context;
  }

  get providerInfo(): ProviderInfo {
    if (!this.attached) throw new SimUsageError('ContentProvider used before attachInfo');
    return this.attached.info;
  }

  /** Runs on the process's main thread at start, before Application.onCreate. */
  onCreate(): void | Promise<void> {}

  abstract call(
    authority: string,
    method: string,
    arg: string | null,
    extras: Bundle | null,
  ): Bundle | null | Promise<Bundle | null>;

  /** The calling package, verified to belong to the calling UID; null when not in a call. */
  getCallingPackage(): string | null {
    const identity = this.context.binder.getCallingIdentity();
    if (!identity) return null;
    const claimed = identity.packageName;
    if (claimed === null) return null;
    const packages = this.context.packageManager.getPackagesForUid(identity.uid) ?? [];
    if (!packages.includes(claimed)) {
      throw new SecurityException(`Calling uid ${identity.uid} does not own package ${claimed}`);
    }
    return claimed;
  }

  /** The package the caller claims, unverified (API 30). */
  getCallingPackageUnchecked(): string | null {
    return this.context.binder.getCallingIdentity()?.packageName ?? null;
  }

  /** The attribution tag the caller supplied (API 30): caller-controlled. */
  getCallingAttributionTag(): string | null {
    return this.context.binder.getCallingIdentity()?.attributionTag ?? null;
  }
}
