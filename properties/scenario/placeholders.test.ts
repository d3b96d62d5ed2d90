/**
 * `$UID` and `$OWN:field` in args pools (placeholders.ts): before the caller owns an object, `$OWN:`
 * falls back to what the fixture's own pool states literally — never to another provider's id — and
 * a pool with nothing to fall back on is refused when the fixture is checked, naming the field path.
 */
import { describe, expect, it } from 'vitest';
import { notesFixture } from '../../examples/notes-provider/notes.provider.ts';
import { ALERTS } from '../../src/fuzz/scenario/fixtures.ts';
import { type Command, REFERENCE, type Scenario } from '../../src/fuzz/scenario/model.ts';
import {
  fillArgs,
  OwnPlaceholderError,
  outcomeFields,
  ownFallback,
  ownPlaceholderIssues,
  resultFields,
} from '../../src/fuzz/scenario/placeholders.ts';
import { runScenario } from '../../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../../src/fuzz/suites.ts';

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

const execute = (tool: string, args: number) =>
  ({
    kind: 'execute',
    provider: 'alerts',
    tool,
    args,
    rid: { kind: 'fresh' },
    expiredDeadline: false,
    confirmedFlag: false,
    resolve: 'honest',
    duplicates: 0,
  }) as const;

describe('$OTHER:field', () => {
  const other = JSON.stringify({ alert_id: '$OTHER:alert_id' });
  it("is another actor's value once one has it, else the pool's literal fallback", () => {
    const mine = () => 'ALRT-9';
    expect(fillArgs(other, 1, mine, ALERTS_DELETE, (f) => (f === 'alert_id' ? 'ALRT-4' : undefined))).toBe(
      '{"alert_id":"ALRT-4"}',
    );
    expect(fillArgs(other, 1, mine, ALERTS_DELETE)).toBe('{"alert_id":"ALRT-1"}');
  });

  it('a pool with nothing to fall back on is refused, naming the placeholder', () => {
    expect(ownPlaceholderIssues({ get_note: [{ note_id: '$OTHER:note_id' }] })).toEqual([
      { path: 'tools.get_note[0].note_id', message: expect.stringMatching(/^\$OTHER:note_id has nothing/) },
    ]);
    expect(ownPlaceholderIssues({ get_note: [{ note_id: '$OTHER:note_id' }, { note_id: 'N-1' }] })).toEqual(
      [],
    );
  });
});

