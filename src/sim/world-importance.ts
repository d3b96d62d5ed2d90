/**
 * What a process's importance rests on besides the screen (importance.ts): the processes the user
 * launched, and the live provider connections from clients to providers (provider → client → count).
 * The World keeps one; it asks it for every process's oom_adj and who has a visible window.
 */
import { computeAdjs, hasVisibleWindow } from './importance.ts';
import type { ProcessRecord } from './process.ts';

export class Standing {
  /** Processes the user launched (spawnIn, launchApp). */
  readonly userLaunched = new Set<ProcessRecord>();
  /** Live provider connections: provider → client → count. */
  private readonly connections = new Map<ProcessRecord, Map<ProcessRecord, number>>();

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

  /** `proc` died: it is no longer launched, and its connections either way are gone. */
  forget(proc: ProcessRecord): void {
    this.userLaunched.delete(proc);
    this.connections.delete(proc);
    for (const clients of this.connections.values()) clients.delete(proc);
  }

  /** oom_adj of every live process among `processes`. */
  adjs(
    processes: readonly ProcessRecord[],
    onScreen: ReadonlySet<ProcessRecord>,
  ): Map<ProcessRecord, number> {
    const connections = this.connections;
    return computeAdjs(processes, {
      onScreen,
      userLaunched: this.userLaunched,
      clientsOf(provider) {
        return connections.get(provider)?.keys() ?? [];
      },
    });
  }

  /** Whether `proc` has the screen (importance.ts hasVisibleWindow). */
  hasVisibleWindow(proc: ProcessRecord, onScreen: ReadonlySet<ProcessRecord>): boolean {
    return hasVisibleWindow(proc, { onScreen, userLaunched: this.userLaunched });
  }
}
