/**
 * The findings for spec authors that spec/matrix.md prints for breaking pairings of readings
 * (readings.ts), and the rule collisions found by ablation, campaigns and the matrix. Kept beside
 * the registry so the document is generated, never edited by hand. Plain data.
 */

/** A pairing of readings in a note's matrix, and what is written about pairings (a finding, …). */
export interface Pairing {
  readonly note: number;
  /** The readings a written entry is about; a pairing matches when it has every one of them. */
  readonly provider: Readonly<Record<string, string>>;
  readonly consumer: Readonly<Record<string, string>>;
}

export interface Finding extends Pairing {
  /** What goes wrong for a user. */
  readonly user: string;
  /** Which spec sentences permit both readings. */
  readonly permits: string;
  /** The smallest wording change that rules one reading out. */
  readonly wording: string;
  /**
   * The Android releases the break holds on: its replays re-run under each release profile
   * (`cetp-sim replay FILE --android 14|15|16`), and why; absent: not stated yet.
   */
  readonly releases?: string;
}

export const FINDINGS: readonly Finding[] = [
  {
    note: 2,
    provider: { consumedToken: 'refuse' },
    consumer: { resendResumeToken: 'resend', refusedToken: 'give-up' },
    user: 'The user approves a confirmation and the write is committed, but the reply to the resume is lost. The consumer re-sends the resume with the same request_id and token (6-08); the provider, checking the single-use token before its request record, answers INVALID_REQUEST with retryable=false, and the consumer — taking retryable=false at its word — tells the agent the app refused the request. The write happened; the agent and the user are told it did not.',
    permits:
      '4.3-13 makes the token single-use and 5-15 makes token misuse INVALID_REQUEST (retryable=false); 5-26 forbids re-sending a non-retryable error. 6-08 and 6-05 say a same-id retry gets the recorded result. Nothing orders the token check against the dedup lookup, and nothing says a re-sent token of the same request is not misuse.',
    wording:
      'Add to 4.3: "A resume_token already used by the same request (same caller, request_id, tool and args) MUST NOT be treated as misuse: the Provider returns that request\'s recorded result or current state (6-05)."',
    releases:
      "Android 14, 15 and 16 (its replays fail the same way under --android 14, 15 and 16): it needs only a lost reply to a resume, which a failed Binder transaction or a provider death gives on every release; the confirmation Activity's start (Android 14's background-activity rules are modelled) happens before the break and succeeds on all three.",
  },
  {
    note: 5,
    provider: { deadlineCheck: 'first' },
    consumer: { retryDeadline: 'original' },
    user: "A write is committed (or its operation accepted) but the reply is lost, and the consumer re-sends the request more than its deadline later (a phone that slept, a slow network). The consumer keeps the request as it was first sent, deadline included (6-04: the same request, the same content); the provider checks the deadline before it looks the request up (10-03) and answers DEADLINE_EXCEEDED — to this re-send and to every later one. The recorded outcome can never be reached: the user is never told that the payment went through, and a tool of the app never once succeeds in the matrix's campaign.",
    permits:
      '4.1-14 makes deadline_at_ms a per-call limit ("this call"), and 10-03 says a Provider refuses work past the deadline, without saying whether a recorded result is work; 4.1-15 and 6-04 say a retry is the same request with the same content, which a consumer may read as the same deadline. 6-05 says a same-id retry gets the recorded result, and does not rank itself against the deadline.',
    wording:
      'Add to 4.1: "deadline_at_ms limits the work of this call only: a Provider MUST answer a request that already has a recorded result or operation from that record (6-05), whatever the deadline; and a Consumer MUST give each retry its own deadline_at_ms (a deadline is not part of a request\'s content, 6-04)."',
    releases:
      'Android 14, 15 and 16 (its replays fail the same way under --android 14, 15 and 16): it needs a lost reply and a 45 s gap before the re-send; a device that sleeps gives the gap on every release (deep sleep and the freezer on 15 and 16 make long gaps more likely, not less).',
  },
  {
    note: 8,
    provider: { sessionMisuse: 'invalid_request' },
    consumer: {},
    user: "A consumer app presents a session token the provider gave another app — a consumer SDK whose token cache two apps of one developer share, or a cache restored into a reinstalled app. A provider that calls this token misuse answers INVALID_REQUEST (not retryable), and the consumer ends the agent's call with a refusal: the user's request fails, although a fresh negotiate — which a NEGOTIATION_REQUIRED answer makes the consumer do by itself — would have let it go through. Nothing of the other app leaks either way.",
    permits:
      '2.2-09 binds a session to the caller that negotiated it and 5-07 makes a missing session NEGOTIATION_REQUIRED (retryable, so the consumer renegotiates); 5-15 makes token misuse INVALID_REQUEST (not retryable). A token of another UID is both "no session of this caller" and "a token misused", and the spec does not say which.',
    wording:
      'Add to 2.2: "A session_token that is unknown, expired or bound to another caller MUST be answered NEGOTIATION_REQUIRED: the caller has no session here. INVALID_REQUEST is for a malformed token only."',
    releases:
      "Android 14, 15 and 16 (its replays fail the same way under --android 14, 15 and 16): the token is presented by app code; nothing of the platform is involved beyond the caller's UID, which Binder reports the same way on all three.",
  },
  {
    note: 6,
    provider: { argsDigest: 'bytes' },
    consumer: { argsBytes: 'reserialize' },
    user: 'A consumer SDK that keeps args as a parsed object re-serialises them on every retry and resume. Against a provider that binds the exact bytes, the resume after the user approved, or the retry after a lost reply, carries "different content" and is refused INVALID_REQUEST: the user approved and nothing happens, or a committed write is reported as refused.',
    permits:
      '4.3-14 binds the resume token to the "original args bytes", while 6-03 binds the dedup record to "a digest of the original args" without saying of which form; 4.1-04 and 6-08 require re-sending "the same request" but not the same bytes, and args is JSON (4.1-06), where key order and number spelling carry no meaning.',
    wording:
      'Either add to 4.1: "On every retry or resume the Consumer MUST re-send the exact args string it sent first", or replace "args 字节 / 摘要" in 4.3-14 and 6-03 by "the SHA-256 of the RFC 8785 (JCS) canonical form of args".',
    releases:
      "Android 14, 15 and 16 (its replays fail the same way under --android 14, 15 and 16): the args bytes are the apps' own; the platform carries the string unchanged on every release.",
  },
  {
    note: 14,
    provider: { hiddenTool: 'not_found' },
    consumer: {},
    user: "A provider shows a sensitive tool only to callers holding its scope (7.2-02). The consumer listed it while the user's grant was live; the grant lapses, and the next call of the tool is answered TOOL_NOT_FOUND. The tool the user sees in the agent never works again, and nothing offers the user the grant back: only another, visible tool of the same scope could ask for it. A provider answering the missing scope instead (AUTH_REQUIRED with a resolution) lets the user grant it again and the call goes on.",
    permits:
      '5-12 makes a tool "invisible to the caller" TOOL_NOT_FOUND, and 7.2-02 lets a provider hide a sensitive tool completely; 3.4-15 requires AUTH_REQUIRED or PERMISSION_DENIED when a scope is missing. For a tool hidden because a scope is missing, both apply, and nothing says which wins or tells the consumer to re-read list_tools after TOOL_NOT_FOUND.',
    wording:
      'Add to 7.2: "A tool hidden only because the caller lacks a scope the user can grant MUST, when called, be answered AUTH_REQUIRED with a resolution (3.4-15); TOOL_NOT_FOUND is for tools the caller can never be allowed to use." — or, to keep it hidden, add to 5: "After TOOL_NOT_FOUND for a listed tool the Consumer MUST re-read list_tools."',
    releases:
      "Android 14, 15 and 16 (its replays fail the same way under --android 14, 15 and 16): a grant that lapses and a hidden tool are the provider's own logic; nothing of the platform differs.",
  },
  {
    note: 16,
    provider: { expiredToken: 'invalid_request' },
    consumer: {},
    user: 'The user takes longer than the token’s life to answer the confirmation (or the device sleeps in between). The consumer resumes with the expired token; the provider refuses it as INVALID_REQUEST (not retryable), so the agent is told the app refused the request, although the user just approved and asking again would have worked.',
    permits:
      '4.3-06 only says the token is bound to a validity period; 5-15 makes token misuse INVALID_REQUEST; 9-06 asks for a test of token expiry without saying what it expects. A provider may equally answer a fresh USER_ACTION_REQUIRED (5-09).',
    wording:
      'Add to 4.3: "A resume with an expired resume_token MUST be answered as a first call of the request: USER_ACTION_REQUIRED with a new resolution and token; nothing is executed."',
    releases:
      "Android 14, 15 and 16 (its replays fail the same way under --android 14, 15 and 16): a user who answers after the token's life (11 min) does so on every release; the confirmation Activity is started through the provider's PendingIntent while the consumer is in the foreground, which Android 14's rules (modelled) and 15/16's allow alike.",
  },
];

