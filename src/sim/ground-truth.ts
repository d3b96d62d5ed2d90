/**
 * Ground truth: what happened in the simulated world, recorded by the world itself — never by the
 * implementation under test — for the oracles to judge from (docs/oracles.md).
 *
 * - screens: every screen an Activity showed (package, activity, process instance, title, lines)
 *   and the user's actual answer on it, and whether that answer reached the Activity;
 * - the wire: every ContentProvider.call with its caller uid/pid/package, authority, method and
 *   request extras as sent (World.contentCalls, which this module reads rather than copies);
 * - commits: every storage transaction that committed, with the process instance and task that made
 *   it, its label, the table/key/value of every write, and the Binder call the task was serving — or
 *   serving when it was spawned (an async worker) — when that call was to the committing package;
 * - file results: the bytes written into every pipe or file handed out as a descriptor, with its mode;
 * - effects: business effects declared through the public effect API (AppContext.declareEffect),
 *   kept only if the transaction they were declared in commits;
 * - agent calls: what an agent asked its consumer for and what the consumer finally returned.
 *
 * Recording here never adds a trace event and never schedules anything: traces are unchanged.
 * The hooks elsewhere (activity, storage, fd, content, context) are one-liners calling in here.
 */

import type { JsonValue } from '../base/json.ts';
import type { ContentCallRecord } from './content/types.ts';
import type { VirtualClock } from './core/clock.ts';
import type { Scheduler } from './core/scheduler.ts';
import type { Trace } from './core/trace.ts';
import type { ProcessRecord } from './process/process.ts';
import type { Screen, UserAnswer } from './ui/screen.ts';

/** What the record needs of the world, passed in (the World implements it): the step, the clock, the trace's length. */
export interface GroundTruthHost {
  readonly scheduler: Pick<Scheduler, 'step' | 'currentTask'>;
  readonly clock: Pick<VirtualClock, 'nowMs'>;
  readonly trace: Pick<Trace, 'length'>;
}

/**
 * A business effect as a provider declares it (the public effect API; docs/oracles.md). All fields
 * are facts about the effect the provider just made, not claims about its own correctness.
 */
export interface BusinessEffect {
  /** The tool (execute_tool `tool_name`) whose effect this is. */
  readonly tool: string;
  /** The request_id of the execution that made it. */
  readonly requestId: string;
  /** The UID the effect was made for: the caller the provider attributed the request to. */
  readonly callerUid: number;
  /** Whose data the effect touched: the UID that owns the object that changed. */
  readonly ownerUid: number;
  /** Which object changed (an id the confirmation screen names), when there is one. */
  readonly object?: string | null;
  /** The arguments the effect acted on (the parsed args, or the subset that mattered). */
  readonly args: JsonValue;
  /**
   * By the provider's own policy this effect needed the user's approval (e.g. its runtime risk was
   * above the tool's static declaration, CETP-3.4-12). A fact about the policy, not about whether
   * the provider asked: the oracles judge that from the screens. Absent: false.
   */
  readonly approvalRequired?: boolean;
}

export interface EffectRecord extends BusinessEffect {
  readonly provider: string;
  readonly pid: number;
  readonly incarnation: number;
  /** The commit's trace event seq; null for an effect declared outside a store transaction. */
  readonly seq: number | null;
  readonly step: number;
  readonly t: number;
  /** The transaction's label; null outside a transaction. */
  readonly tx: string | null;
}

export interface ScreenRecord {
  readonly id: number;
  /** The `ui.show` trace event. */
  readonly seq: number;
  readonly step: number;
  readonly t: number;
  readonly packageName: string;
  readonly activity: string;
  readonly uid: number;
  readonly pid: number;
  readonly title: string;
  readonly lines: readonly string[];
  /** The user's answer (null: never answered). */
  answer: UserAnswer | null;
  answerSeq: number | null;
  answerStep: number | null;
  /** The answer reached the Activity (it was still on screen and its process alive). */
  delivered: boolean;
}

export interface CommitRecord {
  readonly seq: number;
  readonly step: number;
  readonly t: number;
  readonly packageName: string;
  readonly process: string;
  readonly pid: number;
  readonly incarnation: number;
  readonly tx: string;
  readonly writes: readonly CommitWrite[];
  /** The scheduler task that committed (-1: none). */
  readonly task: number;
  /**
   * The ContentProvider.call (World.contentCalls id) the committing task was serving, or was
   * spawned while serving (an async worker), when that call was to this package; null otherwise (a
   * task of the app's own, an Activity, an operation resumed after a restart).
   */
  readonly call: number | null;
}

