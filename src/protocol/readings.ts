/**
 * The interpretation registry: every reading of an ambiguous point of CETP v2 (NOTES §2) that the
 * reference provider or consumer can be switched to. A variant is one decision the spec leaves
 * open; each of its readings is defensible from the spec's text (rule ids cited), and the first
 * one is the reference's (spec/interpretations.md). Readings are not bugs: `cetp-sim matrix` pairs
 * a provider reading with a consumer reading of the same note and reports whether the pair
 * interoperates. The provider SDK (src/providers/sdk/readings.ts) and the consumer
 * (src/consumer/readings.ts) implement them; the findings for spec authors live in
 * readings-findings.ts beside this file. Plain data: no behaviour here.
 */

export type ReadingSide = 'provider' | 'consumer';

/** One reading combination of one side of one note (the other side: the reference). */
export interface ReadingRun {
  readonly note: number;
  readonly side: ReadingSide;
  /** Variant id → reading name (every variant of the note on that side named). */
  readonly readings: Readonly<Record<string, string>>;
  /** `note05-provider-first`: a stable id. */
  readonly id: string;
}

export interface ReadingDef {
  /** The reading's name, as a replay file and `--json` spell it. */
  readonly name: string;
  /** The option value it sets (ProviderVariants / ConsumerVariants). */
  readonly value: string | boolean;
  /** What an implementation that reads the spec this way does. */
  readonly does: string;
  /** The spec sentences (rule ids) that allow this reading. */
  readonly allowedBy: readonly string[];
  /**
   * A reading today's text does not allow, which a proposed wording would (`cetp-sim propose`):
   * why it is not a reading yet. The matrix and the vectors leave it out; a wording file may allow it.
   */
  readonly proposed?: string;
}

export interface VariantDef {
  /** The option's name in ProviderVariants / ConsumerVariants. */
  readonly id: string;
  readonly side: ReadingSide;
  /** The NOTES §2 item (1–20). */
  readonly note: number;
  /** The question the spec leaves open. */
  readonly question: string;
  /** Every rule id the note cites for this decision. */
  readonly ruleIds: readonly string[];
  /** The readings; the first is the reference's (the default). */
  readonly readings: readonly [ReadingDef, ReadingDef, ...ReadingDef[]];
}

