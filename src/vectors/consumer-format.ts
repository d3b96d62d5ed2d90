/**
 * Consumer-side vectors: a scripted provider answers as the vector says (hostile answers included)
 * and the vector says what a conforming consumer sends and what it hands its agent. A device suite
 * builds the scripted provider as an app that replays `replies` and records the requests it gets;
 * the consumer under test performs `task`. Unscripted calls get honest default answers (a
 * negotiate selecting v2, the declared tools, an inline `{}` success). A reply may carry a
 * PendingIntent (a resolution) created by the provider or by a second app, the helper
 * (helper-app.ts); the vector says whose screens the consumer opened through one (`launches`).
 */
import type { Expect, JsonExpect, ReplyValue, VectorHeader } from './format.ts';

export const CONSUMER_FORMAT_ID = 'cetp-consumer-vectors/1';

export interface ScriptedReply {
  readonly method: string;
  /** The n-th call of that method (1-based) gets this reply. */
  readonly n: number;
  /**
   * The reply Bundle; `{"type": "string", "ref": "request_id"}` echoes the request's id, a
   * `pending_intent` value is a token the provider (or the helper app) creates for this reply.
   */
  readonly reply: Readonly<Record<string, ReplyValue>>;
}

/** An app whose Activity a consumer opened: the scripted provider or the helper app. */
export type LaunchedApp = 'provider' | 'other';

export interface ConsumerVector extends VectorHeader {
  /** The scripted provider: its manifest versions and its tool descriptors (wire JSON). */
  readonly provider: { readonly versions: readonly number[]; readonly tools: readonly unknown[] };
  /** What the agent asks the consumer to do. */
  readonly task: { readonly tool: string; readonly args: unknown };
  readonly replies: readonly ScriptedReply[];
  /** By method: every request the consumer sends, in order (exactly that many). */
  readonly requests: Readonly<Record<string, readonly Expect[]>>;
  /**
   * Whose confirmation Activity the consumer opened through a resolution PendingIntent, in order:
   * `provider` (the scripted provider's) or `other` (the helper app's). Exactly these.
   */
  readonly launches: readonly LaunchedApp[];
  /** What the consumer hands its agent: `{kind, code?}`. */
  readonly outcome: JsonExpect;
}

export interface ConsumerVectorFile {
  readonly format: typeof CONSUMER_FORMAT_ID;
  readonly area: string;
  readonly description: string;
  readonly vectors: readonly ConsumerVector[];
}
