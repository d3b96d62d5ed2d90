/**
 * The request journal, in the app's durable storage (spec §4.1, §6: 4.1-04, 4.1-15, 4.1-16, 6-08).
 *
 * A write (effect ≠ read) is journaled — request_id and the exact args string — in one committed
 * put BEFORE its first attempt. If the process dies, the next one finds the entry on start and
 * re-sends the same request_id with byte-identical args, so the provider's de-duplication answers
 * with the one true outcome instead of executing twice. An entry stays open until the outcome is
 * known; "unknown" keeps it open. Resume tokens are never journaled: they belong to the
 * resolution this process launched, and a new process asks again without one.
 */
import type { AppContext, JsonValue } from '../../src/index.ts';

const TABLE = 'scratch.journal';

export interface Entry {
  readonly requestId: string;
  readonly packageName: string;
  readonly tool: string;
  readonly args: string;
  readonly open: boolean;
  readonly createdAtMs: number;
}

export class Journal {
  /** Entries being executed by this process right now (never resumed twice alongside). */
  private readonly running = new Set<string>();

  constructor(private readonly context: AppContext) {}

  async begin(entry: Omit<Entry, 'open' | 'createdAtMs'>): Promise<void> {
    this.running.add(entry.requestId);
    const stored: Entry = { ...entry, open: true, createdAtMs: this.context.currentTimeMillis() };
    await this.context.storage.put(TABLE, entry.requestId, stored as unknown as JsonValue);
  }

  /** The execution ended in this process; `known`: its outcome is settled (close the entry). */
  async end(requestId: string, known: boolean): Promise<void> {
    this.running.delete(requestId);
    if (!known) return;
    const entry = (await this.context.storage.get(TABLE, requestId)) as Entry | undefined;
    if (entry)
      await this.context.storage.put(TABLE, requestId, { ...entry, open: false } as unknown as JsonValue);
  }

  /** Open entries no task of this process is executing, oldest first; marks them running. */
  async takeOpen(): Promise<Entry[]> {
    const out: Entry[] = [];
    for (const key of await this.context.storage.keys(TABLE)) {
      const entry = (await this.context.storage.get(TABLE, key)) as Entry | undefined;
      if (entry?.open && !this.running.has(key)) out.push(entry);
    }
    for (const e of out) this.running.add(e.requestId);
    return out.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.requestId < b.requestId ? -1 : 1));
  }
}
