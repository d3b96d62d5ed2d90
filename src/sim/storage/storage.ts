/**
 * Durable per-package storage with SQLite's guarantees (sqlite.org "atomic commit"; Android's WAL):
 * a transaction is all-or-nothing across a process kill and a power loss, writers are serialised (BEGIN IMMEDIATE),
 * and reads outside a transaction see the last committed state. Every operation is a scheduling
 * point, so check-then-act races between separate operations are reachable by the scheduler, while
 * work inside one transaction is atomic. What was not committed when the process dies is lost.
 *
 * Values are JSON, copied and deep-frozen on write: a reader gets the stored (immutable) value, so
 * nothing written later through the caller's objects can change what was committed, and an attempt
 * to mutate a read value throws instead of silently diverging from the store.
 */

import type { JsonObject, JsonValue } from '../../base/json.ts';
import { SimUsageError } from '../core/errors.ts';
import type { Scheduler, Waiter } from '../core/scheduler.ts';
import type { Trace } from '../core/trace.ts';
import type { BusinessEffect, GroundTruth } from '../ground-truth.ts';
import type { ProcessRecord } from '../process/process.ts';

/**
 * The storage class an app chooses (issue 35 item 8; FIDELITY.md row 35.8b): WAL with
 * `synchronous=FULL` (AOSP's default `db_wal_sync_mode`, core/res/res/values/config.xml: every commit
 * fsyncs the WAL) or `NORMAL` (SQLiteDatabase.OpenParams.Builder#setSynchronousMode, API 30; or
 * `PRAGMA synchronous=NORMAL`): the WAL is synced only at a checkpoint, so a commit survives a
 * process kill (the WAL is in the page cache) and a clean reboot (the kernel syncs at shutdown) but
 * a power loss takes back every commit since the last checkpoint (sqlite.org/pragma.html
 * #pragma_synchronous: "a transaction committed in WAL mode with synchronous=NORMAL might roll back
 * following a power loss or system crash"). Checkpoints: `checkpoint()` (PRAGMA wal_checkpoint), the
 * automatic one every WAL_AUTOCHECKPOINT_COMMITS commits (SQLite's is 1000 WAL pages; a small
 * commit is a page or two, so modelled as 1000 commits), a clean reboot.
 */
export type SynchronousMode = 'FULL' | 'NORMAL';
/** SQLite's wal_autocheckpoint (1000 pages), counted in commits here (see SynchronousMode). */
export const WAL_AUTOCHECKPOINT_COMMITS = 1000;

/** A NORMAL commit not yet synced: its trace seq and the before-image of each key it wrote. */
interface UnsyncedCommit {
  readonly seq: number;
  readonly before: readonly (readonly [table: string, key: string, value: JsonValue | undefined])[];
}

/** What a durable store needs of the world, passed in (the World implements it). */
export interface StorageHost {
  readonly truth: Pick<GroundTruth, 'committed' | 'rolledBack' | 'lost'>;
  readonly trace: Trace;
  readonly scheduler: Pick<Scheduler, 'yield' | 'waiter' | 'currentTask'>;
  currentProcess(): ProcessRecord | null;
}

type Table = Map<string, JsonValue>;

/** A deep, frozen copy of a JSON value (what the store keeps and hands out). */
function frozenCopy(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = new Array<JsonValue>(value.length);
    for (let i = 0; i < value.length; i++) items[i] = frozenCopy(value[i] as JsonValue);
    return Object.freeze(items) as JsonValue;
  }
  const out: { [k: string]: JsonValue } = {};
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const v = value[k];
    if (v !== undefined) out[k] = frozenCopy(v);
  }
  return Object.freeze(out);
}

export interface StoreTransaction {
  get(table: string, key: string): Promise<JsonValue | undefined>;
  put(table: string, key: string, value: JsonValue): Promise<void>;
  delete(table: string, key: string): Promise<void>;
  keys(table: string): Promise<string[]>;
  /**
   * Attaches a note to this transaction's commit event in the trace (e.g. "this commit is the
   * business effect of request R"): recorded exactly when, and only if, the transaction commits.
   */
  annotate(note: JsonObject): void;
  /**
   * A transaction object that stands for another (an app's wrapper that buffers writes and commits
   * them elsewhere) takes the business effects declared on it (AppContext.declareEffect) and must
   * declare them on the transaction that really commits them. Real transactions leave it undefined.
   */
  takeEffect?(effect: BusinessEffect): void;
}

/**
 * What a task that waits for the write lock its own open transaction holds is told (the wait's
 * reason, which a liveness report shows): it never gets it. On a device a write on the thread that
 * holds a SQLite transaction joins it; here the store's API is the transaction object.
 */
