/**
 * defineProvider — a whole CETP provider app from one definition (spec §10): the descriptor and
 * scope catalogue, the tools, and the authorization policy. It writes what every provider app
 * otherwise repeats by hand: the CetpV2ContentProvider subclass (config, a durable mutation
 * executor, authorize), the package manifest (providerPackage: discovery service, authority,
 * versions meta-data, the confirmation Activity), the app factory (a fresh provider and its
 * confirmation Activity per process), and the fuzz fixture's install(world, variant), which passes
 * the variant's planted bugs and ablated rules through so `--mutant` reaches the provider.
 *
 * Authorization (10-01, 10-11, 7.1-06). The SDK base class denies everything by default (10-01), so
 * a provider that forgets to write a policy refuses every call. defineProvider never leaves the
 * policy implicit: without `authorize`, EVERY scope of the descriptor is granted per caller only by
 * the user, in the provider's own grant screen (AUTH_REQUIRED with a resolution; ScopeGrantPolicy:
 * bound to the caller's UID, packages and signing certificates, 30 days, shared UIDs refused), and
 * tools with no scopes are open to every caller. `authorize: { freeScopes: [...] }` names scopes any
 * caller has without asking; a function replaces the policy entirely.
 */

import { readingOptions } from '../../protocol/readings.ts';
import type { App, AppFactory } from '../../sim/app/app.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { PackageSpec } from '../../sim/pm/manifest.ts';
import { Intent } from '../../sim/ui/intent.ts';
import type { World } from '../../sim/world.ts';
import type { ProviderFixture } from '../../subjects/subjects.ts';
import { toolDescriptor } from './catalogue.ts';
import { CONFIRM_ACTIVITY } from './confirmations.ts';
import { type GrantPolicyOptions, ScopeGrantPolicy } from './grants.ts';
import { CETP_PROVIDER, providerPackage } from './manifest.ts';
import { assertProviderOptions } from './options-check.ts';
import { CetpV2ContentProvider, type ProviderConfig } from './provider.ts';
import {
  type AccessDecision,
  type AuthorizationRequest,
  type CetpProviderDescriptor,
  DEFAULT_PROVIDER_OPTIONS,
  durableMutationExecutor,
  type MutationExecutor,
  type ProviderTool,
  type ProviderVariants,
} from './types.ts';

/** The options a provider instance takes (ProviderOptions, every field optional). */
export type ProviderOptionsInput = NonNullable<ProviderConfig['options']>;

/** An authorization policy written by hand: the decision for one call. */
export type AuthorizeFunction = (request: AuthorizationRequest) => AccessDecision | Promise<AccessDecision>;

/**
 * The authorization policy: a function, or the options of the SDK's scope-grant policy. With the
 * options form, `grantableScopes` defaults to every descriptor scope not in `freeScopes`.
 */
export type AuthorizePolicy = AuthorizeFunction | Partial<GrantPolicyOptions>;

/** The planted bugs and ablated rules of a run (a `Variant`; the fuzzer passes its own). */
export interface VariantLike {
  readonly providerBugs: readonly string[];
  readonly disabledRules: readonly string[];
  /** Readings of ambiguous spec points, by side (src/protocol/readings.ts; absent: the reference's). */
  readonly readings?: { readonly provider?: Readonly<Record<string, string>> };
}

export interface ProviderDefinition {
  /** The Android package name; the descriptor's provider_id defaults to it (3.1-01). */
  readonly packageName: string;
  /** The ContentProvider authority; default `<packageName>.clawseed.tools`. */
  readonly authority?: string;
  /** Protocol major versions served: [2] v2-only (the default), [1, 2] dual stack. */
  readonly versions?: readonly (1 | 2)[];
  /** The signing certificate's name; default `<packageName>-release`. */
  readonly cert?: string;
  readonly descriptor: Omit<CetpProviderDescriptor, 'providerId'> & { readonly providerId?: string };
  readonly tools: readonly ProviderTool[];
  /** Default: every scope is granted only by the user, per caller (see the module comment). */
  readonly authorize?: AuthorizePolicy;
  /** The atomic boundary of write tools (10-06); default one transaction of the app's durable store. */
  readonly mutationExecutor?: (context: AppContext) => MutationExecutor | null;
  /** Provider options (limits, capabilities, variants of the spec's readings). */
  readonly options?: ProviderOptionsInput;
  /** Your own invariants (ProviderFixture.invariants): every fixture() of the definition carries them. */
  readonly invariants?: ProviderFixture['invariants'];
  /** A model of the tools (ProviderFixture.model): every fixture() carries it unless it gives its own. */
  readonly model?: ProviderFixture['model'];
}