export interface CommitWrite {
  readonly table: string;
  readonly key: string;
  readonly deleted: boolean;
  /** The value written (the store's own frozen copy); null for a delete. */
  readonly value: JsonValue | null;
}

export interface FileResultRecord {
  /** When the first byte was written. */
  readonly step: number;
  /** `pipe#N` or `file:PATH`. */
  readonly target: string;
  /** The mode of the descriptor the bytes were written through. */
  readonly mode: string;
  /** Every byte written, in order. */
  readonly bytes: Uint8Array;
}

/** Bytes kept as written (chunks), joined once when read. */
class WrittenBytes implements FileResultRecord {
  private readonly chunks: Uint8Array[] = [];
  private joined: Uint8Array | null = null;
  constructor(
    readonly step: number,
    readonly target: string,
    readonly mode: string,
  ) {}
  add(bytes: Uint8Array): void {
    this.chunks.push(bytes.slice());
    this.joined = null;
  }
  get bytes(): Uint8Array {
    if (this.joined) return this.joined;
    const size = this.chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    this.joined = out;
    return out;
  }
}

/** One request an agent made through a consumer's agent-facing API, and what it got back. */
export interface AgentCallRecord {
  readonly id: number;
  readonly consumer: string;
  /** The consumer process instance the agent ran in. */
  readonly pid: number;
  /** 'execute' or 'list'. */
  readonly kind: string;
  readonly provider: string | null;
  readonly tool: string | null;
  readonly args: string | null;
  readonly step: number;
  readonly t: number;
  /** When the agent got its answer (null: never — e.g. the consumer died first). */
  endStep: number | null;
  /** What the agent got, as a JSON-safe deep copy (functions and cycles dropped). */
  value: JsonValue | undefined;
}

type PendingTx = object;

export class GroundTruth {
  readonly screens: ScreenRecord[] = [];
  readonly commits: CommitRecord[] = [];
  readonly effects: EffectRecord[] = [];
  readonly fileResults: FileResultRecord[] = [];
  readonly agentCalls: AgentCallRecord[] = [];
  /** Effects declared inside a transaction that has not ended yet. */
  private readonly pending = new WeakMap<PendingTx, EffectRecord[]>();
  /** Effects declared on a transaction the store never committed nor rolled back (a foreign wrapper). */
  private readonly open = new Set<EffectRecord>();

  constructor(private readonly world: GroundTruthHost) {}

  // ---- the effect API (AppContext.declareEffect) ----

  declareEffect(proc: ProcessRecord, effect: BusinessEffect, tx: PendingTx | null): void {
    const record: EffectRecord = {
      tool: String(effect.tool),
      requestId: String(effect.requestId).toLowerCase(),
      callerUid: Number(effect.callerUid),
      ownerUid: Number(effect.ownerUid),
      object: effect.object ?? null,
      args: jsonCopy(effect.args),
      approvalRequired: effect.approvalRequired === true,
      provider: proc.packageName,
      pid: proc.pid ?? -1,
      incarnation: proc.incarnation,
      seq: null,
      step: this.world.scheduler.step,
      t: this.world.clock.nowMs(),
      tx: null,
    };
    if (tx === null) {
      this.effects.push(record);
      return;
    }
    const list = this.pending.get(tx);
    if (list) list.push(record);
    else this.pending.set(tx, [record]);
    this.open.add(record);
  }

  /** Effects declared on a transaction the store never saw end (kept for diagnostics). */
  get uncommittedEffects(): readonly EffectRecord[] {
    return [...this.open];
  }

  // ---- hooks ----

  /** storage.ts: a transaction committed (its trace event is `seq`). */
  committed(
    tx: PendingTx,
    packageName: string,
    owner: ProcessRecord,
    label: string,
    seq: number,
    writes: ReadonlyMap<string, ReadonlyMap<string, JsonValue | null>>,
  ): void {
    const step = this.world.scheduler.step;
    const t = this.world.clock.nowMs();
    const list: CommitWrite[] = [];
    for (const [table, entries] of writes)
      for (const [key, v] of entries)
        list.push({ table, key, deleted: v === null, value: v === null ? null : (v as JsonValue) });
    const task = this.world.scheduler.currentTask;
    const served = task?.onBehalfOf as ContentCallRecord | null | undefined;
    this.commits.push({
      seq,
      step,
      t,
      packageName,
      process: owner.name,
      pid: owner.pid ?? -1,
      incarnation: owner.incarnation,
      tx: label,
      writes: list,
      task: task?.id ?? -1,
      call: served?.provider === packageName ? served.id : null,
    });
    for (const e of this.pending.get(tx) ?? []) {
      this.open.delete(e);
      this.effects.push({ ...e, seq, step, t, tx: label });
    }
    this.pending.delete(tx);
  }

