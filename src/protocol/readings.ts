/**
 * The interpretation registry: every reading of an ambiguous point of CETP v2 (NOTES §2) that the
 * reference provider or consumer can be switched to. A variant is one decision the spec leaves
 * open; each of its readings is defensible from the spec's text (rule ids cited), and the first
 * one is the reference's (spec/interpretations.md). Readings are not bugs: `cetp-sim matrix` pairs
 * a provider reading with a consumer reading of the same note and reports whether the pair
 * interoperates. The provider SDK (src/providers/sdk/readings.ts) and the consumer
 * (src/consumer/readings.ts) implement them; the findings for spec authors live in
 * readings-findings.ts beside this file. Plain data (readings.json): no behaviour here.
 */

import VARIANT_DATA from './readings.json' with { type: 'json' };

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

/** readings.json's entries, checked where its type cannot be (a slip fails at load, naming the variant). */
function checkedVariants(
  data: readonly { readonly id: string; readonly side: string; readonly readings: readonly object[] }[],
): readonly VariantDef[] {
  for (const v of data)
    if ((v.side !== 'provider' && v.side !== 'consumer') || v.readings.length < 2)
      throw new Error(
        `readings.json: variant ${v.id} needs side provider or consumer, and two readings or more`,
      );
  return data as unknown as readonly VariantDef[];
}

/**
 * Every variant, in NOTES order: readings.json, plain data shaped as VariantDef (readings.test.ts
 * checks its fields and rule ids).
 */
export const VARIANTS: readonly VariantDef[] = checkedVariants(VARIANT_DATA);

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
