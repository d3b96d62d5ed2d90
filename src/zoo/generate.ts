/**
 * The zoo's generator: fast-check arbitraries over app descriptions (spec.ts), the shapes users
 * write — one record kind with string, integer, boolean and nested fields (some optional), a create
 * tool and one or more read tools, optionally update, delete and a large export, every confirmation
 * policy, sync and async writes with a long preparation, free or user-granted scopes, v2-only or
 * dual stack, ids from a counter or from the app's PRNG. App `i` of seed `s` depends on (s, i) only:
 * asking for more apps never changes the first ones.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { AppSpec, EntitySpec, FieldSpec, ToolSpec } from './spec.ts';
import { manifestVariantOf } from './variants.ts';

const NOUNS = [
  ['note', 'notes', 'NOTE'],
  ['task', 'tasks', 'TASK'],
  ['contact', 'contacts', 'CON'],
  ['event', 'events', 'EVT'],
  ['booking', 'bookings', 'BKG'],
  ['expense', 'expenses', 'EXP'],
  ['habit', 'habits', 'HAB'],
  ['recipe', 'recipes', 'RCP'],
  ['reminder', 'reminders', 'REM'],
  ['ticket', 'tickets', 'TKT'],
] as const;

const FIRST_STRINGS = ['title', 'name', 'label', 'subject'] as const;

const EXTRA_FIELDS: readonly Omit<FieldSpec, 'optional'>[] = [
  { name: 'body', type: 'string' },
  { name: 'city', type: 'string' },
  { name: 'amount', type: 'integer' },
  { name: 'priority', type: 'integer' },
  { name: 'done', type: 'boolean' },
  { name: 'pinned', type: 'boolean' },
  {
    name: 'details',
    type: 'object',
    fields: [
      { name: 'place', type: 'string', optional: false },
      { name: 'level', type: 'integer', optional: true },
    ],
  },
  {
    name: 'schedule',
    type: 'object',
    fields: [
      { name: 'day', type: 'integer', optional: false },
      { name: 'note', type: 'string', optional: true },
    ],
  },
];

const entityArb: fc.Arbitrary<EntitySpec> = fc
  .record({
    noun: fc.constantFrom(...NOUNS),
    first: fc.constantFrom(...FIRST_STRINGS),
    extras: fc.subarray([...EXTRA_FIELDS], { minLength: 0, maxLength: 4 }),
    optional: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    ids: fc.constantFrom('counter' as const, 'uuid' as const),
  })
  .map(({ noun, first, extras, optional, ids }) => ({
    noun: noun[0],
    plural: noun[1],
    idPrefix: noun[2],
    ids,
    fields: [
      { name: first, type: 'string' as const, optional: false },
      ...extras.map((f, i) => ({ ...f, optional: optional[i] ?? false })),
    ],
  }));

const readArb = (kind: 'list' | 'get' | 'export'): fc.Arbitrary<ToolSpec> =>
  fc.constant({
    kind,
    confirmation: 'never',
    risk: 'low',
    async: false,
    prepareSteps: 0,
    stepMs: 0,
    asksCancel: true,
  });

const writeArb = (kind: 'create' | 'update' | 'delete'): fc.Arbitrary<ToolSpec> =>
  fc
    .record({
      confirmation:
        kind === 'delete'
          ? fc.constant('always' as const)
          : fc.constantFrom('never' as const, 'always' as const, 'provider_policy' as const),
      risk: fc.constantFrom('low' as const, 'moderate' as const, 'high' as const),
      async: fc.boolean(),
      prepareSteps: fc.integer({ min: 1, max: 4 }),
      stepMs: fc.constantFrom(100, 500, 2_000),
    })
    .map((t) => ({
      kind,
      confirmation: t.confirmation,
      // 3.4-09: risk high needs confirmation always; a delete is at least moderate.
      risk:
        t.risk === 'high' && t.confirmation !== 'always'
          ? 'moderate'
          : kind === 'delete' && t.risk === 'low'
            ? 'moderate'
            : t.risk,
      async: t.async,
      prepareSteps: t.async ? t.prepareSteps : 0,
      stepMs: t.async ? t.stepMs : 0,
      // Derived from what is drawn (so every app of a seed stays the app it was): a quarter of the
      // async writes never ask whether they were cancelled (ToolSpec.asksCancel).
      asksCancel: !(t.async && t.prepareSteps === 1),
    }));

/** One app description (its index given: names derive from it). */
export function appArb(index: number): fc.Arbitrary<AppSpec> {
  return fc
    .record({
      entity: entityArb,
      reads: fc.subarray(['list', 'get', 'export'] as const, { minLength: 1 }),
      update: fc.option(writeArb('update'), { nil: undefined }),
      delete: fc.option(writeArb('delete'), { nil: undefined }),
      create: writeArb('create'),
      auth: fc.constantFrom('user' as const, 'free-read' as const, 'free-all' as const),
      versions: fc.constantFrom([2] as const, [1, 2] as const),
      refusedValue: fc.constantFrom('REFUSED', 'forbidden', 'blocked'),
    })
    .chain((r) =>
      fc.tuple(...r.reads.map(readArb)).map((reads) => ({
        index,
        entity: r.entity,
        tools: [...reads, r.create, ...(r.update ? [r.update] : []), ...(r.delete ? [r.delete] : [])],
        auth: r.auth,
        versions: [...r.versions],
        refusedValue: r.refusedValue,
      })),
    );
}

/** The fast-check seed of app `index` in the zoo seeded `seed` (a hash: no app depends on another). */
export function appSeed(seed: number, index: number): number {
  return createHash('sha256').update(`zoo/${seed}/${index}`).digest().readUInt32BE(0) & 0x7fffffff;
}

/** App `index` of the zoo seeded `seed`: the same description for the same (seed, index). */
export function generateApp(seed: number, index: number): AppSpec {
  const [app] = fc.sample(appArb(index), { seed: appSeed(seed, index), numRuns: 1 });
  if (app === undefined) throw new Error('fast-check gave no sample');
  // Not drawn above: the drawn description of every app stays what it was before the variants.
  return { ...app, manifest: manifestVariantOf(seed, index) };
}

/** Apps `0 … count-1` of the zoo seeded `seed`. */
export function generateApps(seed: number, count: number): AppSpec[] {
  return Array.from({ length: count }, (_, i) => generateApp(seed, i));
}
