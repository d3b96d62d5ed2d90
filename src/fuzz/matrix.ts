/**
 * The interpretation matrix (`cetp-sim matrix`): for each NOTES item with switchable readings
 * (src/protocol/readings.ts), every pairing of the provider's readings with the consumer's — the
 * full product, which is small (at most 2 × 2 per side today) — run through the consumer-driven
 * properties (the reference consumer driving the reference providers, each side made with its
 * readings). A pairing interoperates when every property holds, and breaks when one fails: the
 * property's shrunk replay says how. Deterministic: every pairing runs the same scenarios (the
 * properties' seeds derive from the campaign seed alone), so two pairings differ only by their
 * readings.
 */
import fc from 'fast-check';
import type { Checker } from '../check/checker.ts';
import { requestIdOnWire } from '../check/checkers/agent.ts';
import { requestIdStable, retryDiscipline } from '../check/checkers/consumer.ts';
import { approvalBinding, authorizedEffect, singleEffect } from '../check/checkers/effects.ts';
import { agentNotRefusedAsMisuse, agentOutcomeTruth } from '../check/checkers/interop.ts';
import { noFdLeaks, runProgress } from '../check/checkers/runtime.ts';
import { listMatchesVisibility } from '../check/checkers/visibility.ts';
import { CONSUMER_PACKAGE } from '../consumer/app.ts';
import {
  type ReadingRun,
  type ReadingSide,
  specReadings,
  VARIANTS,
  type VariantDef,
} from '../protocol/readings.ts';
import type { Fault } from '../sim/core/faults.ts';
import type { AndroidRelease } from '../sim/core/release.ts';
import type { Readings } from '../subjects/subjects.ts';
import { propertySeed } from './fuzz.ts';
import { SITUATIONS, type Situation, withSituation } from './matrix-situations.ts';
import { isReference, label, type Pairing, pairingsAcross } from './pairing.ts';
import { consumerScenarioArb, runConsumerScenario } from './scenario/consumer.ts';
import { ALERTS, PAYMENTS } from './scenario/fixtures.ts';
import type { Variant } from './scenario/model.ts';
import { type ConsumerPropertyDef, propertyById } from './suites.ts';

export type { Pairing } from './pairing.ts';

/** Runs per property and pairing by default (the whole matrix in a few minutes on 2 cores). */
export const DEFAULT_MATRIX_RUNS = 200;

const loseReplyTo = (callee: string): Fault => ({ kind: 'loseReply', callee, caller: CONSUMER_PACKAGE });

const INTEROP_CHECKERS: readonly Checker[] = [
  agentOutcomeTruth,
  agentNotRefusedAsMisuse,
  singleEffect,
  approvalBinding,
  authorizedEffect,
  retryDiscipline,
  requestIdStable,
  requestIdOnWire,
  noFdLeaks,
  runProgress,
  listMatchesVisibility,
];

/**
 * The matrix's own consumer-driven property: the reference consumer executing the confirmed and
 * asynchronous write tools while the replies to it get lost (so it retries, re-sends resume tokens
 * and queries), either process dies, and the clock jumps past a resume token's life (11 min) or the
 * idempotency window (25 h) — the situations the NOTES items' readings decide. Its oracles judge
 * what the agent was finally told against the world (interop.ts) besides the usual safety oracles.
 */
