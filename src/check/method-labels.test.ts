/**
 * methodLabels (method-labels.ts) against the quadratic scans it replaced (frequencies.ts at
 * 4d44d2f, kept here as the reference): the same labels, added in the same order, for arbitrary
 * calls — unanswered ones, answers before or after later calls, calls out of step order, made-up
 * method names — so `fuzz --json`'s label counts cannot move.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { methodLabels } from './method-labels.ts';
import type { CallView } from './observation.ts';
import { callView } from './testing.ts';

const KNOWN: ReadonlySet<string> = new Set([
  'negotiate',
  'execute_tool',
  'get_operation',
  'cancel_operation',
]);

/** The scans of 4d44d2f, verbatim but for the method filter's set. */
function reference(all: readonly CallView[], labels: Set<string>): void {
  const calls = all.filter((c) => KNOWN.has(c.method));
  const byKey = new Map<string, CallView[]>();
  for (const c of calls) {
    const key = `${c.provider}|${c.caller}|${c.method}|${c.method === 'negotiate' ? '' : (c.requestId ?? '')}`;
    const same = byKey.get(key);
    if (same) {
      let dup = false;
      let rep = false;
      for (const prior of same) {
        const end = prior.replyStep ?? Number.POSITIVE_INFINITY;
        if (c.step < end ? dup : rep) continue;
        if (c.step < end) dup = true;
        else rep = true;
        labels.add(`method:${c.method}:${c.step < end ? 'duplicated' : 'repeated'}`);
        if (dup && rep) break;
      }
      same.push(c);
    } else byKey.set(key, [c]);
  }
  const byProvider = new Map<string, CallView[]>();
  for (const c of calls) byProvider.set(c.provider, [...(byProvider.get(c.provider) ?? []), c]);
  const raced = new Map<string, Set<string>>();
  for (const list of byProvider.values()) {
    for (let i = 0; i < list.length; i++) {
      const a = list[i] as CallView;
      const aEnd = a.replyStep ?? Number.POSITIVE_INFINITY;
      for (let j = i + 1; j < list.length; j++) {
        const b = list[j] as CallView;
        if (b.step >= aEnd) continue;
        const [m1, m2] = b.method < a.method ? [b.method, a.method] : [a.method, b.method];
        const seconds = raced.get(m1) ?? new Set<string>();
        raced.set(m1, seconds);
        if (seconds.has(m2)) continue;
        seconds.add(m2);
        labels.add(`race:${m1}+${m2}`);
      }
    }
  }
}

const call = fc.record({
  provider: fc.constantFrom('com.a', 'com.b'),
  caller: fc.constantFrom('com.x', 'com.y'),
  method: fc.constantFrom('negotiate', 'execute_tool', 'get_operation', 'cancel_operation', 'made_up'),
  requestId: fc.constantFrom(null, 'r1', 'r2'),
  step: fc.integer({ min: 0, max: 40 }),
  answeredAfter: fc.option(fc.integer({ min: 0, max: 15 }), { nil: null }),
});

type Spec = typeof call extends fc.Arbitrary<infer T> ? T : never;

function views(specs: readonly Spec[]) {
  return specs.map((s, i) =>
    callView({
      id: i + 1,
      provider: s.provider,
      caller: s.caller,
      method: s.method,
      requestId: s.requestId,
      step: s.step,
      replyStep: s.answeredAfter === null ? null : s.step + s.answeredAfter,
    }),
  );
}

describe('methodLabels', () => {
  it('gives the labels of the quadratic scans, in their order (calls in step order or not)', () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 30 }), fc.boolean(), (specs, sorted) => {
        const calls = views(sorted ? [...specs].sort((a, b) => a.step - b.step) : specs);
        const want = new Set<string>(['seed-label']);
        const got = new Set<string>(['seed-label']);
        reference(calls, want);
        methodLabels(calls, KNOWN, got);
        expect([...got]).toEqual([...want]);
      }),
      { numRuns: 2_000, seed: 37 },
    );
  });

  it('labels a duplicate, a repeat and a race, and nothing for a made-up method', () => {
    const labels = new Set<string>();
    methodLabels(
      views([
        {
          provider: 'com.a',
          caller: 'com.x',
          method: 'negotiate',
          requestId: null,
          step: 1,
          answeredAfter: 5,
        },
        {
          provider: 'com.a',
          caller: 'com.x',
          method: 'negotiate',
          requestId: null,
          step: 2,
          answeredAfter: 1,
        },
        {
          provider: 'com.a',
          caller: 'com.x',
          method: 'negotiate',
          requestId: null,
          step: 9,
          answeredAfter: 1,
        },
        {
          provider: 'com.a',
          caller: 'com.x',
          method: 'made_up',
          requestId: null,
          step: 9,
          answeredAfter: null,
        },
      ]),
      KNOWN,
      labels,
    );
    expect([...labels]).toEqual([
      'method:negotiate:duplicated',
      'method:negotiate:repeated',
      'race:negotiate+negotiate',
    ]);
  });
});
