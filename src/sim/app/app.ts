/**
 * What an app package brings to the simulated device: a factory that builds the app's objects in a
 * fresh process (turmoil-style: a restart is a new instance; only what was deliberately persisted —
 * durable storage, files — survives), its ContentProviders by manifest class name, and its Activities.
 *
 * Start order on Android: every ContentProvider's onCreate runs before Application.onCreate
 * (d.a.c Application#onCreate), on the main thread; a provider is usable ("published") only after.
 */

import type { ContentProvider } from '../content/content-provider.ts';
import type { ProcessRecord } from '../process/process.ts';
import type { Activity } from '../ui/activity-component.ts';
import type { ActivityResult } from '../ui/activity-types.ts';
import type { AppContext } from './context.ts';

export interface App {
  /** ContentProvider instances, keyed by the manifest's provider `name`. */
  readonly providers?: Readonly<Record<string, ContentProvider>>;
  /** Activity constructors, keyed by the manifest's activity `name`; one instance per launch. */
  readonly activities?: Readonly<Record<string, () => Activity>>;
  /** Custom Parcelable classes in the app's APK (its class loader); android.* always loads. */
  readonly parcelableClasses?: readonly string[];
  /** Application.onCreate: runs after every provider's onCreate. */
  onCreate?(): void | Promise<void>;
  /**
   * Activity.onActivityResult of the launching activity recreated in a NEW process: a result whose
   * launcher process died meanwhile is delivered here after the system restarts the package
   * (results reaching the launching instance itself resolve its startIntentSenderForResult await).
   */
  onActivityResult?(requestCode: number, result: ActivityResult): void | Promise<void>;
}

export type AppFactory = (context: AppContext) => App;
export type { AppContext };

/** The App running in `proc` (set by the World once the factory ran; null before and after death). */
export function appOf(proc: ProcessRecord): App | null {
  return proc.app as App | null;
}
