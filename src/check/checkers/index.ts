/** Every checker, in the order they report. */
import type { CheckContext, Checker, Violation } from '../checker.ts';
import type { Observation } from '../observation.ts';
import { ADMISSION_CHECKERS } from './admission.ts';
import { AGENT_CHECKERS } from './agent.ts';
import { AGENT_CONTENT_CHECKERS } from './agent-content.ts';
import { appInternalError } from './app-failures.ts';
import { BUSINESS_CHECKERS } from './business.ts';
import { CLOCK_CHECKERS } from './clocks.ts';
import { CONSUMER_CHECKERS } from './consumer.ts';
import { CONSUMER_FOLLOWUP_CHECKERS } from './consumer-followup.ts';
import { usesV1Provider } from './consumer-v1.ts';
import { EFFECT_CHECKERS } from './effects.ts';
import { faultsTransparent } from './faults-transparent.ts';
import { FIELD_CHECKERS } from './fields.ts';
import { FILE_CHECKERS } from './files.ts';
import { LIFECYCLE_CHECKERS } from './lifecycle.ts';
import { MALFORMED_CHECKERS } from './malformed.ts';
import { NEGOTIATED_CHECKERS } from './negotiated.ts';
import { OUTPUT_CHECKERS } from './outputs.ts';
import { PROVIDER_TRUST_CHECKERS } from './provider-trust.ts';
import { requiredScopes } from './required-scopes.ts';
import { RISK_CHECKERS } from './risk.ts';
import { RUNTIME_CHECKERS } from './runtime.ts';
import { SESSION_CHECKERS } from './session-required.ts';
import { STORAGE_CHECKERS } from './storage.ts';
import { VISIBILITY_CHECKERS } from './visibility.ts';
import { WIRE_CHECKERS } from './wire.ts';

export const ALL_CHECKERS: readonly Checker[] = [
  ...EFFECT_CHECKERS,
  ...WIRE_CHECKERS,
  ...FILE_CHECKERS,
  ...MALFORMED_CHECKERS,
  ...FIELD_CHECKERS,
  ...NEGOTIATED_CHECKERS,
  ...SESSION_CHECKERS,
  ...CLOCK_CHECKERS,
  ...CONSUMER_CHECKERS,
  ...CONSUMER_FOLLOWUP_CHECKERS,
  usesV1Provider,
  ...AGENT_CHECKERS,
  ...AGENT_CONTENT_CHECKERS,
  ...RUNTIME_CHECKERS,
  ...OUTPUT_CHECKERS,
  ...RISK_CHECKERS,
  ...ADMISSION_CHECKERS,
  ...BUSINESS_CHECKERS,
  ...PROVIDER_TRUST_CHECKERS,
  ...VISIBILITY_CHECKERS,
  ...LIFECYCLE_CHECKERS,
  requiredScopes,
  ...STORAGE_CHECKERS,
  faultsTransparent,
  appInternalError,
];

export function checkerById(id: string): Checker | undefined {
  return ALL_CHECKERS.find((c) => c.id === id);
}

/** Runs `checkers` (default: all) over an observation. */
export function runCheckers(
  obs: Observation,
  ctx: CheckContext,
  checkers: readonly Checker[] = ALL_CHECKERS,
): Violation[] {
  const out: Violation[] = [];
  for (const c of checkers) for (const v of c.check(obs, ctx)) out.push(v);
  return out;
}
