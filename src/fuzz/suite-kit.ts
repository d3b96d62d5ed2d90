/**
 * What the property suites are made of: the property definitions' types, the raw-driver and
 * consumer-driven definers (every property judges progress; a raw one also that its operations
 * end), the shared scenario shape and faults, and frequency floors.
 */

import type { Checker } from '../check/checker.ts';
import { operationsTerminate, runProgress } from '../check/checkers/runtime.ts';
import { V2_METHOD_NAMES } from '../protocol/methods.ts';
import type { Fault } from '../sim/core/faults.ts';
import type { ScenarioShape } from './scenario/arbitraries.ts';
import type { ConsumerFixture, ConsumerShape } from './scenario/consumer.ts';
import { ALERTS, PAYMENTS } from './scenario/fixtures.ts';
import type { Fixture } from './scenario/runner.ts';

export interface PropertyCommon {
  readonly id: string;
  readonly title: string;
  /** The spec §9 area it covers. */
  readonly area: string;
  readonly checkers: readonly Checker[];
  readonly ruleIds: readonly string[];
  /** Runs per property under `npm test` (a CI-sized budget). */
  readonly ciRuns: number;
  /**
   * Shares of runs (0–1) in which each frequency label (src/check/frequencies.ts) must happen at the
   * CI budget: the attacks and clocks this property's oracles are there to judge (issue 22).
   */
  readonly floors?: Readonly<Record<string, number>>;
}

/** A property whose scenarios drive the providers with the raw (possibly misbehaving) driver. */
export interface RawPropertyDef extends PropertyCommon {
  readonly kind: 'raw';
  readonly fixture: Fixture;
  readonly shape: ScenarioShape;
}

/** A property whose scenarios drive the reference consumer's ExternalToolBridge. */
export interface ConsumerPropertyDef extends PropertyCommon {
  readonly kind: 'consumer';
  readonly fixture: ConsumerFixture;
  readonly shape: ConsumerShape;
}

export type PropertyDef = RawPropertyDef | ConsumerPropertyDef;

export const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];
export const CAP_SETS = [ALL_CAPS, ['cancellation', 'large_results'], ['async_operations'], []];

export const kill = (process: string): Fault => ({ kind: 'kill', process });
export const loseReply = (callee: string): Fault => ({ kind: 'loseReply', callee });
export const PROVIDER_FAULTS: readonly Fault[] = [
  kill(ALERTS.packageName),
  kill(PAYMENTS.packageName),
  loseReply(ALERTS.packageName),
  loseReply(PAYMENTS.packageName),
  { kind: 'failTransaction', callee: PAYMENTS.packageName },
  { kind: 'clockJump', ms: 2 * 3_600_000 },
  { kind: 'clockJump', ms: 25 * 3_600_000 },
  { kind: 'reboot' },
  { kind: 'powerLoss' },
  { kind: 'freezeCached' },
  { kind: 'memoryPressure', kills: 1 },
  { kind: 'slowStart', process: ALERTS.packageName, ms: 15_000 },
];

export const base = {
  providers: [ALERTS, PAYMENTS],
  actors: ['a', 'b'],
  commands: ['negotiate', 'wait'],
  resolveModes: ['honest', 'none'],
  ridReuse: true,
  expiredDeadlines: false,
  confirmedFlags: false,
  duplicates: true,
  faults: PROVIDER_FAULTS,
  maxCommands: 4,
  maxFaults: 2,
  userDecisions: ['approve', 'deny', 'back', 'ignore'],
  capabilitySets: CAP_SETS,
} as const satisfies ScenarioShape;

/**
 * Progress is judged in every property (a run must end because its work is done), and in every
 * raw-driver property every accepted operation must finish: an implementation that hangs, spins or
 * awaits forever fails whichever property reaches it.
 */
export function withProgress(checkers: readonly Checker[], extra: readonly Checker[]): Checker[] {
  return [...checkers, ...[runProgress, ...extra].filter((c) => !checkers.includes(c))];
}

export function def(
  id: string,
  title: string,
  area: string,
  shape: ScenarioShape,
  propertyCheckers: readonly Checker[],
  ciRuns = 40,
  floors?: Readonly<Record<string, number>>,
): RawPropertyDef {
  const checkers = withProgress(propertyCheckers, [operationsTerminate]);
  const ruleIds = [...new Set([...checkers.flatMap((c) => c.ruleIds), area])];
  return {
    kind: 'raw',
    id,
    title,
    area,
    fixture: {
      providers: shape.providers,
      actors: shape.actors,
      checkers,
      ...(shape.durableActors ? { durableActors: true } : {}),
    },
    shape,
    checkers,
    ruleIds,
    ciRuns,
    ...(floors ? { floors } : {}),
  };
}

/**
 * Floors (share of runs) for labels of src/check/frequencies.ts: `attacks` at 20%, `clocks` both
 * sides at 10%, `others` (full labels: lifecycle follow-ups, method repeats and races) at 10%.
 */
