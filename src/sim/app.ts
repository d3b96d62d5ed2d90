/**
 * What an app package brings to the simulated device: a factory that builds the app's objects in a
 * fresh process (turmoil-style: a restart is a new instance; only what was deliberately persisted —
 * durable storage, files — survives), its ContentProviders by manifest class name, and its Activities.
 *
 * Start order on Android: every ContentProvider's onCreate runs before Application.onCreate
 * (d.a.c Application#onCreate), on the main thread; a provider is usable ("published") only after.
 */
import type { Activity } from './activity.ts';
import type { ContentProvider } from './content-provider.ts';
import type { AppContext } from './context.ts';

export interface App {
  /** ContentProvider instances, keyed by the manifest's provider `name`. */
  readonly providers?: Readonly<Record<string, ContentProvider>>;
  /** Activity constructors, keyed by the manifest's activity `name`; one instance per launch. */
  readonly activities?: Readonly<Record<string, () => Activity>>;
  /** Application.onCreate: runs after every provider's onCreate. */
  onCreate?(): void | Promise<void>;
}

export type AppFactory = (context: AppContext) => App;