export const OWN_LOCK_WAIT = 'held by its own open transaction';

class OpenTransaction implements StoreTransaction {
  readonly writes = new Map<string, Map<string, JsonValue | null>>();
  readonly notes: JsonObject[] = [];
  active = true;
  constructor(
    private readonly store: DurableStore,
    readonly owner: ProcessRecord,
    readonly label: string,
    /** The scheduler task that opened it (null outside a task). */
    readonly task: object | null,
  ) {}

  async get(table: string, key: string): Promise<JsonValue | undefined> {
    await this.store.point(this);
    const pending = this.writes.get(table)?.get(key);
    if (pending !== undefined) return pending === null ? undefined : pending;
    return this.store.readCommitted(table, key);
  }

  async put(table: string, key: string, value: JsonValue): Promise<void> {
    await this.store.point(this);
    this.tableWrites(table).set(key, frozenCopy(value));
  }

  async delete(table: string, key: string): Promise<void> {
    await this.store.point(this);
    this.tableWrites(table).set(key, null);
  }

  async keys(table: string): Promise<string[]> {
    await this.store.point(this);
    const out = new Set(this.store.committedKeys(table));
    for (const [k, v] of this.writes.get(table) ?? []) {
      if (v === null) out.delete(k);
      else out.add(k);
    }
    return [...out];
  }

  annotate(note: JsonObject): void {
    this.notes.push(note);
  }

  private tableWrites(table: string): Map<string, JsonValue | null> {
    let t = this.writes.get(table);
    if (!t) {
      t = new Map();
      this.writes.set(table, t);
    }
    return t;
  }
}

export class DurableStore {
  private readonly tables = new Map<string, Table>();
  private holder: OpenTransaction | null = null;
  /** The process that holds, or has been handed, the write lock. */
  private lockOwner: ProcessRecord | null = null;
  private readonly lockQueue: { waiter: Waiter<void>; owner: ProcessRecord }[] = [];
  private commits = 0;
  private mode: SynchronousMode = 'FULL';
  private readonly unsynced: UnsyncedCommit[] = [];

  constructor(
    private readonly world: StorageHost,
    readonly packageName: string,
  ) {}

  /** A committed read outside any transaction (a scheduling point). */
  async get(table: string, key: string): Promise<JsonValue | undefined> {
    await this.world.scheduler.yield();
    const value = this.readCommitted(table, key);
    this.world.trace.record('store.read', {
      actor: this.packageName,
      table,
      key,
      found: value !== undefined,
    });
    return value;
  }

  /** Committed keys of a table, in insertion order (a scheduling point). */
  async keys(table: string): Promise<string[]> {
    await this.world.scheduler.yield();
    return this.committedKeys(table);
  }

  /** A single-write transaction (a scheduling point). */
  async put(table: string, key: string, value: JsonValue): Promise<void> {
    await this.transaction(`put ${table}/${key}`, (tx) => tx.put(table, key, value));
  }

  /**
   * Runs `body` as one write transaction: waits for the write lock, applies every write atomically
   * when `body` resolves, discards them if it throws or the process dies first.
   */
  async transaction<T>(label: string, body: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const owner = this.world.currentProcess();
    if (!owner)
      throw new SimUsageError(`storage of ${this.packageName}: transactions run inside the app's process`);
    await this.acquire(owner);
    const tx = new OpenTransaction(this, owner, label, this.world.scheduler.currentTask);
    this.holder = tx;
    let result: T;
    try {
      result = await body(tx);
    } catch (error) {
      this.endTransaction(tx, false);
      throw error;
    }
    await this.point(tx);
    this.endTransaction(tx, true);
    return result;
  }

  /** Committed value without a scheduling point (checkers, inspection after a run). */
  peek(table: string, key: string): JsonValue | undefined {
    return this.readCommitted(table, key);
  }

  /** Committed table contents without a scheduling point (checkers, inspection after a run). */
  snapshot(table: string): Map<string, JsonValue> {
    const out = new Map<string, JsonValue>();
    for (const [k, v] of this.tables.get(table) ?? []) out.set(k, v);
    return out;
  }

  get commitCount(): number {
    return this.commits;
  }

  /** The storage class the app chose (see SynchronousMode); FULL until it chooses. */
  get synchronousMode(): SynchronousMode {
    return this.mode;
  }

  /** Chooses the storage class (the app's open parameters); switching to FULL syncs what is pending. */
  setSynchronousMode(mode: SynchronousMode): void {
    this.mode = mode;
    if (mode === 'FULL') this.checkpoint();
  }