function matches(want: Readonly<Record<string, string>>, have: Readonly<Record<string, string>>): boolean {
  return Object.entries(want).every(([k, v]) => have[k] === v);
}

/** The entry written for a pairing's readings, if any. Reading names use dashes (readings.ts). */
function writtenFor<E extends Pairing>(entries: readonly E[], pairing: Pairing): E | undefined {
  const dashed = (r: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.replaceAll('_', '-')]));
  return entries.find(
    (e) =>
      e.note === pairing.note &&
      matches(dashed(e.provider), dashed(pairing.provider)) &&
      matches(dashed(e.consumer), dashed(pairing.consumer)),
  );
}

/** The finding for a pairing's readings, if one is written. */
export function findingFor(pairing: Pairing): Finding | undefined {
  return writtenFor(FINDINGS, pairing);
}

/** Why a pairing the matrix cannot reach is unreachable (printed under its note's table). */
export interface Unreachable extends Pairing {
  readonly why: string;
}

export const UNREACHABLE: readonly Unreachable[] = [
  {
    note: 2,
    provider: { consumedToken: 'replay' },
    consumer: { resendResumeToken: 'resend', refusedToken: 'give-up' },
    why: "The consumer's `refusedToken` reading decides only what follows a re-sent resume token refused with INVALID_REQUEST, and a `replay` provider never refuses one (it answers from the request record), while `resend` is the reference's re-send: with this provider the pairing behaves as the reference in every run, by construction. Its interoperation is shown by `consumedToken=refuse` × `refusedToken=query`.",
  },
];

