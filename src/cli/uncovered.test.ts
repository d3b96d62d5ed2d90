import { describe, expect, it } from 'vitest';
import { parseUncovered } from './uncovered.ts';

describe('spec/uncovered.md parsing', () => {
  it('reads list items and table rows; the first rule id on a line is the entry, the rest its reason', () => {
    const text = [
      '# Uncovered',
      'Prose mentioning CETP-1-01 is not an entry.',
      '- CETP-4.4-09 — needs a second device (see CETP-4.4-10)',
      '* CETP-2.2-07: unpredictability is not observable',
      '| rule | reason |',
      '|---|---|',
      '| CETP-6-05 | the window is a day of virtual time |',
    ].join('\n');
    expect(parseUncovered(text)).toEqual({
      entries: [
        { rule: 'CETP-4.4-09', reason: 'needs a second device (see CETP-4.4-10)', line: 3 },
        { rule: 'CETP-2.2-07', reason: 'unpredictability is not observable', line: 4 },
        { rule: 'CETP-6-05', reason: 'the window is a day of virtual time', line: 7 },
      ],
      problems: [],
    });
  });

  it('reports an entry without a reason and a rule listed twice', () => {
    const { problems } = parseUncovered('- CETP-8-02 —\n- CETP-8-03 reason\n- CETP-8-03 again');
    expect(problems).toEqual([
      'line 1: CETP-8-02 has no reason',
      'line 3: CETP-8-03 is already listed on line 2',
    ]);
  });
});
