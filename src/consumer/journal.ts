/**
 * The consumer's execution journal, in its own durable storage (spec §4.1, §6: CETP-4.1-04,
 * 4.1-15, 4.1-16, 6-08). A logical execution of a tool with effect ≠ read is written — with its
 * request_id and its exact args string — BEFORE the first attempt is sent, in one committed
 * transaction. If the consumer process dies after that, a new consumer task finds the entry and
 * resumes the same logical execution with the same request_id and byte-identical args, so the
 * provider's de-duplication answers with the one true outcome instead of executing twice.
 *
 * Entries stay `pending` until the execution reaches an outcome the consumer is sure of; an
 * execution whose outcome is unknown (retries exhausted) stays pending, to be queried again.
 */

import type { JsonValue } from '../base/json.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { ConsumerParts } from './parts.ts';

export const JOURNAL_TABLE = 'cetp.consumer.executions';

export interface JournalEntry {
  readonly executionId: string;
  readonly packageName: string;
  readonly providerId: string;
  readonly tool: string;
  /** null only under the planted bug 'consumer-forgets-request-id-on-restart'. */
  readonly requestId: string | null;
  /** The exact args string: re-sent byte for byte (NOTES 6). */
  readonly args: string;
  readonly effect: string;
  readonly state: 'pending' | 'done';
  readonly operationId: string | null;
  readonly cancelRequested: boolean;
  readonly createdAtMs: number;
  readonly outcome: string | null;
}

export class ExecutionJournal {
  /** Executions running in this process right now (never resumed a second time alongside). */
  private readonly active = new Set<string>();

  constructor(
    private readonly context: AppContext,
    private readonly parts: ConsumerParts,
  ) {}

  /** Persists a new execution; resolves once the entry is committed. */
  async begin(
    entry: Omit<JournalEntry, 'state' | 'operationId' | 'cancelRequested' | 'outcome'>,
  ): Promise<void> {
    const stored: JournalEntry = Object.assign({}, entry, {
      requestId: this.parts.journaledRequestId(entry.requestId),
      state: 'pending' as const,
      operationId: null,
      cancelRequested: false,
      outcome: null,
    });
    await this.context.storage.put(JOURNAL_TABLE, entry.executionId, stored as unknown as JsonValue);
  }

  /** Marks an execution as running in this process (until `release`). */
  hold(executionId: string): void {
    this.active.add(executionId);
  }

  release(executionId: string): void {
    this.active.delete(executionId);
  }

  async update(executionId: string, change: Partial<Omit<JournalEntry, 'executionId'>>): Promise<void> {
    await this.context.storage.transaction(`journal ${executionId}`, async (tx) => {
      const current = (await tx.get(JOURNAL_TABLE, executionId)) as JournalEntry | undefined;
      if (!current) return;
      await tx.put(JOURNAL_TABLE, executionId, Object.assign({}, current, change) as unknown as JsonValue);
    });
  }

  async get(executionId: string): Promise<JournalEntry | undefined> {
    return (await this.context.storage.get(JOURNAL_TABLE, executionId)) as JournalEntry | undefined;
  }

  /** Executions not yet known to have ended (and not running in this process), oldest first. */
  async pending(): Promise<JournalEntry[]> {
    const out: JournalEntry[] = [];
    for (const key of await this.context.storage.keys(JOURNAL_TABLE)) {
      const entry = await this.get(key);
      if (entry?.state === 'pending' && !this.active.has(entry.executionId)) out.push(entry);
    }
    return out.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.executionId < b.executionId ? -1 : 1));
  }
}