/** The explanation of an unreachable pairing, if one is written. */
export function unreachableFor(pairing: Pairing): Unreachable | undefined {
  return writtenFor(UNREACHABLE, pairing);
}

/**
 * The shared vectors whose verdict depends on a reading (found by `cetp-sim matrix`), judged: an
 * over-specified vector fails a reading that interoperates (the vector should accept both, or say
 * which reading it assumes as a profile); a collision is a vector on the reading the matrix shows
 * interoperation needs (its note's finding asks the spec to say so).
 */
export interface VectorVerdict {
  readonly vector: string;
  /** `variant=reading` (dashes): the reading the vector fails under. */
  readonly reading: string;
  readonly kind: 'over-specified' | 'collision';
  readonly why: string;
}

export const VECTOR_VERDICTS: readonly VectorVerdict[] = [
  {
    vector: 'idem-late-retry',
    reading: 'consumedToken=refuse',
    kind: 'collision',
    why: 'The vector wants a late same-id resume with its consumed token to replay the recorded success. Under refuse the provider answers INVALID_REQUEST; paired with a consumer that gives up on it, the agent is told a committed write was refused (note 2 breaks). Keep the vector: it holds the reading the note-2 finding asks 4.3 to require.',
  },
  {
    vector: 'neg-session-other-uid',
    reading: 'sessionMisuse=invalid-request',
    kind: 'collision',
    why: "The vector wants NEGOTIATION_REQUIRED for another UID's session token. Under invalid-request the consumer that presents one cannot recover (note 8 breaks). Keep the vector: it holds the reading the note-8 finding asks 2.2 to require.",
  },
  {
    vector: 'op-cancel',
    reading: 'cancelledReplay=accepted',
    kind: 'over-specified',
    why: "The vector wants the same-id replay of a cancelled operation's request to be the error CANCELLED. Answering accepted with the same operation_id (whose get_operation says cancelled) is defensible from 6-07 and interoperates in every matrix run; the vector should accept either answer (or move the replay step to a profile that states the reading).",
  },
  {
    vector: 'op-cancel-after-commit',
    reading: 'cancelFinished=accept',
    kind: 'over-specified',
    why: 'The vector wants CONFLICT for a cancel of a finished operation. Answering success with state=cancellation_requested and changing nothing is defensible from 4.4-10 / 4.4-19 and interoperates in every matrix run (a consumer polls to the end either way); the vector should accept either answer as long as nothing is undone.',
  },
];

