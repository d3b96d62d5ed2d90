/**
 * The content room's vocabulary (content.ts, content-observer.ts), a leaf: who calls, and the
 * record of each ContentProvider.call the World keeps (ground-truth.ts and the checkers read it).
 */
import type { Bundle } from '../binder/bundle.ts';
import type { ProcessRecord } from '../process/process.ts';

/** The calling app as the content system needs it (app/context.ts AppContext is one). */
export interface ContentCaller {
  readonly uid: number;
  readonly pid: number;
  readonly packageName: string;
  readonly process: ProcessRecord;
}

/** One ContentProvider.call as an observer saw it (see World.contentCalls). */
export interface ContentCallRecord {
  readonly id: number;
  readonly caller: string;
  readonly callerUid: number;
  /** The calling process instance. */
  readonly callerPid: number;
  readonly provider: string;
  readonly providerUid: number;
  /**
   * The calling and the serving process's names when they are not their package's — a provider's
   * `android:process` (`<pkg>:cetp`) or another user's process (`<pkg>@u10`) — as trace events
   * (`process.kill`'s `actor`) name them; absent when the process is named after its package. A
   * reader matching process events to a call compares against `providerProcess ?? provider`.
   */
  readonly callerProcess?: string;
  readonly providerProcess?: string;
  readonly authority: string;
  readonly method: string;
  readonly arg: string | null;
  /** Snapshot of the request extras as sent. */
  readonly extras: Bundle | null;
  readonly stable: boolean;
  readonly step: number;
  readonly t: number;
  /** How it ended for the caller; absent if the caller never got an answer (it or its process died). */
  result?: ContentCallResult;
  /**
   * When the provider's handler ran (Binder calls only): its process instance, the step its binder
   * thread picked the transaction up and called ContentProvider.call, and the step that call returned
   * or threw (null: it never did — the process died or the run ended first). Ground truth for
   * admission (how many calls a provider was serving at once); recording it adds no trace event.
   */
  served?: ServedInterval;
}

export interface ServedInterval {
  readonly pid: number;
  readonly fromStep: number;
  untilStep: number | null;
}

export type ContentCallResult =
  | { readonly kind: 'reply'; readonly reply: Bundle | null; readonly step: number; readonly t: number }
  | {
      readonly kind: 'exception';
      readonly exception: string;
      readonly step: number;
      readonly t: number;
      /** The provider's answer, if it did answer and the reply was lost on the way (a snapshot). */
      readonly undelivered?: Bundle | null;
    };
