/**
 * The property suites, one per area of spec §9 (the conformance areas), each a scenario shape (what
 * may be generated), the world it runs in, and the oracles that judge it. Every property names the
 * rule ids it guards: its oracles' rules plus its §9 area. The raw-driver suites are here; the
 * consumer-driven ones in suites-consumer.ts, the definers and shared shapes in suite-kit.ts.
 */

import { admissionLimit } from '../check/checkers/admission.ts';
import { appInternalError } from '../check/checkers/app-failures.ts';
import { businessRefusal } from '../check/checkers/business.ts';
import { cancelAfterEnd } from '../check/checkers/cancel-after-end.ts';
import { resumeTokenExpiry } from '../check/checkers/clocks.ts';
import {
  approvalBinding,
  authorizedEffect,
  cancelledHasNoEffect,
  confirmationScreenShows,
  deadlineBeforeEffect,
  effectAttribution,
  effectOnOwnData,
  noCrossUidResults,
  singleEffect,
} from '../check/checkers/effects.ts';
import { faultsTransparent } from '../check/checkers/faults-transparent.ts';
import { providerIdentity, resolutionPendingIntent } from '../check/checkers/fields.ts';
import { fileResultMatches } from '../check/checkers/files.ts';
import {
  restartKeepsOperation,
  restartSessionOutcome,
  wipedStateUnknown,
} from '../check/checkers/lifecycle.ts';
import { errorMeansNoEffect, malformedRefused } from '../check/checkers/malformed.ts';
import {
  argsSchema,
  capabilitiesIntersected,
  capabilityGating,
  inlineWithinLimit,
  sessionExpiry,
  versionAgreed,
  windowExpiry,
} from '../check/checkers/negotiated.ts';
import { outputSchema } from '../check/checkers/outputs.ts';
import { requiredScopes } from '../check/checkers/required-scopes.ts';
import { runtimeRiskApproved } from '../check/checkers/risk.ts';
import { noCrash, noFdLeaks, operationsTerminate } from '../check/checkers/runtime.ts';
import { sessionRequired } from '../check/checkers/session-required.ts';
import { STORAGE_CHECKERS } from '../check/checkers/storage.ts';
import { argsBinding, sameTerminalResult, wireWellFormed } from '../check/checkers/wire.ts';
import {
  distinctResolutions,
  dualStackV1,
  operationIsolation,
  operationRequestId,
  resignEndsSession,
  sessionBinding,
  v1ReadOnly,
} from '../check/checkers/wire-identity.ts';
import { V2_METHOD_NAMES } from '../protocol/methods.ts';
import { ALERTS, PAYMENTS } from './scenario/fixtures.ts';
import {
  base,
  def,
  everyRace,
  floorsOf,
  kill,
  loseReply,
  type PropertyDef,
  type RawPropertyDef,
} from './suite-kit.ts';
import { CONSUMER_PROPERTIES } from './suites-consumer.ts';

export type { ConsumerPropertyDef, PropertyDef, RawPropertyDef } from './suite-kit.ts';
export { CONSUMER_PROPERTIES } from './suites-consumer.ts';