export const VARIANTS: readonly VariantDef[] = [
  {
    id: 'consumedToken',
    side: 'provider',
    note: 2,
    question:
      'A retried resume re-sends a resume_token the provider already consumed: is the request record looked up first, or the token checked first?',
    ruleIds: ['CETP-4.3-13', 'CETP-4.3-07', 'CETP-6-05', 'CETP-6-08', 'CETP-5-15'],
    readings: [
      {
        name: 'replay',
        value: 'replay',
        does: 'looks the request record up before the token: a consumed token re-sent by its own request replays the recorded outcome',
        allowedBy: ['CETP-6-05', 'CETP-6-08'],
      },
      {
        name: 'refuse',
        value: 'refuse',
        does: 'checks the token before the record: a consumed token is INVALID_REQUEST (retryable=false), whatever the record holds',
        allowedBy: ['CETP-4.3-13', 'CETP-5-15'],
      },
    ],
  },
  {
    id: 'resendResumeToken',
    side: 'consumer',
    note: 2,
    question: 'Does a retry of the resume call (after a lost reply) carry the resume_token again?',
    ruleIds: ['CETP-4.3-07', 'CETP-6-08', 'CETP-4.1-15'],
    readings: [
      {
        name: 'resend',
        value: true,
        does: 're-sends the same request_id, args and resume_token on every retry of the resume',
        allowedBy: ['CETP-4.3-07', 'CETP-6-08'],
      },
      {
        name: 'once',
        value: false,
        does: 'sends the token once; a retry after a lost reply is the bare same-id request (the token is single-use)',
        allowedBy: ['CETP-4.3-13', 'CETP-6-08'],
      },
    ],
  },
  {
    id: 'refusedToken',
    side: 'consumer',
    note: 2,
    question:
      'A re-sent resume token is refused with INVALID_REQUEST (retryable=false): does the consumer ask once more without it?',
    ruleIds: ['CETP-5-15', 'CETP-5-26', 'CETP-6-08', 'CETP-5-19'],
    readings: [
      {
        name: 'query',
        value: 'query',
        does: 'asks once more with the same request_id and no token, to reach the request record',
        allowedBy: ['CETP-6-08'],
      },
      {
        name: 'give-up',
        value: 'give_up',
        does: 'takes retryable=false at its word and reports the refusal to the agent',
        allowedBy: ['CETP-5-26', 'CETP-5-15'],
      },
    ],
  },
  {
    id: 'deadlineCheck',
    side: 'provider',
    note: 5,
    question:
      'Is deadline_at_ms checked before the request record is looked up, or only before a reservation or effect?',
    ruleIds: ['CETP-4.1-14', 'CETP-10-03', 'CETP-5-19', 'CETP-6-05'],
    readings: [
      {
        name: 'after-lookup',
        value: 'after_lookup',
        does: 'checks the deadline only before a reservation or an effect: a late same-id re-send still gets its recorded result',
        allowedBy: ['CETP-4.1-14', 'CETP-6-05'],
      },
      {
        name: 'first',
        value: 'first',
        does: 'refuses any call whose deadline has passed with DEADLINE_EXCEEDED before anything else, recorded result or not',
        allowedBy: ['CETP-10-03', 'CETP-4.1-14'],
      },
    ],
  },
  {
    id: 'retryDeadline',
    side: 'consumer',
    note: 5,
    question:
      'Does a re-send of the same request (retry, query, resume) carry a fresh deadline or the first call’s?',
    ruleIds: ['CETP-4.1-14', 'CETP-4.1-15', 'CETP-5-19', 'CETP-6-04'],
    readings: [
      {
        name: 'fresh',
        value: 'fresh',
        does: 'gives every transport call its own deadline (now + 30 s)',
        allowedBy: ['CETP-4.1-14', 'CETP-5-19'],
      },
      {
        name: 'original',
        value: 'original',
        does: 'keeps the logical execution’s first deadline_at_ms on every re-send (same request, same content, 6-04)',
        allowedBy: ['CETP-4.1-15', 'CETP-6-04'],
      },
    ],
  },
  {
    id: 'argsDigest',
    side: 'provider',
    note: 6,
    question: 'Does the dedup record and resume token bind the exact args bytes or their canonical JSON?',
    ruleIds: ['CETP-4.3-14', 'CETP-6-03', 'CETP-6-04', 'CETP-4.1-06'],
    readings: [
      {
        name: 'bytes',
        value: 'bytes',
        does: 'hashes the exact UTF-8 bytes of args',
        allowedBy: ['CETP-4.3-14'],
      },
      {
        name: 'jcs',
        value: 'jcs',
        does: 'hashes the RFC 8785 canonical form of args',
        allowedBy: ['CETP-6-03'],
      },
    ],
  },
  {
    id: 'argsBytes',
    side: 'consumer',
    note: 6,
    question: 'Does a re-send carry the args bytes first sent, or the args re-serialised?',
    ruleIds: ['CETP-4.3-14', 'CETP-6-03', 'CETP-6-08', 'CETP-4.1-04'],
    readings: [
      {
        name: 'exact',
        value: 'exact',
        does: 'keeps the args string of the logical execution and re-sends it byte for byte',
        allowedBy: ['CETP-4.3-14'],
      },
      {
        name: 'reserialize',
        value: 'reserialize',
        does: 'keeps args as a parsed object and re-serialises it (keys sorted, RFC 8785) for every re-send: the same JSON value, other bytes',
        allowedBy: ['CETP-6-03', 'CETP-6-08', 'CETP-4.1-04'],
      },
    ],
  },
  {
    id: 'sessionMisuse',
    side: 'provider',
    note: 8,
    question: 'Which error does a session token of another UID get?',
    ruleIds: ['CETP-2.2-09', 'CETP-5-07', 'CETP-5-15'],
    readings: [
      {
        name: 'negotiation-required',
        value: 'negotiation_required',
        does: 'answers NEGOTIATION_REQUIRED (retryable): the session is missing for this UID',
        allowedBy: ['CETP-5-07', 'CETP-2.2-09'],
      },
      {
        name: 'invalid-request',
        value: 'invalid_request',
        does: 'answers INVALID_REQUEST (not retryable): token misuse',
        allowedBy: ['CETP-5-15'],
      },
    ],
  },
  {
    id: 'cancelFinished',
    side: 'provider',
    note: 10,
    question: 'What does cancel_operation answer for an operation that already succeeded or failed?',
    ruleIds: ['CETP-4.4-10', 'CETP-4.4-19', 'CETP-4.4-20', 'CETP-4.4-21', 'CETP-5-16'],
    readings: [
      {
        name: 'conflict',
        value: 'conflict',
        does: 'answers CONFLICT (retryable=false): the operation can no longer be cancelled',
        allowedBy: ['CETP-4.4-20', 'CETP-5-16', 'CETP-4.4-21'],
      },
      {
        name: 'accept',
        value: 'accept',
        does: 'answers success with state="cancellation_requested" and changes nothing: success only means the request was received, and only state=cancelled means no effect',
        allowedBy: ['CETP-4.4-10', 'CETP-4.4-19'],
      },
    ],
  },
  {
    id: 'cancelledReplay',
    side: 'provider',
    note: 10,
    question: 'What does a same-id re-send of execute_tool answer once its operation was cancelled?',
    ruleIds: ['CETP-5-20', 'CETP-6-05', 'CETP-6-07', 'CETP-4.4-04'],
    readings: [
      {
        name: 'cancelled-error',
        value: 'cancelled_error',
        does: 'answers the error CANCELLED (the terminal result, 6-05)',
        allowedBy: ['CETP-5-20', 'CETP-6-05'],
      },
      {
        name: 'accepted',
        value: 'accepted',
        does: 'answers accepted with the same operation_id; get_operation then reports state=cancelled (6-07: the same operation)',
        allowedBy: ['CETP-6-07', 'CETP-4.4-04'],
      },
    ],
  },
  {
    id: 'windowStart',
    side: 'provider',
    note: 11,
    question: 'When does the idempotency window of a request start?',
    ruleIds: ['CETP-6-05', 'CETP-2.2-20', 'CETP-5-22', 'CETP-4.4-14'],
    readings: [
      {
        name: 'terminal',
        value: 'terminal',
        does: 'counts the window from the terminal state; after it, RESULT_EXPIRED',
        allowedBy: ['CETP-6-05', 'CETP-5-22'],
      },
      {
        name: 'receipt',
        value: 'receipt',
        does: 'counts the window from the first receipt of the request; after it, RESULT_EXPIRED, also for an operation still running',
        allowedBy: ['CETP-6-05', 'CETP-2.2-20'],
      },
    ],
  },
  {
    id: 'afterWindow',
    side: 'provider',
    note: 11,
    question:
      'A same-id request arrives after its idempotency window: is it RESULT_EXPIRED, or may the provider have forgotten it and run it again?',
    ruleIds: ['CETP-6-01', 'CETP-6-05', 'CETP-5-22', 'CETP-2.2-20'],
    readings: [
      {
        name: 'result-expired',
        value: 'result_expired',
        does: 'keeps a tombstone of the request past the window and answers RESULT_EXPIRED; never runs it again',
        allowedBy: ['CETP-5-22', 'CETP-6-01'],
      },
      {
        name: 're-execute',
        value: 're_execute',
        does: 'drops the record once the window has passed: a same-id request is a new request and runs again',
        allowedBy: ['CETP-6-05', 'CETP-2.2-20'],
        proposed:
          'The reference reads 6-01 (at most one effect per request) and 5-22 (RESULT_EXPIRED) as forbidding a second execution; the text never says so for a synchronous result (NOTES 11), so a wording could allow it.',
      },
    ],
  },
  {
    id: 'hiddenTool',
    side: 'provider',
    note: 14,
    question:
      'A tool hidden from callers without its scope is called by name (the consumer listed it while the caller still held the grant): which error?',
    ruleIds: ['CETP-5-12', 'CETP-3.4-15', 'CETP-7.2-01', 'CETP-7.2-02', 'CETP-5-08', 'CETP-5-11'],
    readings: [
      {
        name: 'not-found',
        value: 'not_found',
        does: 'answers TOOL_NOT_FOUND (retryable=false): a tool invisible to the caller does not exist for it, and its existence is not revealed',
        allowedBy: ['CETP-5-12', 'CETP-7.2-02'],
      },
      {
        name: 'scope-error',
        value: 'scope_error',
        does: 'finds the tool and answers the missing scope: AUTH_REQUIRED with a resolution when the user can grant it (PERMISSION_DENIED when policy never allows the caller)',
        allowedBy: ['CETP-3.4-15', 'CETP-5-08', 'CETP-5-11'],
      },
    ],
  },
  {
    id: 'expiredToken',
    side: 'provider',
    note: 16,
    question: 'What does a resume with an expired resume_token get?',
    ruleIds: ['CETP-4.3-06', 'CETP-9-06', 'CETP-5-15', 'CETP-5-09'],
    readings: [
      {
        name: 'new-confirmation',
        value: 'new_confirmation',
        does: 'asks again: USER_ACTION_REQUIRED with a new resolution and token',
        allowedBy: ['CETP-4.3-06', 'CETP-5-09'],
      },
      {
        name: 'invalid-request',
        value: 'invalid_request',
        does: 'refuses the token: INVALID_REQUEST (retryable=false)',
        allowedBy: ['CETP-4.3-06', 'CETP-5-15'],
      },
    ],
  },
];

