/**
 * What one actor of a raw-driver scenario keeps between its commands (and across its process's
 * deaths): the ids, sessions, resolutions and operations other actors may read to misuse them.
 */
import type { Task } from '../../sim/core/scheduler.ts';
import type { ActorName } from './model.ts';

/** What one actor knows; other actors may read it (that is how misuse is expressed). */
export interface ActorState {
  readonly name: ActorName;
  readonly rids: string[];
  /** Executions sent so far, for `retry`. */
  readonly sent: { provider: string; tool: string; rid: string; args: string; at: number }[];
  /** Per provider, the session this actor last negotiated: when, until when, and its limits. */
  readonly negotiated: Map<
    string,
    { at: number; expiresAt: number; windowMs: number; maxConcurrent: number }
  >;
  /** Scope grants this actor's user approved: for which call, and when (for `cross grant`). */
  readonly grants: { provider: string; tool: string; args: string; at: number }[];
  /** The last answer about lastOp that named a poll_after_ms: when, and the pause it asked for. */
  lastOpAnswer: { at: number; pollAfterMs: number } | null;
  sessions: Map<string, string>;
  lastToken: { provider: string; token: string; rid: string; tool: string; args: string } | null;
  lastOp: { provider: string; operationId: string; rid: string } | null;
  readonly ops: { provider: string; operationId: string; rid: string }[];
  /** Operations polled before filling a `$OWN:`/`$OTHER:` placeholder (each looked at once: driver-own.ts). */
  readonly looked: string[];
  stolenSession: string | null;
  /** Request ids answered success or accepted (a journal's "done"), for a resolving `retry`. */
  readonly completed: string[];
  /** Duplicate sends still racing (spawned tasks): the settle phase waits for them. */
  readonly duplicates: Task[];
  /** String fields of the actor's successful results, latest first wins (for `$OWN:field` args). */
  readonly own: Map<string, string>;
}

export function newActorState(name: ActorName): ActorState {
  return {
    name,
    rids: [],
    sent: [],
    negotiated: new Map(),
    grants: [],
    lastOpAnswer: null,
    sessions: new Map(),
    lastToken: null,
    lastOp: null,
    ops: [],
    looked: [],
    stolenSession: null,
    completed: [],
    duplicates: [],
    own: new Map(),
  };
}

/** What a re-send needs of an execution sent before: where, which tool, which args, which request id. */
export type Resent = Pick<ActorState['sent'][number], 'provider' | 'tool' | 'rid' | 'args'>;
