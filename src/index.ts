/**
 * cetp-sim's public API. Everything a user may import is named here; the rest is internal.
 *
 * - The simulated Android world (`World` and what apps see of it): for writing your own provider
 *   or consumer apps and scenarios.
 * - Trace rendering and run reports: for reading what happened.
 * - The CETP wire vocabulary (`protocol`), the provider SDK and the reference provider apps, the
 *   reference consumer, and the module types `cetp-sim fuzz --provider/--consumer` expects.
 */

export type { BundleValueType } from './base/bundle-value.ts';
export type { JsonObject, JsonValue } from './base/json.ts';
export type { Exercised } from './check/exercised.ts';
// Fixtures derived from the provider's own list_tools (what --provider modules get, in one place).
export {
  FixtureError,
  type FixtureIssue,
  type ListedTool,
  listToolsOf,
  resolveFixtureWith,
  resolveProviderFixture,
  variantIgnored,
} from './check/fixture.ts';
// The reference consumer.
export {
  bridgeIn,
  CancelSignal,
  CONSUMER_PACKAGE,
  type ConsumerAppOptions,
  type ConsumerOptions,
  consumerApp,
  consumerPackage,
  ExternalToolBridge,
  isConsumerBug,
  referenceConsumer,
  type ToolFailure as ConsumerToolFailure,
  type ToolOutcome,
  type ToolSuccess,
} from './consumer/index.ts';
// The fuzzing harness: fuzz your provider or consumer from your own code (docs/harness.md).
export * from './harness/index.ts';
// The CETP wire vocabulary (methods, keys, error codes, schemas, the rule catalogue), as a namespace.
export * as protocol from './protocol/index.ts';
// Options below their floors (a negotiated limit under its §2.2 minimum …): refused when configured.
export { type OptionIssue, OptionsError } from './protocol/option-floors.ts';
export {
  ALERTS_AUTHORITY,
  ALERTS_PACKAGE,
  ALERTS_PROVIDER,
  alertsApp,
  alertsPackage,
} from './providers/apps/alerts.ts';
export { LEGACY_AUTHORITY, LEGACY_PACKAGE, legacyApp, legacyPackage } from './providers/apps/legacy.ts';
export {
  PAYMENTS_AUTHORITY,
  PAYMENTS_PACKAGE,
  PAYMENTS_PROVIDER,
  paymentsApp,
  paymentsPackage,
} from './providers/apps/payments.ts';
// The provider SDK and the reference provider apps.
export * from './providers/sdk/index.ts';
export type { App, AppFactory } from './sim/app/app.ts';
export type { AppContext } from './sim/app/context.ts';
export type { CallingIdentity } from './sim/binder/binder.ts';
export { Bundle } from './sim/binder/bundle.ts';
export { ContentProviderClient, ContentResolver } from './sim/content/content.ts';
export { ContentProvider } from './sim/content/content-provider.ts';
export {
  AndroidException,
  DeadObjectException,
  IllegalArgumentException,
  IllegalStateException,
  IOException,
  RemoteException,
  SecurityException,
  SimUsageError,
  TransactionTooLargeException,
} from './sim/core/errors.ts';
export type { Fault, FaultAt } from './sim/core/faults.ts';
export type { RunOutcome } from './sim/core/scheduler.ts';
export type { StrategySpec } from './sim/core/strategy.ts';
export type { TraceEvent } from './sim/core/trace.ts';
export { renderMermaid, renderText } from './sim/core/trace-render.ts';
export type { FdLeak, ParcelFileDescriptor } from './sim/fd/fd.ts';
export type { BusinessEffect } from './sim/ground-truth.ts';
export type { ManifestSpec, PackageSpec } from './sim/pm/manifest.ts';
export { certificate } from './sim/pm/signing.ts';
export type { StoreTransaction } from './sim/storage/storage.ts';
export {
  Activity,
  type ActivityResult,
  RESULT_CANCELED,
  RESULT_OK,
  type Screen,
  type UserAnswer,
} from './sim/ui/activity.ts';
export { type ComponentName, Intent } from './sim/ui/intent.ts';
export { FLAG_IMMUTABLE, FLAG_MUTABLE, FLAG_UPDATE_CURRENT, PendingIntent } from './sim/ui/pending-intent.ts';
export type { UserDecision, UserSpec } from './sim/ui/user.ts';
export { type RunReport, World, type WorldOptions } from './sim/world.ts';
// What `cetp-sim fuzz --provider MODULE` and `--consumer MODULE` expect a module to export.
export type {
  CancellationLike,
  ConsumerAgentApi,
  ConsumerUnderTest,
  ProviderFixture,
  ResolvedProviderFixture,
  Variant,
} from './subjects/subjects.ts';
// Your own oracles on a provider fixture: invariants over its storage and history, a model of its tools.
export type {
  AppState,
  HistoryCall,
  Invariant,
  InvariantResult,
  LifecycleEvent,
  ModelRequest,
  ModelStep,
  RequestHistory,
  RequestOutcome,
  RunHistory,
  StoredTable,
  ToolModel,
} from './subjects/user-oracle-types.ts';
