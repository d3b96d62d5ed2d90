/**
 * The provider SDK's public surface: subclass CetpV2ContentProvider with your tools, ship
 * providerPackage(...) as your manifest, and the SDK enforces the provider side of the spec.
 */

export { type GrantPolicyOptions, ScopeGrantPolicy } from './grants.ts';
export { CETP_PROVIDER, CETP_SERVICE, type ProviderPackageOptions, providerPackage } from './manifest.ts';
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