describe('$OWN:field resolves from what the caller got back', () => {
  it('reads the value of an inline result and of a succeeded operation, not the wrapper', () => {
    const value = { alert_id: 'ALRT-7', price: 3 };
    expect(resultFields({ kind: 'inline', value })).toEqual([['alert_id', 'ALRT-7']]);
    expect(resultFields({ state: 'succeeded', result: { kind: 'inline', value } })).toEqual([
      ['alert_id', 'ALRT-7'],
    ]);
    expect(resultFields({ state: 'running', operation_id: 'op' })).toEqual([]);
    expect(resultFields({ kind: 'file', mime_type: 'application/json' })).toEqual([]);
    expect(outcomeFields({ kind: 'ok', untrusted: { value } }).get('alert_id')).toBe('ALRT-7');
  });

  it("a raw-driver delete of '$OWN:alert_id' acts on the alert the caller created last", async () => {
    const p = PROPERTIES.find((x) => x.id === 'idempotency');
    if (p?.kind !== 'raw') throw new Error('the idempotency property drives the raw driver');
    const poll = [
      { kind: 'wait', ms: 3_000 },
      { kind: 'poll', other: false },
    ] as const;
    const scenario: Scenario = {
      seed: 1,
      tail: 'pct',
      actors: {
        // Two alerts (async creates, their results read by polling), then a delete of the caller's own.
        a: [
          execute('create_alert', 0),
          ...poll,
          execute('create_alert', 2),
          ...poll,
          execute('delete_alert', 0),
        ],
        b: [{ kind: 'wait', ms: 10 }],
      },
      user: [],
      faults: [],
      decisions: [],
    };
    const run = await runScenario(p.fixture, scenario, REFERENCE);
    const created = run.observation.calls.flatMap((c) =>
      c.method === 'get_operation' ? resultFields(c.reply.kind === 'bundle' ? c.reply.data : null) : [],
    );
    // Two ids (polled again when the run settles); the fallback before the caller owns one is ALRT-1.
    const ids = [...new Set(created.map(([, id]) => id))];
    expect(ids).toHaveLength(2);
    const last = ids[1];
    expect(last).not.toBe('ALRT-1');
    const deletes = run.observation.calls.filter((c) => c.toolName === 'delete_alert');
    expect(deletes.length).toBeGreaterThan(0);
    for (const d of deletes) expect(d.args).toBe(JSON.stringify({ alert_id: last }));
  });

  const idempotency = () => {
    const p = PROPERTIES.find((x) => x.id === 'idempotency');
    if (p?.kind !== 'raw') throw new Error('the idempotency property drives the raw driver');
    return p;
  };
  const scenarioOf = (a: readonly Command[], b: readonly Command[]): Scenario => ({
    seed: 1,
    tail: 'pct',
    actors: { a, b },
    user: [],
    faults: [],
    decisions: [],
  });
  /** The ids the caller's get_operation answers carried, first seen first. */
  const createdIds = (run: Awaited<ReturnType<typeof runScenario>>) => [
    ...new Set(
      run.observation.calls.flatMap((c) =>
        c.method === 'get_operation'
          ? resultFields(c.reply.kind === 'bundle' ? c.reply.data : null).map(([, id]) => id)
          : [],
      ),
    ),
  ];

  it('an async create is polled before a later $OWN: command, with no poll command in between', async () => {
    // Without the poll the delete would get the fallback ALRT-1 (the creates' ids are known only once polled).
    const a = [execute('create_alert', 0), execute('create_alert', 2), execute('delete_alert', 0)];
    const run = await runScenario(
      idempotency().fixture,
      scenarioOf(a, [{ kind: 'wait', ms: 10 }]),
      REFERENCE,
    );
    const ids = createdIds(run);
    expect(ids).toEqual(['ALRT-1', 'ALRT-2']);
    const deletes = run.observation.calls.filter((c) => c.toolName === 'delete_alert');
    expect(deletes.length).toBeGreaterThan(0);
    for (const d of deletes) expect(d.args).toBe(JSON.stringify({ alert_id: 'ALRT-2' }));
    // The poll came before the delete.
    const firstPoll = run.observation.calls.findIndex((c) => c.method === 'get_operation');
    const firstDelete = run.observation.calls.findIndex((c) => c.toolName === 'delete_alert');
    expect(firstPoll).toBeGreaterThanOrEqual(0);
    expect(firstPoll).toBeLessThan(firstDelete);
  });

  it("a raw-driver delete of '$OTHER:alert_id' names the other actor's alert", async () => {
    const fixture = idempotency().fixture;
    const alerts = fixture.providers.find((x) => x.name === 'alerts');
    if (!alerts) throw new Error('the idempotency fixture has alerts');
    const crossDelete = { alert_id: '$OTHER:alert_id' };
    const misuse = {
      ...alerts,
      tools: { ...alerts.tools, delete_alert: [crossDelete, { alert_id: 'ALRT-1' }] },
    };
    const providers = fixture.providers.map((x) => (x === alerts ? misuse : x));
    const poll = [
      { kind: 'wait', ms: 3_000 },
      { kind: 'poll', other: false },
    ] as const;
    const scenario = scenarioOf(
      [execute('create_alert', 0), ...poll, execute('create_alert', 2), ...poll],
      [{ kind: 'wait', ms: 30_000 }, execute('delete_alert', 0)],
    );
    const run = await runScenario({ ...fixture, providers }, scenario, REFERENCE);
    const ids = createdIds(run);
    expect(ids).toHaveLength(2);
    expect(ids[1]).not.toBe('ALRT-1');
    const deletes = run.observation.calls.filter((c) => c.toolName === 'delete_alert');
    expect(deletes.length).toBeGreaterThan(0);
    // The other actor's latest alert, refused to this caller (the reference filters by owner).
    for (const d of deletes) expect(d.args).toBe(JSON.stringify({ alert_id: ids[1] }));
  });
});
