/**
 * src/consumer — the reference CETP v2 consumer: discovery, negotiation and the fallback rules,
 * tool lists cached by revision, execution with the retry discipline and a durable journal, the
 * confirmation flow, async polling and cancellation, large-result verification, and everything a
 * provider says treated as untrusted data. It runs as an app in the simulated world and reaches
 * providers only through simulated Binder, PendingIntents and fds.
 */

export {
  bridgeIn,
  CONSUMER_PACKAGE,
  type ConsumerApp,
  type ConsumerAppOptions,
  consumerApp,
  consumerPackage,
} from './app.ts';
export { type AttemptReason, type ConsumerAuditEvent, recordAudit } from './audit.ts';
export { type AgentTool, ExternalToolBridge, type ProviderStatus } from './bridge.ts';
export type { ConsumerTool, ProviderDetails, RejectedDescriptor, ToolCatalogue } from './catalogue.ts';
export { CetpClient, type ClientState, type ConnectResult } from './client.ts';
export { APPROVAL_ACTIVITY, CetpApprovalActivity, verifyResolution } from './confirmation.ts';
export {
  chooseProtocol,
  type DiscoveredProvider,
  type DiscoveryRefusalReason,
  declaredVersions,
  discoverProviders,
  parseVersionList,
  type RefusedProvider,
} from './discovery.ts';
export { type ConsumerVariant, consumer as referenceConsumer } from './fixture.ts';
export { ConsumerGates } from './gates.ts';
export { type ExecuteOptions, executeOnClient, resumeOnClient } from './invoke.ts';
export { ExecutionJournal, JOURNAL_TABLE, type JournalEntry } from './journal.ts';
export { LegacyClient, type LegacyTool } from './legacy.ts';
export { CancelSignal } from './operations.ts';
export {
  type ApprovalRequest,
  type ConsumerConfig,
  type ConsumerLimits,
  type ConsumerOptions,
  type ConsumerOptionsInit,
  type ConsumerVariants,
  DEFAULT_CONSUMER_OPTIONS,
  type LocalApproval,
  type RetryOptions,
  resolveConsumerOptions,
} from './options.ts';
export {
  explain,
  type FailureKind,
  type IntegrityCheck,
  type OutcomeSource,
  type ToolFailure,
  type ToolOutcome,
  type ToolSuccess,
} from './outcomes.ts';
export type { ConsumerParts } from './parts.ts';
export { CONSUMER_PLANTED_BUGS, type ConsumerBug, isConsumerBug } from './planted.ts';
export { CONSUMER_VERSIONS, type Session, type SessionLimits } from './session.ts';
export { type CallOutcome, ProviderChannel } from './transport.ts';
export {
  inertJson,
  renderForAgent,
  type UntrustedProgress,
  type UntrustedText,
  type UntrustedValue,
  untrustedText,
} from './untrusted.ts';