/**
 * NOTES items with one defensible reading (or none the simulation can switch), and why — the same
 * reasons spec/interpretations.md gives at length.
 */
export const SINGLE_READING_NOTES: Readonly<Record<number, string>> = {
  1: 'Recording USER_ACTION_REQUIRED as terminal makes the resume that 4.3-07 requires loop forever, and refusing the resume as "different content" (6-04) makes confirmation impossible: neither keeps the system live, so only "pending is not terminal, resume_token is not content" is defensible.',
  3: 'Recording a retryable rejection (RATE_LIMITED, UNAVAILABLE, NEGOTIATION_REQUIRED) as the terminal result makes the same-id retry that 4.1-04 and 6-08 require fail for 24 h: retryable=true would be a lie. Only "terminal = a business outcome after reservation" is defensible.',
  4: 'The provider side has one safe reading (4.1 is the general rule and names every v2 method but negotiate); the reference consumer sends the full 4.1 envelope, which satisfies both readings of a provider, so no pairing can differ.',
  7: 'A resume is not an automatic retry in either reading of 5-09: the reference treats the conditional codes per code (table in interpretations.md); a consumer that auto-retries USER_ACTION_REQUIRED without the user breaks 5-28 regardless of the provider.',
  9: 'Letting the v1 path run write tools or scoped reads bypasses 3.4-15 and 7.2-03 for any app that omits protocol_version: not safe, so not defensible.',
  12: 'The inline size, the Binder-safe limit and the replay of file results are fixed by safety (a committed write must stay reachable): RESULT_TOO_LARGE as a permanent terminal result would report a committed write as failed.',
  13: 'A revision that does not cover session and caller makes a consumer use stale descriptors (3.4-10); only a revision of what this caller sees in this session is safe.',
  15: 'Defaulting a missing annotation (destructive=false) can accept a destructive tool without confirmation (3.4-09): only "disable the tool" is safe.',
  17: 'RATE_LIMITED before reservation, never recorded, is the only answer that keeps a same-id retry live (note 3); a duplicate of an in-flight synchronous R waits and replays.',
  18: 'Applying the dedup check to get_operation / cancel_operation breaks every poll and cancel (4.1-11): not defensible.',
  19: 'A PendingIntent cannot be carried in a JSON error object (4.4-06): every confirmation happens before accepted; there is no second wire form to switch to.',
  20: 'The reference consumer does not validate the echo of a negotiate error; an echo of protocol_version=2 and no request_id satisfies 5-03 as far as negotiate has fields to echo, so no pairing of the reference consumer can differ.',
};