  /**
   * storage.ts: commits a power loss took back (SQLite WAL with synchronous=NORMAL: committed, never
   * synced): they and their effects never happened as far as the device's state goes.
   */
  lost(seqs: ReadonlySet<number>): void {
    const keep = <T extends { readonly seq: number | null }>(list: T[]) => {
      const kept = list.filter((r) => r.seq === null || !seqs.has(r.seq));
      list.splice(0, list.length, ...kept);
    };
    keep(this.commits);
    keep(this.effects);
  }

  /** storage.ts: a transaction was rolled back or discarded: its declared effects never happened. */
  rolledBack(tx: PendingTx): void {
    for (const e of this.pending.get(tx) ?? []) this.open.delete(e);
    this.pending.delete(tx);
  }

  /** activity.ts: an Activity shows a screen; returns its record for the answer. */
  screenShown(seq: number, proc: ProcessRecord, activity: string, screen: Screen): ScreenRecord {
    const record: ScreenRecord = {
      id: this.screens.length + 1,
      seq,
      step: this.world.scheduler.step,
      t: this.world.clock.nowMs(),
      packageName: proc.packageName,
      activity,
      uid: proc.uid,
      pid: proc.pid ?? -1,
      title: String(screen.title),
      lines: screen.lines.map(String),
      answer: null,
      answerSeq: null,
      answerStep: null,
      delivered: false,
    };
    this.screens.push(record);
    this.shownBy.set(record, proc);
    return record;
  }

  /**
   * activity.ts: the user answered `screen` (the `user.decision` event was just recorded); it reached
   * the Activity only if the Activity was still there, in the very process instance that showed it.
   */
  screenAnswered(screen: ScreenRecord, answer: UserAnswer, delivered: boolean): void {
    screen.answer = answer;
    screen.answerSeq = this.world.trace.length - 1;
    screen.answerStep = this.world.scheduler.step;
    screen.delivered = delivered && this.shownBy.get(screen)?.pid === screen.pid;
  }
  private readonly shownBy = new WeakMap<ScreenRecord, ProcessRecord>();

  /** fd.ts: bytes written through a descriptor of mode `mode` into a pipe or file (`key`). */
  wrote(target: string, mode: string, bytes: Uint8Array, key: object): void {
    let record = this.files.get(key);
    if (!record) {
      record = new WrittenBytes(this.world.scheduler.step, target, mode);
      this.files.set(key, record);
      this.fileResults.push(record);
    }
    record.add(bytes);
  }
  private readonly files = new WeakMap<object, WrittenBytes>();

  /** The scenario driver: an agent asks its consumer for something (returns the record to end). */
  agentAsked(
    proc: ProcessRecord,
    kind: 'execute' | 'list',
    provider: string | null,
    tool: string | null,
    args: string | null,
  ): AgentCallRecord {
    const record: AgentCallRecord = {
      id: this.agentCalls.length + 1,
      consumer: proc.packageName,
      pid: proc.pid ?? -1,
      kind,
      provider,
      tool,
      args,
      step: this.world.scheduler.step,
      t: this.world.clock.nowMs(),
      endStep: null,
      value: undefined,
    };
    this.agentCalls.push(record);
    return record;
  }

  /** The scenario driver: what the consumer's agent API finally returned for `call`. */
  agentGot(call: AgentCallRecord, value: unknown): void {
    call.endStep = this.world.scheduler.step;
    call.value = jsonCopy(value);
  }
}

/** A JSON-safe deep copy: what can be serialised, without functions, cycles or class identity. */
export function jsonCopy(value: unknown, seen: Set<object> = new Set()): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return null;
  if (seen.has(value)) return null;
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => jsonCopy(v, seen));
    if (value instanceof Uint8Array) return Array.from(value);
    const out: { [k: string]: JsonValue } = {};
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      if (typeof v === 'function' || v === undefined) continue;
      out[k] = jsonCopy(v, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