/** What a definition hands its provider class. */
export interface ProviderSetup {
  readonly descriptor: CetpProviderDescriptor;
  readonly tools: readonly ProviderTool[];
  readonly authorize: AuthorizeFunction;
  readonly executor: (context: AppContext) => MutationExecutor | null;
  readonly baseOptions: ProviderOptionsInput;
}

/** The CetpV2ContentProvider every definition's class extends: config, executor and policy from it. */
export class DefinedToolProvider extends CetpV2ContentProvider {
  private readonly options: ProviderOptionsInput;

  constructor(
    private readonly setup: ProviderSetup,
    options: ProviderOptionsInput = {},
  ) {
    super();
    this.options = { ...setup.baseOptions, ...options };
  }

  protected override config(): ProviderConfig {
    return { descriptor: this.setup.descriptor, tools: this.setup.tools, options: this.options };
  }

  protected override mutationExecutor(): MutationExecutor | null {
    return this.setup.executor(this.context);
  }

  protected override authorize(request: AuthorizationRequest): AccessDecision | Promise<AccessDecision> {
    return this.setup.authorize(request);
  }
}

/** The provider class a definition makes; subclass it to change one method (tests do). */
export type DefinedProviderClass = new (options?: ProviderOptionsInput) => DefinedToolProvider;

/**
 * A fuzz fixture's own part: its name and argument pools (and, when `authorize` is a function, the
 * scopes the user grants). What list_tools declares may be given too; it must then agree.
 */
export type FixtureSpec = Omit<
  ProviderFixture,
  'packageName' | 'authority' | 'install' | 'userGrantedScopes'
> & {
  readonly userGrantedScopes?: readonly string[];
};

/** What defineProvider returns: everything needed to install, run and fuzz the provider. */
export interface DefinedProvider {
  readonly packageName: string;
  readonly authority: string;
  readonly versions: readonly (1 | 2)[];
  readonly descriptor: CetpProviderDescriptor;
  readonly tools: readonly ProviderTool[];
  /**
   * The scopes granted only after the user agrees in the provider's UI (what a fuzz fixture's
   * `userGrantedScopes` says); null when `authorize` is a function, which says nothing about it.
   */
  readonly userGrantedScopes: readonly string[] | null;
  /** The CetpV2ContentProvider subclass. */
  readonly Provider: DefinedProviderClass;
  /** The package manifest and signing (providerPackage). */
  package(cert?: string): PackageSpec;
  /** The app factory: a fresh provider (of `Provider`, or a subclass) and its confirmation Activity. */
  app(options?: ProviderOptionsInput, Provider?: DefinedProviderClass): AppFactory;
  /** The provider options a run's variant asks for: its planted bugs and ablated rules. */
  optionsFor(variant: VariantLike): ProviderOptionsInput;
  /** Installs the package into `world`, with the variant's planted bugs and ablated rules (fuzzing). */
  install(world: World, variant?: VariantLike): void;
  /** An explicit Intent to the provider's confirmation Activity. */
  confirmIntent(): Intent;
  /**
   * A fuzz fixture (`cetp-sim fuzz --provider`): package, authority, install (variant passed through)
   * and userGrantedScopes from the definition; effects, scopes, confirmations and input schemas are
   * read from list_tools when the fixture is resolved. Throws when `authorize` is a function and
   * `userGrantedScopes` is not given (nothing else can say which scopes the user grants). The
   * definition's `invariants` come first, then the spec's; its `model` unless the spec gives one.
   */
  fixture(spec: FixtureSpec): ProviderFixture;
  /** What list_tools answers (every tool, a session with every capability), as on the wire. */
  listTools(): ReturnType<typeof toolDescriptor>[];
}

const ALL_CAPABILITIES = DEFAULT_PROVIDER_OPTIONS.capabilities;