  /** PRAGMA wal_checkpoint: every commit so far is synced (survives a power loss). */
  checkpoint(): void {
    this.unsynced.length = 0;
  }

  /**
   * The device rebooted (world-faults.ts rebootDevice): a clean reboot syncs the WAL; a power loss
   * takes back, newest first, every NORMAL commit never synced, and the ground truth with it.
   */
  onReboot(powerLoss: boolean): void {
    if (!powerLoss || this.unsynced.length === 0) {
      this.checkpoint();
      return;
    }
    const lost = this.unsynced.splice(0).reverse();
    for (const commit of lost)
      for (const [table, key, value] of commit.before) {
        if (value === undefined) this.tables.get(table)?.delete(key);
        else this.tableOf(table).set(key, value);
      }
    const seqs = lost.map((c) => c.seq).reverse();
    this.world.trace.record('store.lost', { actor: this.packageName, commits: seqs.length, seqs });
    this.world.truth.lost(new Set(seqs));
  }

  /** The owning process died: its open transaction is discarded and its lock released. */
  onProcessDied(proc: ProcessRecord): void {
    for (let i = this.lockQueue.length - 1; i >= 0; i--) {
      if (this.lockQueue[i]?.owner === proc) this.lockQueue.splice(i, 1);
    }
    if (this.lockOwner === proc) {
      if (this.holder?.active) {
        this.world.trace.record('store.rollback', {
          actor: this.packageName,
          tx: this.holder.label,
          reason: 'process died',
        });
        this.holder.active = false;
        this.world.truth.rolledBack(this.holder);
      }
      this.releaseLock();
    }
  }

  wipe(): void {
    this.tables.clear();
    this.unsynced.length = 0;
  }

  /** @internal */
  readCommitted(table: string, key: string): JsonValue | undefined {
    return this.tables.get(table)?.get(key);
  }

  /** @internal */
  committedKeys(table: string): string[] {
    return [...(this.tables.get(table)?.keys() ?? [])];
  }

  /** @internal — a scheduling point inside a transaction. */
  point(tx: OpenTransaction): Promise<void> {
    if (!tx.active) return Promise.reject(new SimUsageError(`transaction "${tx.label}" is no longer active`));
    return this.world.scheduler.yield();
  }

  private async acquire(owner: ProcessRecord): Promise<void> {
    if (this.lockOwner === null) {
      this.lockOwner = owner;
      await this.world.scheduler.yield();
      return;
    }
    const task = this.world.scheduler.currentTask;
    const own = this.holder?.active && task !== null && this.holder.task === task ? this.holder : null;
    const waiter = this.world.scheduler.waiter<void>(
      own
        ? `write lock of ${this.packageName} storage, ${OWN_LOCK_WAIT} "${own.label}"`
        : `write lock of ${this.packageName} storage`,
    );
    this.lockQueue.push({ waiter, owner });
    await waiter.wait(); // woken only by a hand-off: lockOwner is already ours
  }

  private endTransaction(tx: OpenTransaction, commit: boolean): void {
    if (!tx.active) return;
    tx.active = false;
    if (commit) {
      let writes = 0;
      const before: [string, string, JsonValue | undefined][] = [];
      for (const [name, entries] of tx.writes) {
        const table = this.tableOf(name);
        for (const [k, v] of entries) {
          writes++;
          if (this.mode === 'NORMAL') before.push([name, k, table.get(k)]);
          if (v === null) table.delete(k);
          else table.set(k, v);
        }
      }
      this.commits++;
      const event = this.world.trace.record(
        'store.commit',
        tx.notes.length > 0
          ? { actor: this.packageName, tx: tx.label, writes, notes: tx.notes }
          : { actor: this.packageName, tx: tx.label, writes },
      );
      this.world.truth.committed(tx, this.packageName, tx.owner, tx.label, event.seq, tx.writes);
      if (this.mode === 'NORMAL') this.unsynced.push({ seq: event.seq, before });
      if (this.unsynced.length >= WAL_AUTOCHECKPOINT_COMMITS) this.checkpoint();
    } else {
      this.world.trace.record('store.rollback', { actor: this.packageName, tx: tx.label, reason: 'aborted' });
      this.world.truth.rolledBack(tx);
    }
    this.releaseLock();
  }

  private tableOf(name: string): Table {
    let table = this.tables.get(name);
    if (!table) {
      table = new Map();
      this.tables.set(name, table);
    }
    return table;
  }

  /** Hands the write lock to the next waiter (FIFO), so no newcomer can jump the queue. */
  private releaseLock(): void {
    this.holder = null;
    const next = this.lockQueue.shift();
    this.lockOwner = next ? next.owner : null;
    next?.waiter.wake(undefined);
  }
}
