/**
 * Faults and device verbs that act on the whole world (world.ts): applying a scheduled fault, a
 * reboot or power loss, re-signing and reinstalling an app. They reach the world through
 * DeviceHost, what they need of it (the World implements it).
 */
import type { JsonObject } from '../base/json.ts';
import type { AppFactory } from './app/app.ts';
import type { UriGrants } from './content/uri-grants.ts';
import type { VirtualClock } from './core/clock.ts';
import type { Fault, FaultInjector } from './core/faults.ts';
import type { Rng } from './core/rng.ts';
import type { Scheduler } from './core/scheduler.ts';
import type { Trace } from './core/trace.ts';
import type { FdSystem } from './fd/fd.ts';
import type { PackageSpec } from './pm/manifest.ts';
import type { PackageManager } from './pm/package-manager.ts';
import { certificate } from './pm/signing.ts';
import type { DeathCause, ProcessRecord } from './process/process.ts';
import type { DurableStore } from './storage/storage.ts';

export interface DeviceHost {
  readonly trace: Trace;
  readonly scheduler: Pick<Scheduler, 'deepSleep' | 'spawn'>;
  readonly rng: Pick<Rng, 'fork'>;
  readonly clock: Pick<VirtualClock, 'jump' | 'boot'>;
  readonly pm: Pick<PackageManager, 'reboot'>;
  readonly faults: Pick<
    FaultInjector,
    'armLostReply' | 'armFailedTransaction' | 'armSlowStart' | 'runCustom'
  >;
  readonly fds: Pick<FdSystem, 'corruptNextRead' | 'truncateNextRead' | 'onPowerLoss' | 'syncAll'>;
  readonly activities: { onReboot(): void; userLeaves(ms: number): void };
  readonly stores: ReadonlyMap<string, Pick<DurableStore, 'onReboot'>>;
  readonly uriGrants: Pick<UriGrants, 'clear'>;
  allProcesses(): ProcessRecord[];
  killProcess(packageName: string, cause: DeathCause): void;
  registeredApp(
    packageName: string,
  ): { readonly spec: PackageSpec; readonly factory: AppFactory } | undefined;
  install(spec: PackageSpec, factory?: AppFactory): void;
  update(spec: PackageSpec, factory?: AppFactory): void;
  uninstall(packageName: string): void;
  reboot(powerLoss: boolean, bootMs?: number): void;
  resign(packageName: string, certName: string, rotate: boolean): void;
  reinstall(packageName: string): void;
  freezeCached(): void;
  lowMemoryKill(kills: number): void;
}

/** Applies one scheduled fault (recorded in the trace first). */
export function applyDeviceFault(world: DeviceHost, fault: Fault): void {
  world.trace.record('fault', { actor: 'system', fault: { ...fault } as JsonObject });
  switch (fault.kind) {
    case 'kill':
      world.killProcess(fault.process, { kind: 'killed', reason: 'fault' });
      return;
    case 'loseReply':
      world.faults.armLostReply(fault.callee, fault.caller);
      return;
    case 'failTransaction':
      world.faults.armFailedTransaction(fault.caller, fault.callee);
      return;
    case 'clockJump':
      world.clock.jump(fault.ms);
      return;
    case 'deepSleep':
      world.scheduler.deepSleep(fault.ms);
      return;
    case 'userAway':
      world.activities.userLeaves(fault.ms);
      return;
    case 'corruptFd':
      world.fds.corruptNextRead(fault.process ?? null);
      return;
    case 'truncateFd':
      world.fds.truncateNextRead(fault.process ?? null, fault.keepBytes);
      return;
    case 'resign':
      world.resign(fault.package, fault.cert, fault.rotate);
      return;
    case 'reinstall':
      world.reinstall(fault.package);
      return;
    case 'uninstall':
      if (world.registeredApp(fault.package)) world.uninstall(fault.package);
      return;
    case 'slowStart':
      world.faults.armSlowStart(fault.process, fault.ms);
      return;
    case 'reboot':
      world.reboot(false, fault.bootMs ?? 0);
      return;
    case 'powerLoss':
      world.reboot(true);
      return;
    case 'freezeCached':
      world.freezeCached();
      return;
    case 'memoryPressure':
      world.lowMemoryKill(fault.kills ?? 1);
      return;
    case 'custom':
      world.faults.runCustom(fault.name, fault.args ?? {});
      return;
  }
}