function policyOf(
  authorize: AuthorizePolicy | undefined,
  descriptor: CetpProviderDescriptor,
): { authorize: AuthorizeFunction; userGranted: readonly string[] | null } {
  if (typeof authorize === 'function') return { authorize, userGranted: null };
  const free = authorize?.freeScopes ?? [];
  const grantable =
    authorize?.grantableScopes ?? descriptor.scopes.map((s) => s.name).filter((s) => !free.includes(s));
  const policy = new ScopeGrantPolicy({ ...authorize, freeScopes: free, grantableScopes: grantable });
  return { authorize: (request) => policy.authorize(request), userGranted: grantable };
}

/** Makes a provider app from its descriptor, tools and policy (see the module comment). */
export function defineProvider(definition: ProviderDefinition): DefinedProvider {
  const { packageName } = definition;
  const authority = definition.authority ?? `${packageName}.clawseed.tools`;
  const versions = definition.versions ?? [2];
  const descriptor: CetpProviderDescriptor = {
    ...definition.descriptor,
    providerId: definition.descriptor.providerId ?? packageName,
  };
  const tools = definition.tools;
  const policy = policyOf(definition.authorize, descriptor);
  const executor = definition.mutationExecutor ?? durableMutationExecutor;
  const baseOptions: ProviderOptionsInput = { ...definition.options, versions };
  assertProviderOptions(`defineProvider(${packageName}): options`, definition.options);

  const setup: ProviderSetup = { descriptor, tools, authorize: policy.authorize, executor, baseOptions };
  const Provider = class extends DefinedToolProvider {
    constructor(options: ProviderOptionsInput = {}) {
      super(setup, options);
    }
  };

  const defined: DefinedProvider = {
    packageName,
    authority,
    versions,
    descriptor,
    tools,
    userGrantedScopes: policy.userGranted,
    Provider,
    package: (cert = definition.cert ?? `${packageName}-release`) =>
      providerPackage({ packageName, authority, versions, cert }),
    app: (options = {}, Class = Provider) => {
      return (_context: AppContext): App => {
        const provider = new Class(options);
        return {
          providers: { [CETP_PROVIDER]: provider },
          activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
        };
      };
    },
    optionsFor: providerOptionsFor,
    install: (world, variant) =>
      world.install(defined.package(), defined.app(variant ? defined.optionsFor(variant) : {})),
    confirmIntent: () => Intent.explicit(packageName, CONFIRM_ACTIVITY),
    fixture: (spec) => {
      const userGrantedScopes = spec.userGrantedScopes ?? policy.userGranted;
      if (userGrantedScopes === null)
        throw new Error(
          `${packageName}: fixture() needs userGrantedScopes, the scopes your authorize function grants only after the user agrees ([] if none)`,
        );
      return {
        // The resume-token lifetime is configuration no reply states: the resume-token-expiry oracle needs it.
        resumeTokenTtlMs: baseOptions.resumeTokenTtlMs ?? DEFAULT_PROVIDER_OPTIONS.resumeTokenTtlMs,
        ...(definition.model !== undefined ? { model: definition.model } : {}),
        ...spec,
        ...ownOracles(definition.invariants, spec.invariants),
        packageName,
        authority,
        userGrantedScopes,
        install: (world, variant) => defined.install(world, variant),
      };
    },
    listTools: () => tools.map((t) => toolDescriptor(t, ALL_CAPABILITIES)),
  };
  return defined;
}

/** The definition's invariants and the fixture's, together (the fixture's last). */
function ownOracles(
  defined: ProviderFixture['invariants'],
  given: ProviderFixture['invariants'],
): Pick<ProviderFixture, 'invariants'> {
  if (defined === undefined && given === undefined) return {};
  return { invariants: [...(defined ?? []), ...(given ?? [])] };
}

/** The provider options a variant sets: planted bugs, ablated rules and readings (src/protocol/readings.ts). */
export function providerOptionsFor(variant: VariantLike) {
  const options = {
    plantedBugs: new Set(variant.providerBugs),
    disabledRules: new Set(variant.disabledRules),
  };
  if (variant.readings?.provider === undefined) return options;
  const variants: ProviderVariants = {
    ...DEFAULT_PROVIDER_OPTIONS.variants,
    ...(readingOptions('provider', variant.readings.provider) as Partial<ProviderVariants>),
  };
  return { ...options, variants };
}
