/**
 * src/protocol — the CETP v2 wire vocabulary shared by the provider SDK and the consumer: rule
 * catalogue, methods and capabilities, Bundle keys and envelopes, error codes and error Bundles,
 * annotations, limits, names, descriptor JSON Schemas, tool schema checks and digests. It knows
 * nothing of the simulation; Bundles are seen through the structural BundleReader/BundleWriter.
 */
export * from './annotations.ts';
export type { BundleReader, BundleValueType, BundleWriter } from './bundle-types.ts';
export * from './descriptor-checks.ts';
export * from './digest.ts';
export * from './discovery.ts';
export * from './envelope.ts';
export * from './error-bundle.ts';
export * from './error-message.ts';
export * from './errors.ts';
export * from './fields.ts';
export {
  type IssueCode,
  issue,
  type ProtocolIssue,
  type WireResult,
  withoutDisabledRules,
} from './issues.ts';
export * from './json-text.ts';
export * from './keys.ts';
export * from './limits.ts';
export * from './methods.ts';
export * from './names.ts';
export * from './negotiation.ts';
export * from './response.ts';
export * from './rules.ts';
export { DRAFT_2020_12, type FromSchema } from './schemas/core.ts';
export type { ConsumerCapabilities, Limits, NegotiateResponse } from './schemas/negotiate.ts';
export {
  type CancelResponse,
  type ErrorDetails,
  OPERATION_STATES,
  type OperationError,
  type OperationProgress,
  type OperationState,
  type OperationStatus,
  TERMINAL_OPERATION_STATES,
} from './schemas/operation.ts';
export type { ProviderInfo, ScopeDescriptor } from './schemas/provider-info.ts';
export {
  isWireShapeName,
  type PublishedSchema,
  parseWire,
  validateWire,
  WIRE_SCHEMAS,
  WIRE_SHAPE_NAMES,
  type WireShape,
  type WireShapeName,
} from './schemas/registry.ts';
export type { Accepted, ExecutionResult, FileResult, InlineResult } from './schemas/results.ts';
export { SPEC_EXAMPLES, type SpecExample, type SpecExampleName } from './schemas/spec-examples.ts';
export type { ListToolsResponse, ToolDescriptor } from './schemas/tool.ts';
export * from './tool-schema.ts';
