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

/**
 * When the record's run of a break differs from the matrix's today — other oracles broke it (the code
 * moved since the wording was checked) — a note that the wording must be checked again; else ''.
 */
export function recheckNote(
  w: Pick<WordingReport, 'breaks'>,
  result: {
    readonly pairing: { readonly id: string };
    readonly properties: readonly {
      readonly property: string;
      readonly status: string;
      readonly checker?: string;
    }[];
  },
): string {
  const recorded = w.breaks.find((b) => b.pairing === result.pairing.id);
  if (!recorded) return '';
  const key = (p: { property: string; checker?: string }) => `${p.property}/${p.checker ?? '?'}`;
  const then = recorded.broken.map(key).sort();
  const now = result.properties
    .filter((p) => p.status === 'failed')
    .map(key)
    .sort();
  if (then.join(' ') === now.join(' ')) return '';
  return ` — **to re-check**: checked when the break was by ${then.join(', ')}; the matrix now breaks it by ${now.join(', ')}`;
}
