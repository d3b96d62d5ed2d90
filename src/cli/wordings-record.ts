/**
 * The recorded outcomes of the repository's proposed wordings (spec/wordings/verified.json, written by
 * `cetp-sim propose spec/wordings/*.json --record spec/wordings/verified.json`), which spec/matrix.md
 * prints under each break and in its own section. Absent or unreadable: nothing is printed.
 */
import { readFileSync } from 'node:fs';
import type { ProposeResult, WordingReport } from './matrix-results.ts';

const RECORD = new URL('../../spec/wordings/verified.json', import.meta.url);

/** The committed record, or null. */
export function loadWordingRecord(): ProposeResult | null {
  try {
    return JSON.parse(readFileSync(RECORD, 'utf8')) as ProposeResult;
  } catch {
    return null;
  }
}

/** The wordings of the record that close (or leave open) the break of `pairingId`. */
export function wordingsFor(record: ProposeResult | null, pairingId: string): WordingReport[] {
  return (record?.wordings ?? []).filter((w) =>
    w.breaks.some((b) => b.pairing === pairingId && b.outcome !== 'new'),
  );
}

/** The one-line outcome of a wording, as spec/matrix.md records it. */
export function outcomeLine(
  w: Pick<WordingReport, 'verified' | 'closes' | 'stillOpen' | 'opens' | 'notReached'>,
): string {
  const head = w.verified ? 'verified' : 'NOT verified';
  const open = w.stillOpen > 0 ? `, leaves ${w.stillOpen} open` : '';
  const unreached = w.notReached.length > 0 ? `, ${w.notReached.length} pairing(s) not reached` : '';
  return `${head}: closes ${w.closes}${open}, opens ${w.opens}${unreached}`;
}
