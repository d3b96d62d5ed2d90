/**
 * Started services, as far as they matter to a process's importance (importance.ts): a minimal
 * `Context.startService` / `startForegroundService` / `stopService` for an app's own services.
 *
 * - A service must be declared in the app's manifest (`services`); an undeclared one is not started
 *   and the call returns false (ContextImpl.startServiceCommon returns a null ComponentName).
 * - A started service keeps its process at SERVICE_ADJ (500), a foreground one at
 *   PERCEPTIBLE_APP_ADJ (200): such a process is not cached, so the freezer leaves it alone and
 *   lmkd kills it only after every cached (and previous) process. It runs until stopService or the
 *   death of its process.
 * - Background execution limits (Android 8, target 26+; ActiveServices.startServiceLocked →
 *   AMS.getAppStartModeLOSP, "Not allowed to start service Intent { … }: app is in background"):
 *   startService from an app in the background throws IllegalStateException. "In the background"
 *   here: its oom_adj is above PERCEPTIBLE_APP_ADJ (its uid's procState is worse than
 *   TRANSIENT_BACKGROUND) — a provider raised by a foreground client, a visible app or one with a
 *   foreground service may; a cached, previous or service-only process may not.
 *   startForegroundService is exempt (that is what it is for on Android 8–11).
 * - Not modelled: the ~60 s grace after an app leaves the foreground (a device lets the uid go
 *   idle only then; here the limit applies at once); Android 12+ restrictions on starting a
 *   foreground service from the background (ForegroundServiceStartNotAllowedException) and the 5 s
 *   startForeground deadline (startForegroundService puts the service in the foreground at once);
 *   Service lifecycle callbacks, START_STICKY restarts, bound services, starting another app's
 *   service.
 */
import { IllegalStateException } from '../core/errors.ts';
import type { Trace } from '../core/trace.ts';
import type { PackageManager } from '../pm/package-manager.ts';
import { PERCEPTIBLE_APP_ADJ } from './importance.ts';
import type { ProcessRecord } from './process.ts';
import type { Standing } from './standing.ts';

/** Android O (API 26): background execution limits on startService. */
const O = 26;

/** What the ServiceManager needs of the world (the World implements it). */
export interface ServiceHost {
  readonly pm: Pick<PackageManager, 'getPackageInfo'>;
  readonly trace: Pick<Trace, 'record'>;
  importance(): Map<ProcessRecord, number>;
}

export class ServiceManager {
  constructor(
    private readonly world: ServiceHost,
    private readonly standing: Pick<Standing, 'startService' | 'stopService'>,
  ) {}

  /** Context.startService / startForegroundService for the caller's own service `name`. */
  start(caller: ProcessRecord, name: string, foreground: boolean): boolean {
    const manifest = this.world.pm.getPackageInfo(caller.packageName)?.manifest;
    const base = { actor: caller.name, service: name, foreground };
    if (!caller.isAlive || !manifest?.services.some((s) => s.name === name)) {
      this.world.trace.record('service.start.failed', { ...base, reason: 'not declared' });
      return false;
    }
    const adj = this.world.importance().get(caller) ?? Number.MAX_SAFE_INTEGER;
    if (!foreground && manifest.targetSdk >= O && adj > PERCEPTIBLE_APP_ADJ) {
      this.world.trace.record('service.start.blocked', { ...base, adj });
      throw new IllegalStateException(
        `Not allowed to start service Intent { cmp=${caller.name}/${name} }: app is in background uid ${caller.uid}`,
      );
    }
    this.standing.startService(caller, name, foreground);
    this.world.trace.record('service.start', base);
    return true;
  }

  /** Context.stopService for the caller's own service `name`; false if it was not running. */
  stop(caller: ProcessRecord, name: string): boolean {
    const stopped = this.standing.stopService(caller, name);
    this.world.trace.record('service.stop', { actor: caller.name, service: name, stopped });
    return stopped;
  }
}
