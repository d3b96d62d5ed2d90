/**
 * What a run is made of, as the public API names it: the variant (planted bugs and ablated rules)
 * and the provider or consumer under test — what `cetp-sim fuzz --provider MODULE` and
 * `--consumer MODULE` expect a module to export. The scenario machinery in src/fuzz builds on
 * these types, which sit below the providers' SDK (it makes fixtures) and the checkers.
 */
import type { JsonValue } from '../base/json.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { AndroidRelease } from '../sim/core/release.ts';
import type { World } from '../sim/world.ts';
import type { Invariant, ToolModel } from './user-oracle-types.ts';

/**
 * The readings of the spec's ambiguous points a run is made with, per side: variant name → reading
 * name (src/protocol/readings.ts, spec/interpretations.md). A variant not named takes the reference
 * reading. Readings are not bugs: each is defensible from the spec's text.
 */
export interface Readings {
  readonly provider?: Readonly<Record<string, string>>;
  readonly consumer?: Readonly<Record<string, string>>;
}

/**
 * Planted bugs, ablated rules and readings a run is made with (empty: the reference
 * implementations).
 */
export interface Variant {
  readonly providerBugs: readonly string[];
  readonly consumerBugs: readonly string[];
  readonly disabledRules: readonly string[];
  /** Readings of ambiguous spec points (absent: the reference readings). */
  readonly readings?: Readings;
  /** The Android release profile the world runs (src/sim/core/release.ts; absent: DEFAULT_ANDROID, 14). */
  readonly android?: AndroidRelease;
  /** Campaigns also generate the device faults of issue 35 (src/sim/core/faults.ts DEVICE_FAULTS). */
  readonly deviceFaults?: boolean;
}

/**
 * A provider app the scenarios install and call. What the provider's own list_tools declares —
 * each tool's effect, scopes, confirmation policy and input schema — is read from it
 * (resolveProviderFixture, src/check/fixture.ts) and need not be repeated here; a field given here
 * must agree with list_tools (a contradiction is an error naming the field). A provider made with
 * defineProvider gives the rest too: `definedProvider.fixture({ name, tools })`.
 */
