/**
 * The findings for spec authors that spec/matrix.md prints for breaking pairings of readings
 * (readings.ts), and the rule collisions found by ablation, campaigns and the matrix. Kept beside
 * the registry so the document is generated, never edited by hand. Plain data.
 */

export interface Finding {
  readonly note: number;
  /** The readings this finding is about; a pairing matches when it has every one of them. */
  readonly provider: Readonly<Record<string, string>>;
  readonly consumer: Readonly<Record<string, string>>;
  /** What goes wrong for a user. */
  readonly user: string;
  /** Which spec sentences permit both readings. */
  readonly permits: string;
  /** The smallest wording change that rules one reading out. */
  readonly wording: string;
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
  },
];

function matches(want: Readonly<Record<string, string>>, have: Readonly<Record<string, string>>): boolean {
  return Object.entries(want).every(([k, v]) => have[k] === v);
}

/** The finding for a pairing's readings, if one is written. Reading names use dashes (readings.ts). */
export function findingFor(pairing: {
  readonly note: number;
  readonly provider: Readonly<Record<string, string>>;
  readonly consumer: Readonly<Record<string, string>>;
}): Finding | undefined {
  const dashed = (r: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.replaceAll('_', '-')]));
  return FINDINGS.find(
    (f) =>
      f.note === pairing.note &&
      matches(dashed(f.provider), dashed(pairing.provider)) &&
      matches(dashed(f.consumer), dashed(pairing.consumer)),
  );
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