const RAW_PROPERTIES: readonly RawPropertyDef[] = [
  def(
    'idempotency',
    'same-id retries, concurrency, id reuse with other args, lost replies, kills and the window',
    'CETP-9-05',
    {
      ...base,
      tools: ['alerts.create_alert', 'payments.transfer', 'payments.reconcile_accounts', 'alerts.get_quote'],
      commands: ['negotiate', 'poll', 'wait', 'retry'],
      // retry-after twice: its burst needs a tool that answers at all before it can cross anything.
      crossClocks: ['session', 'window', 'retry-after', 'retry-after', 'deadline'],
      sharedRidWeight: 3,
      mirrorWeight: 1,
      // The clock and collision moves, and the core retry/reuse/duplicate moves once more, in a slot
      // of their own after each actor's commands (ScenarioShape.extras): they add to the core moves'
      // density instead of taking from it (issue 22: the clocks moves had diluted it).
      extras: [
        ['cross', 'collide', 'cross', 'cross'],
        ['cross', 'after-faults', 'retry', 'cross', 'cross'],
        ['negotiate', 'duplicated', 'reuse-rid', 'cross', 'cross', 'cross'],
        ['negotiate', 'duplicated', 'reuse-rid', 'cross', 'collide', 'cross', 'cross'],
      ],
      extraPercent: 100,
      maxFaults: 3,
    },
    [
      singleEffect,
      ...STORAGE_CHECKERS,
      faultsTransparent,
      appInternalError,
      effectAttribution,
      noCrossUidResults,
      sameTerminalResult,
      argsBinding,
      authorizedEffect,
      requiredScopes,
      wireWellFormed,
      noCrash,
      capabilitiesIntersected,
      capabilityGating,
      windowExpiry,
      sessionExpiry,
      admissionLimit,
    ],
    40,
    floorsOf(['rid-collision-across-uids'], ['session', 'window', 'retry-after', 'deadline']),
  ),
  def(
    'confirmation',
    'approve, deny, back, ignore; token replay, theft, altered args, skipped UI, expiry; nothing before approval',
    'CETP-9-06',
    {
      ...base,
      tools: ['alerts.create_alert', 'alerts.delete_alert', 'payments.transfer'],
      commands: ['negotiate', 'resume-foreign', 'wait'],
      crossClocks: ['deadline'],
      // The clock and token-theft moves, and plain confirmations once more, after each actor's own
      // commands (ScenarioShape.extras): they add to the core moves instead of diluting them.
      extras: [
        ['resume-foreign'],
        ['late-resume'],
        ['late-resume', 'resume-foreign'],
        ['cross', 'cross'],
        ['execute', 'resume-foreign'],
        // Confirmations once more, aimed (aimed-arb.ts): one of six, so each clock sequence keeps its floor.
        ['make', 'make', 'own', 'other'],
      ],
      extraPercent: 100,
      resolveModes: ['honest', 'none', 'skip-ui', 'altered-args', 'other-rid', 'foreign'],
      expiredDeadlines: true,
      confirmedFlags: true,
      faults: [kill(ALERTS.packageName), kill(PAYMENTS.packageName), { kind: 'clockJump', ms: 11 * 60_000 }],
    },
    [
      approvalBinding,
      confirmationScreenShows,
      authorizedEffect,
      requiredScopes,
      distinctResolutions,
      resolutionPendingIntent,
      singleEffect,
      ...STORAGE_CHECKERS,
      appInternalError,
      deadlineBeforeEffect,
      sameTerminalResult,
      wireWellFormed,
      resumeTokenExpiry,
      runtimeRiskApproved,
      businessRefusal,
    ],
    40,
    // A confirmation resumed, and its request re-sent, after the provider restarted (its pending
    // request and token must survive: 4.3, 6-05).
    floorsOf(
      ['foreign-resume-token'],
      ['resume-token', 'deadline'],
      ['after:restart:resume', 'after:restart:retry'],
    ),
  ),
  def(
    'identity',
    'several UIDs and a shared UID: stolen sessions and tokens, foreign operations, re-signing',
    'CETP-9-04',
    {
      ...base,
      actors: ['a', 'b', 's1', 's2', 'a10'],
      tools: [
        'alerts.create_alert',
        'payments.transfer',
        'payments.reconcile_accounts',
        'alerts.list_alerts',
      ],
      commands: ['negotiate', 'steal-session', 'poll', 'cancel', 'resume-foreign', 'cross'],
      crossClocks: ['session'],
      weights: { 'steal-session': 3, 'resume-foreign': 3, poll: 3, cross: 2 },
      extras: [
        ['steal-session', 'collide', 'dup:list_tools'],
        ['after-faults', 'retry', 'dup:get_provider_info'],
        ['after-faults', 'retry', 'poll'],
        ['after-faults', 'steal-session', 'collide'],
        ['resume-foreign', 'dup:list_tools'],
        ['poll', 'cancel', 'dup:get_provider_info'],
        // The session crossed after the re-sign: a session of before it used just before it expires.
        ['after-faults', 'cross'],
      ],
      extraPercent: 100,
      otherOpWeight: 3,
      wrongRidPolls: true,
      // A re-sign lands after the first negotiations and before the last calls (runs last 100–400 steps).
      minFaults: 1,
      faultSteps: [50, 110],
      resolveModes: ['honest', 'foreign', 'none'],
      faults: [
        { kind: 'resign', package: 'com.fuzz.agent.a', cert: 'rotated-a', rotate: true },
        { kind: 'resign', package: 'com.fuzz.agent.b', cert: 'attacker-b', rotate: false },
        // A key rotation of one package of a shared UID: the other package's sessions must end.
        { kind: 'resign', package: 'com.fuzz.shared.one', cert: 'rotated-shared', rotate: true },
        // Listed four times: the one re-sign whose victim (the other package of the UID) lives on
        // to call, so a session used after a re-sign is common (issue 22: ≥ 20% of runs).
        { kind: 'resign', package: 'com.fuzz.shared.one', cert: 'rotated-shared', rotate: true },
        { kind: 'resign', package: 'com.fuzz.shared.one', cert: 'rotated-shared', rotate: true },
        { kind: 'resign', package: 'com.fuzz.shared.one', cert: 'rotated-shared', rotate: true },
        { kind: 'clockJump', ms: 2 * 3_600_000 },
        // With a re-sign under a new key before it, a reboot lets a later install reuse the freed UID.
        { kind: 'reboot' },
      ],
    },
    [
      sessionBinding,
      resignEndsSession,
      operationIsolation,
      operationRequestId,
      effectAttribution,
      effectOnOwnData,
      noCrossUidResults,
      approvalBinding,
      authorizedEffect,
      requiredScopes,
      singleEffect,
      ...STORAGE_CHECKERS,
      appInternalError,
      capabilityGating,
      sessionExpiry,
    ],
    40,
    floorsOf(
      [
        'foreign-resume-token',
        'foreign-session',
        'session-after-resign',
        // other-uid-operation: floored in `operations` (here a quarter of the runs start one at all).
        'rid-collision-across-uids',
        'other-user', // a10, a's package in user 10, using a's session or request_id (2.2-09, 6-02)
      ],
      ['session'],
      // After a key rotation (same UID): negotiating, using a session and re-sending a request of before.
      // And the listings sent twice at once (what a caller may see, per caller).
      [
        'after:resign-rotate:negotiate',
        'after:resign-rotate:session',
        'after:resign-rotate:retry',
        'method:list_tools:duplicated',
        'method:get_provider_info:duplicated',
      ],
    ),
  ),
  def(
    'operations',
    'async success and failure, cancellation races around the commit point, restarts mid-operation',
    'CETP-9-07',
    {
      ...base,
      providers: [PAYMENTS],
      tools: ['payments.transfer', 'payments.reconcile_accounts'],
      commands: ['negotiate', 'poll', 'cancel', 'wait', 'cross'],
      crossClocks: ['poll-after', 'poll-after', 'window', 'window'],
      weights: { cross: 5 },
      otherOpWeight: 4,
      // A poll and a cancel sent twice at once come last (dup:*), after the moves they would disturb.
      extras: [
        ['cross', 'dup:get_operation'],
        ['cross', 'poll', 'cancel', 'dup:cancel_operation'],
        ['poll', 'cross', 'dup:get_operation'],
        ['after-faults', 'poll', 'cancel', 'dup:cancel_operation'],
      ],
      extraPercent: 100,
      faults: [
        kill(PAYMENTS.packageName),
        loseReply(PAYMENTS.packageName),
        { kind: 'clockJump', ms: 25 * 3_600_000 },
        { kind: 'reboot' },
        { kind: 'freezeCached' },
        { kind: 'memoryPressure', kills: 1 },
      ],
      maxFaults: 3,
      userDecisions: ['approve'],
    },
    [
      cancelledHasNoEffect,
      operationsTerminate,
      singleEffect,
      ...STORAGE_CHECKERS,
      faultsTransparent,
      appInternalError,
      operationIsolation,
      sameTerminalResult,
      wireWellFormed,
      capabilitiesIntersected,
      capabilityGating,
      windowExpiry,
      cancelAfterEnd,
    ],
    40,
    floorsOf(
      ['other-uid-operation'],
      ['poll-after', 'window'],
      ['method:get_operation:duplicated', 'method:cancel_operation:duplicated'],
    ),
  ),
  def(
    'large-results',
    'the inline boundary, file results and their descriptors, fd closing under faults',
    'CETP-9-08',
    {
      ...base,
      providers: [PAYMENTS],
      tools: ['payments.export_statement', 'payments.get_balance'],
      faults: [kill(PAYMENTS.packageName), loseReply(PAYMENTS.packageName), { kind: 'powerLoss' }],
      userDecisions: ['approve'],
    },
    [
      noFdLeaks,
      wireWellFormed,
      sameTerminalResult,
      noCrash,
      inlineWithinLimit,
      capabilityGating,
      fileResultMatches,
      outputSchema,
    ],
  ),
  def(
    'versions',
    'v1 and v2 side by side on a dual-stack provider; the v1 path stays read-only',
    'CETP-9-02',
    {
      ...base,
      providers: [ALERTS],
      tools: ['alerts.get_quote', 'alerts.create_alert'],
      commands: ['negotiate', 'v1-list'],
      // Today's consumer, a future one (3 and 2), one from the future only, and a v1-only one.
      versionSets: [[2, 1], [3, 2], [3], [1]],
      faults: [],
      maxFaults: 0,
      userDecisions: ['approve'],
    },
    [
      v1ReadOnly,
      wireWellFormed,
      singleEffect,
      versionAgreed,
      dualStackV1,
      providerIdentity,
      appInternalError,
    ],
  ),
  def(
    'malformed',
    'unknown fields ignored; missing fields, wrong Bundle types, invalid JSON and schema mismatches refused',
    'CETP-9-03',
    {
      ...base,
      // Read and write tools of both providers: malformed requests aimed at writes too.
      tools: ['alerts.get_quote', 'alerts.create_alert', 'payments.transfer'],
      commands: ['negotiate', 'malformed', 'hostile-batch'],
      faults: [],
      maxFaults: 0,
      userDecisions: ['approve'],
    },
    [
      wireWellFormed,
      malformedRefused,
      errorMeansNoEffect,
      singleEffect,
      ...STORAGE_CHECKERS,
      appInternalError,
      sameTerminalResult,
      argsSchema,
      noCrash,
      sessionRequired,
    ],
    40,
    // Its batches send every method at once: each protocol method repeated and raced against every
    // other (issue 22 item 7; duplicates of polls and cancels: docs/oracles.md).
    floorsOf([], [], [...V2_METHOD_NAMES.map((m) => `method:${m}:repeated`), ...everyRace()]),
  ),
  def(
    'lifecycle',
    'restarts, reboots, reinstalls and re-signs of provider and caller, then every kind of call on what was held before',
    'CETP-9-07',
    {
      ...base,
      providers: [PAYMENTS],
      actors: ['a', 'b'],
      tools: ['payments.transfer', 'payments.reconcile_accounts'],
      commands: ['poll', 'cancel', 'retry'],
      ridReuse: false,
      duplicates: false,
      maxCommands: 1,
      crossClocks: ['grant'],
      // An app with a journal (runner.ts, durableActors): what an actor held — its sessions, request
      // ids, operations, a resume token it has not used yet — outlives its process. Each actor makes
      // an operation and holds a resolution, waits for the run's two lifecycle events, then uses
      // everything it held (a resume, polls and cancels, a re-send; on its sessions of before, then
      // negotiating again); in one sequence of three it last crosses a scope grant's lifetime (30 days).
      // (A cancel or poll before the resume in some: a resume may start an operation of its own.)
      extras: [
        ['execute', 'hold-resolution', 'after-faults', 'resume-held', 'poll', 'cancel', 'retry-resolved'],
        ['hold-resolution', 'execute', 'after-faults', 'cancel', 'resume-held', 'poll', 'retry-resolved'],
        [
          'execute',
          'hold-resolution',
          'after-faults',
          'poll',
          'dup:get_operation',
          'cancel',
          'resume-held',
          'retry-resolved',
          'cross',
        ],
      ],
      extraPercent: 100,
      durableActors: true,
      mirrorWeight: 0,
      minFaults: 2,
      maxFaults: 2,
      faultSteps: [100, 220],
      faults: [
        // Provider restarts (a kill), reboots, provider and caller reinstalls, re-signs under an
        // unrelated key of the provider (uninstall + install, ANDROID-FACTS) and of a caller, and a
        // caller's key rotation (same UID).
        kill(PAYMENTS.packageName),
        kill(PAYMENTS.packageName),
        { kind: 'reboot' },
        { kind: 'reboot' },
        { kind: 'reinstall', package: PAYMENTS.packageName },
        { kind: 'reinstall', package: 'com.fuzz.agent.b' },
        { kind: 'reinstall', package: PAYMENTS.packageName },
        { kind: 'reinstall', package: 'com.fuzz.agent.a' },
        { kind: 'reboot' },
        { kind: 'resign', package: PAYMENTS.packageName, cert: 'payments-other-key', rotate: false },
        { kind: 'resign', package: 'com.fuzz.agent.a', cert: 'other-a', rotate: false },
        { kind: 'resign', package: 'com.fuzz.agent.b', cert: 'other-b', rotate: false },
        { kind: 'resign', package: 'com.fuzz.agent.a', cert: 'rotated-a', rotate: true },
        { kind: 'resign', package: 'com.fuzz.agent.b', cert: 'rotated-b', rotate: true },
        // Twice more: a rotation touches only its own package's calls.
        { kind: 'resign', package: 'com.fuzz.agent.a', cert: 'rotated-a', rotate: true },
        { kind: 'resign', package: 'com.fuzz.agent.b', cert: 'rotated-b', rotate: true },
      ],
      userDecisions: ['approve'],
    },
    [
      restartSessionOutcome,
      restartKeepsOperation,
      wipedStateUnknown,
      singleEffect,
      ...STORAGE_CHECKERS,
      faultsTransparent,
      appInternalError,
      sameTerminalResult,
      sessionBinding,
      resignEndsSession,
      operationIsolation,
      noCrossUidResults,
      approvalBinding,
      authorizedEffect,
      requiredScopes,
      effectAttribution,
      cancelledHasNoEffect,
      wireWellFormed,
    ],
    40,
    floorsOf(
      [],
      ['grant'],
      [
        ...['restart', 'reboot', 'reinstall', 'resign-new-key', 'resign-rotate'].flatMap((e) =>
          ['session', 'resume', 'retry', 'poll', 'cancel', 'negotiate'].map((f) => `after:${e}:${f}`),
        ),
        'method:get_operation:duplicated',
      ],
    ),
  ),
];

/** Every property: the raw-driver suites, then the consumer-driven ones. */
export const ALL_PROPERTIES: readonly PropertyDef[] = [...RAW_PROPERTIES, ...CONSUMER_PROPERTIES];

export function propertyById(id: string): PropertyDef | undefined {
  return ALL_PROPERTIES.find((p) => p.id === id);
}

/** @deprecated-free alias kept for readability at call sites: every property. */
export const PROPERTIES: readonly PropertyDef[] = ALL_PROPERTIES;