/** A variant by side and id. */
export function variantDef(side: ReadingSide, id: string): VariantDef | undefined {
  return VARIANTS.find((v) => v.side === side && v.id === id);
}

/** The readings of today's text (a proposed reading is left out: `ReadingDef.proposed`). */
export function specReadings(v: VariantDef): readonly ReadingDef[] {
  return v.readings.filter((r) => r.proposed === undefined);
}

/** The notes that have at least one switchable variant (two readings of today's text), ascending. */
export function switchableNotes(): number[] {
  return [...new Set(VARIANTS.filter((v) => specReadings(v).length >= 2).map((v) => v.note))].sort(
    (a, b) => a - b,
  );
}

/** Why a side's readings are not valid (unknown variant or reading), or null. */
export function readingsProblem(
  side: ReadingSide,
  readings: Readonly<Record<string, string>> | undefined,
): string | null {
  for (const [id, name] of Object.entries(readings ?? {})) {
    const def = variantDef(side, id);
    if (!def)
      return `unknown ${side} variant '${id}'; valid: ${VARIANTS.filter((v) => v.side === side)
        .map((v) => v.id)
        .join(', ')}`;
    if (!def.readings.some((r) => r.name === name))
      return `unknown reading '${name}' of ${side} variant '${id}'; valid: ${def.readings.map((r) => r.name).join(', ')}`;
  }
  return null;
}

/**
 * The option values (ProviderVariants / ConsumerVariants) a side's readings set. Unknown names
 * are refused (a RangeError: replay files and the CLI validate before this).
 */
export function readingOptions(
  side: ReadingSide,
  readings: Readonly<Record<string, string>> | undefined,
): Record<string, string | boolean> {
  const problem = readingsProblem(side, readings);
  if (problem) throw new RangeError(problem);
  const options: Record<string, string | boolean> = {};
  for (const [id, name] of Object.entries(readings ?? {})) {
    const def = variantDef(side, id) as VariantDef;
    options[id] = (def.readings.find((r) => r.name === name) as ReadingDef).value;
  }
  return options;
}
