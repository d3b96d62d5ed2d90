/**
 * The releases a matrix break holds on (matrix-releases.ts) and the re-check mark of a wording whose
 * record no longer matches its break (wordings-record.ts): a break is said to hold on a release only
 * when that release's re-run broke it by the same oracles; another verdict, other oracles or no re-run
 * are said as such; a pairing that breaks on another release only is listed.
 */
import { describe, expect, it } from 'vitest';
import { pairingVariant } from '../fuzz/matrix.ts';
import { mergeRelease, otherReleaseBreaks, releasesLine } from './matrix-releases.ts';
import type { MatrixResult, PairingResult } from './matrix-results.ts';
import { recheckNote } from './wordings-record.ts';

const pairing = (id: string) => ({ note: 2, id, provider: {}, consumer: {}, reference: false });

function result(id: string, verdict: PairingResult['verdict'], checkers: string[] = []): PairingResult {
  return {
    pairing: pairing(id),
    verdict,
    properties: checkers.map((c) => ({
      property: 'consumer',
      status: 'failed' as const,
      runs: 1,
      checker: c,
    })),
    divergent: { consumer: 1 },
  };
}

const matrix = (pairings: PairingResult[]): MatrixResult => ({ seed: 0, runs: 200, notes: [2], pairings });

describe('releases of matrix breaks', () => {
  const a = result('a', 'breaks', ['x']);
  const b = result('b', 'interoperates');
  let record = mergeRelease(null, matrix([a, b]), 14);
  record = mergeRelease(record, matrix([a, result('b', 'breaks', ['y'])]), 15);

  it('holds only where the re-run broke it by the same oracles; says what is missing', () => {
    const line = releasesLine(record, a);
    expect(line).toContain('breaks by the same oracles on Android 14 and 15');
    expect(line).toContain('not re-run on Android 16');
    const other = mergeRelease(record, matrix([result('a', 'breaks', ['z'])]), 16);
    expect(releasesLine(other, a)).toContain('Android 16: breaks by consumer (`z`)');
    const fixed = mergeRelease(record, matrix([result('a', 'interoperates')]), 16);
    expect(releasesLine(fixed, a)).toContain('Android 16: interoperates');
    expect(releasesLine(fixed, a)).not.toContain('on Android 14, 15 and 16');
  });

  it('lists a pairing that breaks on another release only', () => {
    expect(otherReleaseBreaks(record, matrix([a, b]), 14)).toEqual([
      '- `b` breaks on Android 15 only by consumer (`y`) (here: interoperates).',
    ]);
  });

  it('a re-run with other seed or runs starts its release afresh', () => {
    const again = mergeRelease(record, { ...matrix([b]), runs: 20 }, 15);
    expect(Object.keys(again.releases['15']?.pairings ?? {})).toEqual(['b']);
  });

  it('a pairing runs on the release profile asked for', () => {
    expect(pairingVariant(pairing('a'), 16).android).toBe(16);
    expect('android' in pairingVariant(pairing('a'))).toBe(false);
  });
});

describe('a wording checked against another break', () => {
  const w = {
    breaks: [
      {
        pairing: 'a',
        describe: 'a',
        outcome: 'closed' as const,
        broken: [{ property: 'consumer', checker: 'x', ruleIds: [], message: '' }],
      },
    ],
  };
  it('is marked to re-check when the matrix breaks the pairing by other oracles, and not otherwise', () => {
    expect(recheckNote(w, result('a', 'breaks', ['x']))).toBe('');
    expect(recheckNote(w, result('a', 'breaks', ['x', 'y']))).toContain('to re-check');
  });
});