export const MATRIX_INTEROP: ConsumerPropertyDef = {
  kind: 'consumer',
  id: 'matrix-interop',
  title:
    'readings paired: confirmed and async writes through lost replies, restarts, token expiry and the idempotency window',
  area: 'CETP-9-06',
  fixture: { providers: [ALERTS, PAYMENTS], checkers: INTEROP_CHECKERS },
  shape: {
    providers: [ALERTS, PAYMENTS],
    tools: [
      'alerts.create_alert',
      'alerts.delete_alert',
      'payments.transfer',
      'payments.reconcile_accounts',
      'payments.export_statement',
    ],
    hostileCases: [],
    maxThreads: 2,
    maxCommands: 3,
    restarts: true,
    faults: [
      loseReplyTo(ALERTS.packageName),
      loseReplyTo(PAYMENTS.packageName),
      loseReplyTo(ALERTS.packageName),
      loseReplyTo(PAYMENTS.packageName),
      { kind: 'kill', process: PAYMENTS.packageName },
      { kind: 'kill', process: CONSUMER_PACKAGE },
      { kind: 'clockJump', ms: 11 * 60_000 },
      { kind: 'clockJump', ms: 25 * 3_600_000 },
    ],
    maxFaults: 3,
  },
  checkers: INTEROP_CHECKERS,
  ruleIds: [...INTEROP_CHECKERS.flatMap((c) => c.ruleIds), 'CETP-9-06'].filter(
    (id, i, all) => all.indexOf(id) === i,
  ),
  ciRuns: 25,
};

/** The consumer-driven properties every pairing runs: the matrix's own, then the reference consumer's end-to-end one. */
export const MATRIX_PROPERTIES: readonly ConsumerPropertyDef[] = [
  MATRIX_INTEROP,
  propertyById('consumer') as ConsumerPropertyDef,
];

/** The write tools a situation acts on, by note: the ones whose requests reach its deciding moment. */
const SITUATION_TOOLS: Readonly<Record<number, readonly string[]>> = {
  5: ['alerts.create_alert', 'alerts.delete_alert', 'payments.transfer', 'payments.reconcile_accounts'],
  8: ['alerts.create_alert', 'payments.transfer', 'payments.reconcile_accounts'],
  10: ['payments.transfer', 'payments.reconcile_accounts'],
  11: ['alerts.create_alert', 'alerts.delete_alert', 'payments.transfer', 'payments.reconcile_accounts'],
  16: ['alerts.create_alert', 'alerts.delete_alert', 'payments.transfer'],
  14: ['alerts.clear_alerts'],
};

/**
 * A note's situation property (src/fuzz/matrix-situations.ts): the matrix-interop oracles on
 * consumer scenarios of the note's tools in a world where the situation makes the deciding moment
 * happen (a lost reply and a clock that moves, a cancel meeting a finished operation, a foreign
 * session token). Few other faults: the situation is the point.
 */
function situationProperty(situation: Situation): ConsumerPropertyDef {
  const providers = [withSituation(ALERTS, situation), withSituation(PAYMENTS, situation)];
  return {
    kind: 'consumer',
    id: `matrix-${situation.id}`,
    title: `note ${situation.note}'s deciding moment: ${situation.title}`,
    area: 'CETP-9-06',
    fixture: { providers, checkers: INTEROP_CHECKERS },
    shape: {
      providers,
      tools: [...(SITUATION_TOOLS[situation.note] ?? MATRIX_INTEROP.shape.tools)],
      hostileCases: [],
      maxThreads: 2,
      maxCommands: 2,
      restarts: false,
      faults: [{ kind: 'kill', process: PAYMENTS.packageName }],
      maxFaults: 1,
    },
    checkers: INTEROP_CHECKERS,
    ruleIds: MATRIX_INTEROP.ruleIds,
    ciRuns: 0,
  };
}

/** The situation properties, one per situation (each reaches one note's readings). */
export const SITUATION_PROPERTIES: readonly ConsumerPropertyDef[] = SITUATIONS.map(situationProperty);

/** The properties a pairing of `note` runs: every pairing's, then the note's situation (if it has one). */
export function matrixPropertiesFor(note: number): readonly ConsumerPropertyDef[] {
  const own = SITUATIONS.flatMap((s, i) =>
    s.note === note ? [SITUATION_PROPERTIES[i] as ConsumerPropertyDef] : [],
  );
  return [...MATRIX_PROPERTIES, ...own];
}

/** A matrix property by id (replay files of the matrix name them). */
export function matrixPropertyById(id: string): ConsumerPropertyDef | undefined {
  return [...MATRIX_PROPERTIES, ...SITUATION_PROPERTIES].find((p) => p.id === id);
}

