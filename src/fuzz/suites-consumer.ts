/**
 * The consumer-driven property suites: scenarios drive the reference consumer's ExternalToolBridge
 * (or yours, with fuzzConsumer) against the reference providers and hostile ones.
 */

import type { Checker } from '../check/checker.ts';
import { agentGetsData, requestIdOnWire, unavailableNotUnknown } from '../check/checkers/agent.ts';
import { AGENT_CONTENT_CHECKERS } from '../check/checkers/agent-content.ts';
import { appInternalError } from '../check/checkers/app-failures.ts';
import { businessRefusal } from '../check/checkers/business.ts';
import {
  negotiatedOnly,
  noDowngrade,
  offersV1,
  requestIdStable,
  resumesLatestToken,
  retryDiscipline,
  verifiedResolutions,
  verifiesFile,
} from '../check/checkers/consumer.ts';
import { usesCurrentCatalogue } from '../check/checkers/consumer-catalogue.ts';
import { CONSUMER_FOLLOWUP_CHECKERS } from '../check/checkers/consumer-followup.ts';
import { usesV1Provider } from '../check/checkers/consumer-v1.ts';
import { approvalBinding, authorizedEffect, singleEffect } from '../check/checkers/effects.ts';
import { catalogueRevision, consumerRequestsWellFormed } from '../check/checkers/fields.ts';
import { agentNotRefusedAsMisuse, agentOutcomeTruth } from '../check/checkers/interop.ts';
import { outputSchema } from '../check/checkers/outputs.ts';
import { consumerTrustsIdentity } from '../check/checkers/provider-trust.ts';
import { requiredScopes } from '../check/checkers/required-scopes.ts';
import { runtimeRiskApproved } from '../check/checkers/risk.ts';
import { noCrash, noFdLeaks } from '../check/checkers/runtime.ts';
import { STORAGE_CHECKERS } from '../check/checkers/storage.ts';
import { listMatchesVisibility } from '../check/checkers/visibility.ts';
import { wireWellFormed } from '../check/checkers/wire.ts';
import { v1ReadOnly } from '../check/checkers/wire-identity.ts';
import { CONSUMER_PACKAGE } from '../consumer/app.ts';
import { HOSTILE_CASES } from '../providers/hostile/index.ts';
import { ALERTS_ONE_AT_A_TIME, LEGACY } from './scenario/consumer.ts';
import { ALERTS, PAYMENTS } from './scenario/fixtures.ts';
import { type ConsumerPropertyDef, consumerDef, kill } from './suite-kit.ts';

const CONSUMER_CHECKS: readonly Checker[] = [
  retryDiscipline,
  negotiatedOnly,
  noDowngrade,
  requestIdStable,
  requestIdOnWire,
  verifiedResolutions,
  offersV1,
  verifiesFile,
  resumesLatestToken,
  agentGetsData,
  unavailableNotUnknown,
  consumerRequestsWellFormed,
  catalogueRevision,
  usesCurrentCatalogue,
  noCrash,
  noFdLeaks,
  ...CONSUMER_FOLLOWUP_CHECKERS,
  ...AGENT_CONTENT_CHECKERS,
];

const hostileIndex = (id: string): number => HOSTILE_CASES.findIndex((c) => c.id === id);
const NEGOTIATE_BAIT = [
  'negotiate-unsupported-version-with-v1-bait',
  'negotiate-internal-error-with-v1-bait',
].map(hostileIndex);

export const CONSUMER_PROPERTIES: readonly ConsumerPropertyDef[] = [
  consumerDef(
    'consumer',
    'the reference consumer end to end: retries, confirmations, async polling, cancellation, restarts of either side',
    'CETP-9-07',
    {
      providers: [ALERTS_ONE_AT_A_TIME, PAYMENTS, LEGACY],
      tools: [
        'alerts.get_quote',
        'alerts.create_alert',
        'alerts.delete_alert',
        'payments.transfer',
        'payments.export_statement',
        'payments.reconcile_accounts',
        'legacy.get_weather',
      ],
      hostileCases: [],
      maxThreads: 3,
      maxCommands: 3,
      restarts: true,
      faults: [
        kill(PAYMENTS.packageName),
        kill(ALERTS.packageName),
        { kind: 'loseReply', callee: PAYMENTS.packageName, caller: CONSUMER_PACKAGE },
        { kind: 'loseReply', callee: ALERTS.packageName, caller: CONSUMER_PACKAGE },
        kill(CONSUMER_PACKAGE),
        { kind: 'reboot' },
        { kind: 'freezeCached' },
        { kind: 'memoryPressure', kills: 2 },
        { kind: 'slowStart', process: PAYMENTS.packageName, ms: 15_000 },
      ],
      maxFaults: 2,
      lostExecuteReplies: true,
      catalogueUpdates: true,
    },
    [
      ...CONSUMER_CHECKS,
      singleEffect,
      ...STORAGE_CHECKERS,
      appInternalError,
      approvalBinding,
      authorizedEffect,
      requiredScopes,
      wireWellFormed,
      agentOutcomeTruth,
      agentNotRefusedAsMisuse,
      outputSchema,
      runtimeRiskApproved,
      businessRefusal,
      listMatchesVisibility,
    ],
  ),
  consumerDef(
    'consumer-versions',
    'v1-only, dual-stack and v2 providers that fail negotiation: v1 only where v2 is not declared, never a downgrade',
    'CETP-9-02',
    {
      providers: [ALERTS, LEGACY],
      tools: ['alerts.get_quote', 'legacy.get_weather', 'legacy.list_cities', 'hostile.lookup'],
      hostileCases: NEGOTIATE_BAIT,
      maxThreads: 2,
      maxCommands: 3,
      restarts: false,
      faults: [],
      maxFaults: 0,
    },
    [...CONSUMER_CHECKS, v1ReadOnly, usesV1Provider],
  ),
  consumerDef(
    'hostile',
    'hostile providers: overlong and injected text, unknown error codes, lying files and PendingIntents, oversized replies',
    'CETP-9-09',
    {
      providers: [ALERTS],
      tools: ['hostile.lookup', 'alerts.get_quote'],
      hostileCases: HOSTILE_CASES.map((_, i) => i),
      maxThreads: 2,
      maxCommands: 2,
      restarts: false,
      faults: [],
      maxFaults: 0,
    },
    [...CONSUMER_CHECKS, consumerTrustsIdentity],
    ['CETP-4.5-05', 'CETP-4.5-06', 'CETP-4.5-07', 'CETP-7.3-01', 'CETP-7.3-02', 'CETP-4.2-05'],
    60,
  ),
];