export interface ProviderFixture {
  /** A short id, [a-z][a-z0-9_]*, used in scenarios and replay files. */
  readonly name: string;
  readonly packageName: string;
  readonly authority: string;
  /**
   * Installs the package into a fresh World; `variant` carries the planted bugs (`--mutant`) and
   * ablated rules to hand to the provider (ProviderOptions.plantedBugs / disabledRules).
   */
  install(world: World, variant: Variant): void;
  /** Argument pools, by tool: a command's `args` index picks from them (modulo). */
  readonly tools: Readonly<Record<string, readonly JsonValue[]>>;
  /** Scopes the provider grants only after the user agrees in its UI (its authorization policy). */
  readonly userGrantedScopes: readonly string[];
  /** Each tool's declared effect (default: from list_tools). */
  readonly effects?: Readonly<Record<string, string>>;
  /** Each tool's scopes (default: from list_tools). */
  readonly scopes?: Readonly<Record<string, readonly string[]>>;
  /** Each tool's declared confirmation policy (default: from list_tools). */
  readonly confirmations?: Readonly<Record<string, string>>;
  /** Each tool's input schema (default: from list_tools); the args-schema oracle checks against it. */
  readonly inputSchemas?: Readonly<Record<string, unknown>>;
  /** Each tool's output schema (default: from list_tools); the output-schema oracle checks results against it. */
  readonly outputSchemas?: Readonly<Record<string, unknown>>;
  /**
   * Args, by tool, that fit the input schema but that the app's business rules must refuse (e.g. a
   * payee IBAN with a bad checksum): the business-refusal oracle fails any success or effect for
   * them (CETP-7.3-04). Put them in `tools` too, so that scenarios send them. Optional.
   */
  readonly refusedArgs?: Readonly<Record<string, readonly JsonValue[]>>;
  /**
   * Args, by tool, that fit the input schema but on which the app fails internally by design (a
   * backend it cannot help, a known imperfection kept to test the SDK's own checks): answered
   * INTERNAL_ERROR. `$UID` stands for the caller's UID, as in `tools`. The app-internal-error oracle
   * fails INTERNAL_ERROR for any other args that fit the schema. Optional.
   */
  readonly internalFailures?: Readonly<Record<string, readonly JsonValue[]>>;
  /**
   * Which args of a tool need the user's approval by the app's own runtime-risk policy (3.4-12), by
   * tool: the truth runtime-risk-approved judges effects by, besides what the app declares with each
   * effect (`approvalRequired`). For a `provider_policy` tool, e.g. `(args) => args.amount > 1000`.
   * Optional.
   */
  readonly approvalRequired?: Readonly<Record<string, (args: JsonValue) => boolean>>;
  /**
   * How long the provider's resume tokens live, in ms (its configuration: no reply states it).
   * Optional: without it the resume-token-expiry oracle skips the provider.
   */
  readonly resumeTokenTtlMs?: number;
  /**
   * The scopes each tool truly needs, by tool (the truth list_tools is judged against: CETP-3.4-14).
   * Optional: without it the required-scopes oracle has no truth to judge a tool by.
   */
  readonly requiredScopes?: Readonly<Record<string, readonly string[]>>;
  /**
   * Your own invariants over the app's storage at the end of a run and the run's history, checked
   * after every run of every property as the oracles `invariant:<id>` (src/subjects/user-oracle-types.ts,
   * docs/writing-a-provider.md). Optional.
   */
  readonly invariants?: readonly Invariant[];
  /**
   * A model of what the tools do to the app's storage, checked after every run as the oracle
   * `model:<name>`: the storage must equal the model run over the requests that took effect, once
   * each. Optional.
   */
  readonly model?: ToolModel<unknown>;
  /**
   * Tables of the app that are its own bookkeeping (request records, caches), not business state:
   * the storage-level oracles ignore writes to them, as they ignore the SDK's `cetp.*` tables. Optional.
   */
  readonly bookkeepingTables?: readonly string[];
  /**
   * The app's processes besides its main one (`android:process`, e.g. `com.example:cetp`): the
   * fuzzer's kill faults aimed at the app kill each of them too. Optional.
   */
  readonly processes?: readonly string[];
}

/** A fixture with what list_tools declares filled in: what the scenarios and oracles run with. */
export interface ResolvedProviderFixture extends ProviderFixture {
  readonly effects: Readonly<Record<string, string>>;
  readonly scopes: Readonly<Record<string, readonly string[]>>;
}

/** A cancellation token of the consumer under test, handed back to it as is. */
export interface CancellationLike {
  cancel(): void;
}

/** The agent-facing API of a consumer, inside its own process. */
export interface ConsumerAgentApi<C extends CancellationLike = CancellationLike> {
  listTools(): Promise<unknown>;
  cancellation(): C;
  executeJson(
    providerPackage: string,
    toolName: string,
    argsJson: string,
    options: { readonly cancel?: C },
  ): Promise<unknown>;
}

/**
 * A consumer app the consumer-driven properties can drive: the reference one, or a user's
 * (`cetp-sim fuzz --consumer MODULE`). Scenarios kill and restart its process: on every start it must
 * resume the executions it had journaled. The oracles judge it by what it sends on the wire and by
 * its audit events (src/consumer/audit.ts); a consumer that records none is judged by the wire alone.
 */
export interface ConsumerUnderTest<C extends CancellationLike = CancellationLike> {
  readonly name: string;
  readonly packageName: string;
  install(
    world: World,
    options: { readonly variant: Variant; readonly capabilities: readonly string[] },
  ): void;
  agent(context: AppContext): ConsumerAgentApi<C>;
}