/** World.reboot (see there). */
export function rebootDevice(world: DeviceHost, powerLoss: boolean, bootMs = 0): void {
  world.trace.record('device.reboot', { actor: 'system', powerLoss, ...(bootMs > 0 ? { bootMs } : {}) });
  world.activities.onReboot();
  for (const proc of world.allProcesses()) world.killProcess(proc.name, { kind: 'reboot' });
  if (powerLoss) world.fds.onPowerLoss(world.rng.fork('power-loss'));
  else world.fds.syncAll();
  for (const store of world.stores.values()) store.onReboot(powerLoss);
  world.uriGrants.clear();
  world.pm.reboot();
  // The boot takes `bootMs` (nothing of the device runs meanwhile: every pending timer moves on, as
  // in deep sleep); then elapsedRealtime and uptimeMillis restart from 0 (SystemClock: "since boot").
  if (bootMs > 0) world.scheduler.deepSleep(bootMs);
  world.clock.boot();
}

/** World.resign: a key rotation (same UID) or a reinstall under an unrelated key (new UID). */
export function resignApp(world: DeviceHost, packageName: string, certName: string, rotate: boolean): void {
  const entry = world.registeredApp(packageName);
  if (!entry) return;
  const cert = certificate(certName);
  const old = entry.spec.signing;
  if (rotate) {
    const current = old.signers[0];
    if (current?.sha256 === cert.sha256) {
      // "Rotating" to the key that already signs it: an ordinary update under the same key
      // (a lineage cannot list a certificate twice; apksigner refuses such a rotation).
      world.update(entry.spec, entry.factory);
      return;
    }
    const lineage = old.lineage ?? (current ? [{ cert: current }] : []);
    const spec: PackageSpec = {
      ...entry.spec,
      signing: { signers: [cert], lineage: [...lineage, { cert }] },
    };
    world.update(spec, entry.factory);
    return;
  }
  const spec: PackageSpec = { ...entry.spec, signing: { signers: [cert] } };
  world.uninstall(packageName);
  world.install(spec, entry.factory);
}

/** World.reinstall: uninstall, then install the same spec again (a new UID in this boot). */
export function reinstallApp(world: DeviceHost, packageName: string): void {
  const entry = world.registeredApp(packageName);
  if (!entry) return;
  world.uninstall(packageName);
  world.install(entry.spec, entry.factory);
}

/**
 * AMS kills the processes that held a stable reference to a provider whose process died
 * (services/core/java/com/android/server/am/ContentProviderHelper.java `removeDyingProviderLocked`,
 * "depends on provider … in dying proc") — but in system_server, once it handles the death, after
 * the callers' own transactions have already failed: ContentResolver.call catches the
 * DeadObjectException and returns null ("Activity Manager will kill this process shortly anyway"),
 * so a caller runs on with that null until the kill lands. Here the kill is a system task spawned
 * now: the woken callers may run first, as far as the schedule lets them. A caller instance that
 * died or restarted meanwhile is not touched (the kill was for that instance).
 */
export function killDependents(
  world: Pick<DeviceHost, 'killProcess' | 'scheduler'>,
  provider: string,
  clients: readonly ProcessRecord[],
): void {
  if (clients.length === 0) return;
  const doomed = clients.map((client) => ({ client, pid: client.pid }));
  world.scheduler.spawn(
    `system:removeDyingProvider:${provider}`,
    async () => {
      for (const { client, pid } of doomed)
        if (client.isAlive && client.pid === pid)
          world.killProcess(client.name, { kind: 'dependency', provider });
    },
    { owner: null },
  );
}
