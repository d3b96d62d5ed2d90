/**
 * The request journal, in the app's durable storage (spec §4.1, §6: 4.1-04, 4.1-15, 4.1-16, 6-08).
 *
 * A write (effect ≠ read) is journaled — request_id and the exact args string — in one committed
 * put BEFORE its first attempt. If the process dies, the next one finds the entry on start and
 * re-sends the same request_id with byte-identical args, so the provider's de-duplication answers
 * with the one true outcome instead of executing twice. An entry stays open until the outcome is
 * known; "unknown" keeps it open. Resume tokens are never journaled. The layout is the generated
 * policy's: the table, the key (the request_id, or the package and the request_id), and whether a
 * settled entry is marked closed or deleted; open entries resume oldest or newest first.
 */
import type { AppContext, JsonValue } from '../../../index.ts';

/** The journal's layout (a generated policy draws it): its table, its keys, a settled entry's fate. */
export interface JournalLayout {
  readonly table: string;
  readonly key: 'request' | 'package-request';
  readonly settled: 'mark' | 'delete';
  readonly resumeOrder: 'oldest' | 'newest';
}

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
  /** The storage key of each entry this process began or took. */
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly context: AppContext,
    private readonly layout: JournalLayout,
  ) {}

  private keyOf(entry: Pick<Entry, 'requestId' | 'packageName'>): string {
    return this.layout.key === 'request' ? entry.requestId : `${entry.packageName}/${entry.requestId}`;
  }

  async begin(entry: Omit<Entry, 'open' | 'createdAtMs'>): Promise<void> {
    this.running.add(entry.requestId);
    const key = this.keyOf(entry);
    this.keys.set(entry.requestId, key);
    const stored: Entry = { ...entry, open: true, createdAtMs: this.context.currentTimeMillis() };
    await this.context.storage.put(this.layout.table, key, stored as unknown as JsonValue);
  }

  /** The execution ended in this process; `known`: its outcome is settled (close the entry). */
  async end(requestId: string, known: boolean): Promise<void> {
    this.running.delete(requestId);
    const key = this.keys.get(requestId);
    if (!known || key === undefined) return;
    this.keys.delete(requestId);
    if (this.layout.settled === 'delete') {
      await this.context.storage.transaction(`journal settle ${key}`, (tx) =>
        tx.delete(this.layout.table, key),
      );
      return;
    }
    const entry = (await this.context.storage.get(this.layout.table, key)) as Entry | undefined;
    if (entry)
      await this.context.storage.put(this.layout.table, key, {
        ...entry,
        open: false,
      } as unknown as JsonValue);
  }

  /** Open entries no task of this process is executing, in the policy's order; marks them running. */
  async takeOpen(): Promise<Entry[]> {
    const out: Entry[] = [];
    for (const key of await this.context.storage.keys(this.layout.table)) {
      const entry = (await this.context.storage.get(this.layout.table, key)) as Entry | undefined;
      if (entry?.open && !this.running.has(entry.requestId)) {
        out.push(entry);
        this.keys.set(entry.requestId, key);
      }
    }
    for (const e of out) this.running.add(e.requestId);
    const sign = this.layout.resumeOrder === 'oldest' ? 1 : -1;
    return out.sort((a, b) => sign * (a.createdAtMs - b.createdAtMs) || (a.requestId < b.requestId ? -1 : 1));
  }
}
