/**
 * What a process's importance rests on besides the screen (importance.ts): the processes the user
 * launched, the services each process runs, and the live provider connections from clients to
 * providers (provider → client → count). The World keeps one; it asks it for every process's
 * oom_adj and who has a visible window.
 */
import { computeAdjs, hasVisibleWindow, type ScreenState } from './importance.ts';
import type { ProcessRecord } from './process.ts';

export class Standing {
  /** Processes the user launched (spawnIn, launchApp). */
  readonly userLaunched = new Set<ProcessRecord>();
  /** Live provider connections: provider → client → count. */
  private readonly connections = new Map<ProcessRecord, Map<ProcessRecord, number>>();
  /** Started services per process: service name → whether it is in the foreground. */
  private readonly services = new Map<ProcessRecord, Map<string, boolean>>();

  /** A provider connection (a stable or unstable reference) from `client` to `provider`. */
  connect(client: ProcessRecord, provider: ProcessRecord): void {
    let clients = this.connections.get(provider);
    if (!clients) {
      clients = new Map();
      this.connections.set(provider, clients);
    }
    clients.set(client, (clients.get(client) ?? 0) + 1);
  }

  /** Releases a connection made to the provider instance `providerPid` (gone with it if it died). */
  disconnect(client: ProcessRecord, provider: ProcessRecord, providerPid: number): void {
    if (provider.pid !== providerPid || !client.isAlive) return;
    const clients = this.connections.get(provider);
    const n = clients?.get(client) ?? 0;
    if (n <= 1) clients?.delete(client);
    else clients?.set(client, n - 1);
  }

  /** `proc` runs the service `name` (a foreground one stays so until stopped). */
  startService(proc: ProcessRecord, name: string, foreground: boolean): void {
    let running = this.services.get(proc);
    if (!running) {
      running = new Map();
      this.services.set(proc, running);
    }
    running.set(name, foreground || (running.get(name) ?? false));
  }

  /** Stops the service `name` of `proc`; false if it was not running. */
  stopService(proc: ProcessRecord, name: string): boolean {
    return this.services.get(proc)?.delete(name) ?? false;
  }

  /** The strongest kind of service `proc` runs. */
  serviceOf(proc: ProcessRecord): 'foreground' | 'started' | null {
    const running = this.services.get(proc);
    if (!running || running.size === 0) return null;
    return [...running.values()].some((fg) => fg) ? 'foreground' : 'started';
  }

  /** `proc` died: it is no longer launched, its services and its connections either way are gone. */
  forget(proc: ProcessRecord): void {
    this.userLaunched.delete(proc);
    this.services.delete(proc);
    this.connections.delete(proc);
    for (const clients of this.connections.values()) clients.delete(proc);
  }

  /** oom_adj of every live process among `processes`. */
  adjs(processes: readonly ProcessRecord[], screen: ScreenState): Map<ProcessRecord, number> {
    const connections = this.connections;
    return computeAdjs(processes, {
      screen,
      userLaunched: this.userLaunched,
      serviceOf: (proc) => this.serviceOf(proc),
      clientsOf(provider) {
        return connections.get(provider)?.keys() ?? [];
      },
    });
  }

  /** Whether `proc` has a visible window (importance.ts hasVisibleWindow). */
  hasVisibleWindow(proc: ProcessRecord, screen: ScreenState): boolean {
    return hasVisibleWindow(proc, { screen, userLaunched: this.userLaunched });
  }
}
