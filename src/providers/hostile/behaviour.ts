/**
 * What a hostile CETP provider lies about — as data, so that named cases (cases.ts) and generated
 * combinations (arbitrary.ts) drive one provider (provider.ts). Everything left unset is answered
 * honestly enough for a consumer to get as far as the lie: a valid negotiate, provider info, one
 * well-formed read tool `lookup`, and inline results (spec §2.2, §3, §4). The lies are the ones a
 * consumer must survive (spec §7.3 "恶意 Provider", §9 "恶意 Provider 的超长描述、伪造指令、未知
 * 错误码和敏感错误内容"): overlong and instruction-laden text, malformed descriptors and Bundles,
 * broken identity and negotiation, file results that lie, and resolutions that are not the
 * provider's own immutable explicit PendingIntent.
 */

import type { JsonValue } from '../../base/json.ts';
import { V2_METHOD_NAMES, type V2MethodName } from '../../protocol/methods.ts';

/** A hostile provider can lie in the reply to any v2 method. */
export const HOSTILE_METHODS = V2_METHOD_NAMES;
export type HostileMethod = V2MethodName;

/** What the package's manifest declares (read by `installHostile`, not by the provider). */
export interface DiscoveryLie {
  /** Declared major versions; default [2]. With 1 in it, the provider also answers v1 honestly. */
  readonly versions?: readonly number[];
  /** Overrides of the discovery service's meta-data (e.g. another package's authority, 2.1-08). */
  readonly metaData?: Readonly<Record<string, string>>;
}

export interface NegotiateLie {
  /** Negotiate always fails with this code, whatever the consumer offers. */
  readonly failWith?: 'UNSUPPORTED_VERSION' | 'INTERNAL_ERROR' | 'UNAVAILABLE';
  /** provider_id to claim (e.g. outside the package namespace, 3.1-02). */
  readonly providerId?: string;
  /** provider_name to claim (overlong, instructions). Also served by get_provider_info. */
  readonly providerName?: string;
  /** The session_token to hand out (e.g. over 256 bytes, 2.2-08); it is then accepted. */
  readonly sessionToken?: string;
  /** Capabilities to answer whatever the consumer offered (2.2-06). */
  readonly capabilities?: readonly string[];
}

/** How a file result lies (spec §4.5). */
export interface FileLie {
  /** Bytes actually served (at least 64): a JSON document of exactly this size. */
  readonly contentBytes: number;
  /**
   * What the document says: neutral filler, prompt injection from end to end, or a well-formed JSON
   * document that the tool's output_schema forbids (`answer` is a number, not a string: 4.5-07).
   */
  readonly content: 'filler' | 'injection' | 'off-schema';
  /** size_bytes to declare; default the true size. */
  readonly declaredSizeBytes?: number;
  /** sha256 to declare: of the content (lowercase), of something else, or uppercase hex. */
  readonly sha256: 'correct' | 'wrong' | 'uppercase';
  /**
   * What result_fd is: a read-only file (honest), a writable file (4.5-04), a pipe whose writer
   * keeps it open after the content so EOF never comes, or a reliable pipe whose writer crashes
   * half-way (its process dies; checkError() reports it).
   */
  readonly fd: 'read_only' | 'writable' | 'pipe_never_eof' | 'pipe_writer_dies';
}

/** How a resolution PendingIntent lies (4.3-02, 7.2-04, 7.2-05). */
export type PendingIntentLie =
  /** Explicit, to the provider's own Activity, but FLAG_MUTABLE. */
  | 'mutable'
  /** Immutable but implicit: an action only, any app may answer it. */
  | 'implicit'
  /** Created by ANOTHER package (the peer) and relayed: explicit and immutable, but not ours. */
  | 'relayed';

export type ExecuteLie =
  | { readonly kind: 'inline'; readonly value: JsonValue }
  | {
      readonly kind: 'error';
      /** Any string: a known code, or one no spec defines. */
      readonly code: string;
      readonly message: string;
      readonly retryable: boolean;
      readonly retryAfterMs?: number;
      readonly details?: JsonValue;
      /**
       * Only the first call of each request_id gets the error; a re-send or query under the same
       * request_id is answered honestly (a provider whose deadline passed once, 5-19).
       */
      readonly firstOnly?: boolean;
    }
  | { readonly kind: 'file'; readonly file: FileLie }
  | {
      readonly kind: 'resolution';
      readonly code: 'USER_ACTION_REQUIRED' | 'AUTH_REQUIRED';
      readonly pendingIntent: PendingIntentLie;
    }
  /**
   * `accepted` even when the session has no async_operations (2.3-02); the operation then succeeds.
   * With `runningMs` it stays `running` that long (virtual time) and cancel_operation answers
   * `cancellation_requested` — and the operation still succeeds (4.4-11, 4.4-19: only
   * state=cancelled means no effect); without it, cancel_operation is a CONFLICT (already finished).
   */
  | { readonly kind: 'accepted'; readonly runningMs?: number }
  /** An inline result of about 2 × `chars` parcel bytes: over Binder's 1 MiB buffer, the reply fails. */
  | { readonly kind: 'oversized'; readonly chars: number };

/** A lie about the Bundle itself, applied to every reply of `method` after it is built. */
export interface ReplyTamper {
  readonly method: HostileMethod;
  readonly lie:
    | 'invalid_json_data'
    | 'protocol_version_as_long'
    | 'retryable_as_string'
    | 'different_request_id';
}

export interface HostileBehaviour {
  readonly discovery?: DiscoveryLie;
  readonly negotiate?: NegotiateLie;
  /** get_provider_info's description (overlong, instructions). */
  readonly providerDescription?: string;
  /** list_tools' `tools`, as raw JSON so they can be malformed; default: the honest `lookup` tool. */
  readonly tools?: readonly JsonValue[];
  /** What every execute_tool answers (a resume with a resume_token is answered with success). */
  readonly execute?: ExecuteLie;
  readonly tamper?: readonly ReplyTamper[];
}