export function floorsOf(
  attacks: readonly string[],
  clocks: readonly string[],
  others: readonly string[] = [],
): Record<string, number> {
  const floors: Record<string, number> = {};
  for (const a of attacks) floors[`attack:${a}`] = 0.2;
  for (const c of clocks) {
    floors[`clock:${c}:before`] = 0.1;
    floors[`clock:${c}:after`] = 0.1;
  }
  for (const o of others) floors[o] = 0.1;
  return floors;
}

/** Every pair of protocol methods (the protocol's, src/protocol/methods.ts), as `race:` labels. */
export function everyRace(): string[] {
  const races: string[] = [];
  V2_METHOD_NAMES.forEach((m1, i) => {
    for (const m2 of V2_METHOD_NAMES.slice(i)) races.push(`race:${[m1, m2].sort().join('+')}`);
  });
  return races;
}

export function consumerDef(
  id: string,
  title: string,
  area: string,
  shape: ConsumerShape,
  propertyCheckers: readonly Checker[],
  extraRules: readonly string[] = [],
  ciRuns = 25,
): ConsumerPropertyDef {
  const checkers = withProgress(propertyCheckers, []);
  const ruleIds = [...new Set([...checkers.flatMap((c) => c.ruleIds), ...extraRules, area])];
  return {
    kind: 'consumer',
    id,
    title,
    area,
    fixture: { providers: shape.providers, checkers },
    shape,
    checkers,
    ruleIds,
    ciRuns,
  };
}

/**
 * The device behaviours of issue 35 a `--device-faults` campaign must reach (share of runs, like the
 * identity attacks' floors): each device fault of DEVICE_FAULTS (src/sim/core/faults.ts) in its property's
 * runs, and — for a consumer property, whose agent may ask on its main thread then — the input ANR.
 * Only a property with faults gets device faults (fuzz.ts), so only such a property has these floors.
 */
export const DEVICE_FLOORS: Readonly<Record<string, number>> = Object.freeze({
  'device:deep-sleep': 0.1,
  'device:user-away': 0.02,
  'device:slow-boot': 0.02,
});
/** The consumer property has more faults of its own (so fewer device faults per run) and the ANR. */
export const CONSUMER_DEVICE_FLOORS: Readonly<Record<string, number>> = Object.freeze({
  'device:deep-sleep': 0.02,
  'device:user-away': 0.02,
  'device:slow-boot': 0.01,
  'device:input-anr': 0.05,
});

/** `def` with the floors of a `--device-faults` campaign added to its own. */
export function withDeviceFloors<D extends PropertyDef>(def: D): D {
  if (def.shape.faults.length === 0) return def;
  const device = def.kind === 'consumer' ? CONSUMER_DEVICE_FLOORS : DEVICE_FLOORS;
  return { ...def, floors: { ...(def.floors ?? {}), ...device } };
}

/** What a provider app's manifest offers beyond one process of one user (src/zoo/variants.ts). */
export interface AppReach {
  /** Its provider runs in a process of its own (`ProviderFixture.processes`). */
  readonly ownProcess: boolean;
  /** Every client app is a grantee of a URI under its authority, without its provider permission. */
  readonly grantees: boolean;
  /** It is installed for a second user too. */
  readonly secondUser: boolean;
}

/**
 * The floors (share of runs) of the `app:` labels (src/check/app-labels.ts) a campaign of `def`
 * against an app offering `reach` must meet: its own process in half the runs; killed in 5% of the
 * runs of a property whose faults kill the app (`faultsOf` aims them at its own process); grantee
 * calls in half the runs; the second user's install in 90%. A kill while a confirmation is up is too
 * rare for a per-property floor (0–4 runs of 40 in `confirmation`): the zoo asks it of an app's
 * campaigns together (src/zoo/reach.ts).
 */
export function appReachFloors(def: PropertyDef, reach: AppReach): Record<string, number> {
  const floors: Record<string, number> = {};
  if (reach.ownProcess) {
    floors['app:own-process'] = 0.5;
    if (def.kind === 'raw' && def.shape.faults.some((f) => f.kind === 'kill'))
      floors['app:own-process-killed'] = 0.05;
  }
  if (reach.grantees) floors['app:grantee-call'] = 0.5;
  if (reach.secondUser) floors['app:second-user'] = 0.9;
  return floors;
}

/** `def` with the floors of the `app:` labels `reach` offers added to its own. */
export function withAppFloors<D extends PropertyDef>(def: D, reach: AppReach): D {
  const floors = appReachFloors(def, reach);
  if (Object.keys(floors).length === 0) return def;
  return { ...def, floors: { ...(def.floors ?? {}), ...floors } };
}

/** What fixtures declare of their apps' reach: a process of their own (`processes`). */
export function declaredReach(providers: readonly { readonly processes?: readonly string[] }[]): AppReach {
  return {
    ownProcess: providers.some((p) => (p.processes ?? []).length > 0),
    grantees: false,
    secondUser: false,
  };
}
