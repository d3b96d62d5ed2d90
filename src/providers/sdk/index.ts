/**
 * The provider SDK's public surface: defineProvider({ packageName, descriptor, tools, authorize? })
 * makes the whole app (provider class, manifest, app factory, fuzz install); or subclass
 * CetpV2ContentProvider with your tools and ship providerPackage(...) as your manifest. Either way
 * the SDK enforces the provider side of the spec.
 */

export { CetpConfirmActivity, CONFIRM_ACTIVITY } from './confirmations.ts';
export {
  type AuthorizeFunction,
  type AuthorizePolicy,
  type DefinedProvider,
  type DefinedProviderClass,
  DefinedToolProvider,
  defineProvider,
  type FixtureSpec,
  type ProviderDefinition,
  type ProviderOptionsInput,
  type ProviderSetup,
  type VariantLike,
} from './define.ts';
export { type GrantPolicyOptions, ScopeGrantPolicy } from './grants.ts';
export {
  CETP_PROVIDER,
  CETP_SERVICE,
  META_AUTHORITY,
  META_VERSION,
  META_VERSIONS,
  type ProviderPackageOptions,
  providerPackage,
  TOOL_PROVIDER_ACTION,
} from './manifest.ts';
export { CetpV2ContentProvider, type ProviderConfig } from './provider.ts';
export {
  type AccessDecision,
  type AuthorizationRequest,
  type CallerIdentity,
  type CetpProviderDescriptor,
  type ConfirmationText,
  DEFAULT_PROVIDER_OPTIONS,
  durableMutationExecutor,
  isReadTool,
  type MutationExecutor,
  type MutationTool,
  type ProviderLimits,
  type ProviderOptions,
  type ProviderScope,
  type ProviderTool,
  type ProviderVariants,
  type ReadTool,
  type ToolAnnotations,
  type ToolCall,
  ToolFailure,
  type WorkControl,
} from './types.ts';