/** The verdict on a vector's dependency on a reading, if written. */
export function vectorVerdictFor(
  vector: string,
  readings: Readonly<Record<string, string>>,
): VectorVerdict | undefined {
  const have = Object.entries(readings).map(([k, v]) => `${k}=${v.replaceAll('_', '-')}`);
  return VECTOR_VERDICTS.find((v) => v.vector === vector && have.includes(v.reading));
}

export interface RuleCollision {
  readonly title: string;
  readonly rules: readonly string[];
  readonly collision: string;
  readonly resolution: string;
  readonly evidence: string;
}

export const RULE_COLLISIONS: readonly RuleCollision[] = [
  {
    title: 'A replay of a running async request answers `accepted` in a session without async_operations',
    rules: ['CETP-6-07', 'CETP-2.3-02', 'CETP-2.3-04'],
    collision:
      '6-07 says a duplicate of R gets "the same operation" while R runs; 2.3-02 says no optional capability is used before it is negotiated. After a provider restart the consumer renegotiates without async_operations and retries R, which is still running: one of the two rules must give.',
    resolution:
      "6-07 wins: the answer only repeats what R already got; the consumer cannot poll it (UNSUPPORTED_CAPABILITY) until it negotiates async_operations again. The `capability-gating` oracle judges `accepted` only on a request's first answer.",
    evidence:
      'Found by a fuzz campaign of the `idempotency` property (capability-gating failed on the replay); spec/interpretations.md, "Capabilities, revisions and visibility"; NOTES 8c.',
  },
  {
    title: "Business validation of a retried write against today's state",
    rules: ['CETP-6-05', 'CETP-7.3-04', 'CETP-5-14', 'CETP-6-08'],
    collision:
      '7.3-04 and 5-14 have the provider validate args (also against its business state) before executing; 6-05 has a same-id retry answered with the recorded result. A retried `delete_alert` whose reply was lost validates against a state in which the alert is already gone: INVALID_ARGS, although the delete was committed.',
    resolution:
      "The record wins: a write with a settled record is answered from it, its args are not re-validated against today's state (src/providers/sdk/execute/request.ts).",
    evidence:
      "Found by the matrix's `matrix-interop` property on the reference pairing (agent-outcome-truth: the agent was told INVALID_ARGS for a committed delete); pinned by properties/readings.test.ts.",
  },
  {
    title: 'An expired scope-grant token on a call whose scope is granted meanwhile',
    rules: ['CETP-4.3-06', 'CETP-3.4-15', 'CETP-5-15'],
    collision:
      'Two requests ask for the same scope; the user grants it on one screen; the other request resumes after its own grant token expired. 4.3-06 rejects the expired token, 3.4-15 finds the caller authorised: the provider refused the request as INVALID_REQUEST.',
    resolution:
      'The MUST wins: the reference refuses the expired token (4.3-06, INVALID_REQUEST; the shared MUST vector conf-token-expired holds every implementation to it), although the caller is authorised by then. A consumer cannot know the lifetime (no reply states it), so the agent sees a refusal it could not avoid; the matrix-interop oracle exempts resumes later than the token lifetime (src/check/checkers/interop.ts). Smallest wording change: let a provider answer an expired grant token on a call it now authorises as if no token had been sent.',
    evidence:
      "Found by the matrix's `matrix-interop` property on the reference pairing (agent-not-refused-as-misuse). Letting the call go on instead was tried and broke vector conf-token-expired (CETP-4.3-06), so it was not kept.",
  },
  {
    title: "The 256 KiB inline minimum and Binder's shared transaction buffer",
    rules: ['CETP-2.2-18', 'CETP-2.2-19', 'CETP-4.5-01', 'CETP-6-08'],
    collision:
      'max_inline_result_bytes >= 262144 counts UTF-8 bytes, but the string crosses Binder as UTF-16: two concurrent inline results at the minimum no longer fit the 1 MiB − 8 KiB buffer, and the replay of R fails the same way.',
    resolution: 'See the finding.',
    evidence: 'spec/findings/inline-limit-vs-binder-buffer.md (boundary benchmark, issue 18).',
  },
];
