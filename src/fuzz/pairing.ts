/**
 * A pairing of the interpretation matrix: for one NOTES entry, the readings its provider-side and
 * consumer-side variants take. One home for its shape, its id and whether it is today's reference,
 * shared by the matrix (every combination) and `propose` (the combinations a new wording allows).
 */
import { type ReadingSide, variantDef } from '../protocol/readings.ts';

/** One pairing: the readings of a note's variants, on each side (every variant of the note named). */
export interface Pairing {
  readonly note: number;
  /** `note02-p-replay-c-resend`: a file-name-safe id. */
  readonly id: string;
  readonly provider: Readonly<Record<string, string>>;
  readonly consumer: Readonly<Record<string, string>>;
  /** Whether every reading is the reference's. */
  readonly reference: boolean;
}

type Readings = Readonly<Record<string, string>>;

/** Whether every reading named is its variant's first (today's, the reference's) on `side`. */
export function isReference(side: ReadingSide, readings: Readings): boolean {
  return Object.entries(readings).every(([id, name]) => variantDef(side, id)?.readings[0].name === name);
}

/** The readings' names joined, `ref` for none: the readings part of a pairing's id. */
export function label(readings: Readings): string {
  const names = Object.values(readings);
  return names.length === 0 ? 'ref' : names.join('-');
}

/** The pairings of `note`: each provider-side combination with each consumer-side one, in that order. */
export function pairingsAcross(
  note: number,
  providers: readonly Readings[],
  consumers: readonly Readings[],
): Pairing[] {
  return providers.flatMap((provider) =>
    consumers.map((consumer) => ({
      note,
      id: `note${String(note).padStart(2, '0')}-p-${label(provider)}-c-${label(consumer)}`,
      provider,
      consumer,
      reference: isReference('provider', provider) && isReference('consumer', consumer),
    })),
  );
}
