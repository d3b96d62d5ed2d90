/**
 * `$UID` and `$OWN:field` in args pools (placeholders.ts): before the caller owns an object, `$OWN:`
 * falls back to what the fixture's own pool states literally — never to another provider's id — and
 * a pool with nothing to fall back on is refused when the fixture is checked, naming the field path.
 */
import { describe, expect, it } from 'vitest';
import { notesFixture } from '../../examples/notes-provider/notes.provider.ts';
import { ALERTS } from '../../src/fuzz/scenario/fixtures.ts';
import {
  fillArgs,
  OwnPlaceholderError,
  ownFallback,
  ownPlaceholderIssues,
} from '../../src/fuzz/scenario/placeholders.ts';

const NOTES_DELETE = notesFixture.tools.delete_note ?? [];
const ALERTS_DELETE = ALERTS.tools.delete_alert ?? [];
const own = JSON.stringify({ note_id: '$OWN:note_id' });

describe('$OWN:field', () => {
  it("falls back to the pool's own literal value before the caller owns one (not another provider's id)", () => {
    expect(fillArgs(own, 10_001, undefined, NOTES_DELETE)).toBe('{"note_id":"NOTE-1"}');
    expect(ownFallback(ALERTS_DELETE, 'alert_id')).toBe('ALRT-1');
    expect(fillArgs(JSON.stringify({ alert_id: '$OWN:alert_id' }), 1, undefined, ALERTS_DELETE)).toBe(
      '{"alert_id":"ALRT-1"}',
    );
  });

  it("is the caller's own latest value once there is one, spliced in as JSON text", () => {
    expect(fillArgs(own, 1, (f) => (f === 'note_id' ? 'NOTE-7' : undefined), NOTES_DELETE)).toBe(
      '{"note_id":"NOTE-7"}',
    );
    const odd = fillArgs(own, 1, () => 'a "quoted" \\ id', NOTES_DELETE);
    expect(JSON.parse(odd)).toEqual({ note_id: 'a "quoted" \\ id' });
  });

  it('fills $UID in the args and in a fallback', () => {
    const pool = [{ account: '$OWN:account' }, { account: 'CHK-$UID' }];
    expect(fillArgs(JSON.stringify(pool[0]), 42, undefined, pool)).toBe('{"account":"CHK-42"}');
  });

  it('with nothing to fall back on, an unchecked pool throws instead of testing some other object', () => {
    expect(() => fillArgs(own, 1, undefined, [{ note_id: '$OWN:note_id' }])).toThrow(OwnPlaceholderError);
  });

  it('a fixture whose pool cannot fill a placeholder is refused, naming the field path', () => {
    expect(ownPlaceholderIssues(notesFixture.tools)).toEqual([]);
    expect(ownPlaceholderIssues(ALERTS.tools)).toEqual([]);
    const issues = ownPlaceholderIssues({
      delete_note: [{ note_id: '$OWN:note_id' }],
      archive: [{ ids: ['$OWN:Note'] }, { ids: ['x'] }],
    });
    expect(issues).toEqual([
      {
        path: 'tools.delete_note[0].note_id',
        message: expect.stringMatching(
          /^\$OWN:note_id has nothing to stand for it until the caller owns one: add an entry that gives note_id literally to tools\.delete_note/,
        ),
      },
      {
        path: 'tools.archive[0].ids[0]',
        message: expect.stringMatching(/must be followed by a field name in snake_case/),
      },
    ]);
  });
});