function variantsOf(note: number, side: ReadingSide): VariantDef[] {
  return VARIANTS.filter((v) => v.note === note && v.side === side);
}

/** Every combination of one reading of today's text per variant (the reference's first). */
function combinations(variants: readonly VariantDef[]): Record<string, string>[] {
  let combos: Record<string, string>[] = [{}];
  for (const v of variants.filter((x) => specReadings(x).length >= 2))
    combos = combos.flatMap((c) => specReadings(v).map((r) => Object.assign({}, c, { [v.id]: r.name })));
  return combos;
}

/**
 * The reading combinations each side of `notes` can be switched to, the reference excepted: what
 * the shared vectors run against (provider vectors per provider combination, consumer vectors per
 * consumer combination; the other side keeps the reference readings).
 */
export function readingRunsOf(notes: readonly number[]): ReadingRun[] {
  return notes.flatMap((note) =>
    (['provider', 'consumer'] as const).flatMap((side) =>
      combinations(variantsOf(note, side))
        .filter((readings) => Object.keys(readings).length > 0 && !isReference(side, readings))
        .map((readings) => ({
          note,
          side,
          readings,
          id: `note${String(note).padStart(2, '0')}-${side}-${label(readings)}`,
        })),
    ),
  );
}

/** The pairings of one note: provider combinations × consumer combinations, reference first. */
export function pairingsOf(note: number): Pairing[] {
  const providers = combinations(variantsOf(note, 'provider'));
  const consumers = combinations(variantsOf(note, 'consumer'));
  return pairingsAcross(note, providers, consumers);
}

/** The run variant of a pairing: no planted bug, no ablated rule, the pairing's readings (on `android`, the default profile when absent). */
export function pairingVariant(pairing: Pairing, android?: AndroidRelease): Variant {
  const readings: Readings = { provider: pairing.provider, consumer: pairing.consumer };
  return { providerBugs: [], consumerBugs: [], disabledRules: [], readings, ...(android ? { android } : {}) };
}

/** `provider consumedToken=refuse × consumer resendResumeToken=once` (the reference side as `reference`). */
export function describePairing(pairing: Pairing): string {
  const side = (readings: Readonly<Record<string, string>>) => {
    const entries = Object.entries(readings);
    return entries.length === 0 ? 'reference' : entries.map(([v, r]) => `${v}=${r}`).join(', ');
  };
  return `provider ${side(pairing.provider)} × consumer ${side(pairing.consumer)}`;
}

/** Scenarios per property sampled to see whether a pairing's readings change anything at all. */
export const DIVERGENCE_SAMPLES = 40;

/**
 * How many of `DIVERGENCE_SAMPLES` scenarios of `def` (sampled from the property's own seed) run
 * differently — another trace hash — under the pairing's readings than under the reference's. Zero
 * means the readings' decision points were never reached: "interoperates" then says nothing.
 */
export async function divergentRuns(
  def: ConsumerPropertyDef,
  pairing: Pairing,
  seed: number,
  referenceHashes: Map<string, readonly string[]>,
  android?: AndroidRelease,
): Promise<number> {
  const scenarios = fc.sample(consumerScenarioArb(def.shape, ['fifo', 'random', 'pct'], true), {
    seed: propertySeed(seed, def.id),
    numRuns: DIVERGENCE_SAMPLES,
  });
  let reference = referenceHashes.get(def.id);
  if (!reference) {
    const REFERENCE: Variant = {
      providerBugs: [],
      consumerBugs: [],
      disabledRules: [],
      ...(android ? { android } : {}),
    };
    const hashes: string[] = [];
    for (const s of scenarios)
      hashes.push((await runConsumerScenario(def.fixture, s, REFERENCE)).report.traceHash);
    referenceHashes.set(def.id, hashes);
    reference = hashes;
  }
  let differ = 0;
  for (const [i, s] of scenarios.entries()) {
    const run = await runConsumerScenario(def.fixture, s, pairingVariant(pairing, android));
    if (run.report.traceHash !== reference[i]) differ++;
  }
  return differ;
}
