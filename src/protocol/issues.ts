/**
 * Typed findings returned by every check in src/protocol. A check never throws on bad input: it
 * returns issues, each naming the spec rule ids (spec/rules.json) it enforces, so a provider can map
 * them to a wire error and a checker can cite the rule that was broken.
 */
import type { RuleId } from './rule-ids.ts';

export interface ProtocolIssue {
  /** Machine-readable kind of problem (one of IssueCode for issues built here). */
  code: string;
  /** JSON pointer into the checked value, or the Bundle key, when the issue has a location. */
  path?: string;
  message: string;
  ruleIds: string[];
}

/** The outcome of parsing or validating an untrusted value. */
export type WireResult<T> = { ok: true; value: T } | { ok: false; issues: ProtocolIssue[] };

export type IssueCode =
  // Bundle envelopes
  | 'missing_key'
  | 'wrong_bundle_type'
  | 'wrong_protocol_version'
  | 'invalid_uuid'
  | 'invalid_json'
  | 'invalid_deadline'
  | 'empty_value'
  | 'invalid_versions'
  | 'invalid_tool_name'
  | 'args_too_large'
  | 'unknown_status'
  | 'echo_mismatch'
  | 'outcome_not_negotiated'
  // methods and capabilities
  | 'unknown_method'
  | 'capability_not_negotiated'
  // errors
  | 'unknown_error_code'
  | 'retryable_mismatch'
  | 'unsafe_error_message'
  | 'not_serializable'
  // annotations, names, descriptors
  | 'inconsistent_confirmation'
  | 'async_not_negotiated'
  | 'invalid_scope_name'
  | 'provider_id_outside_namespace'
  | 'duplicate_name'
  | 'undeclared_scope'
  // negotiation and limits
  | 'limit_below_minimum'
  | 'version_not_selectable'
  | 'capability_not_offered'
  | 'session_token_too_long'
  // JSON Schema validation of wire shapes
  | 'unknown_shape'
  | 'missing_required'
  | 'unknown_enum_value'
  | 'wrong_type'
  | 'pattern_mismatch'
  | 'out_of_range'
  | 'length_out_of_range'
  | 'no_matching_variant'
  | 'schema_violation'
  // tool input/output schemas
  | 'not_a_schema'
  | 'unsupported_dialect'
  | 'dialect_mismatch'
  | 'external_ref'
  | 'network_id'
  | 'schema_too_large'
  | 'schema_too_deep'
  | 'schema_compile_failed'
  | 'input_schema_violation'
  | 'output_schema_violation'
  // the rule catalogue itself
  | 'catalogue_malformed';

/** Builds an issue; `ruleIds` is typed so that a misspelt rule id does not compile. */
export function issue(
  code: IssueCode,
  message: string,
  ruleIds: readonly RuleId[],
  path?: string,
): ProtocolIssue {
  const built: ProtocolIssue = { code, message, ruleIds: [...ruleIds] };
  if (path !== undefined) built.path = path;
  return built;
}

export function ok<T>(value: T): WireResult<T> {
  return { ok: true, value };
}

export function fail<T>(issues: ProtocolIssue[]): WireResult<T> {
  return { ok: false, issues };
}

/** `ok(value)` when no issues were found, else `fail(issues)`. */
export function resultOf<T>(value: T, issues: ProtocolIssue[]): WireResult<T> {
  return issues.length === 0 ? ok(value) : fail(issues);
}

/** Escapes one JSON pointer reference token (RFC 6901). */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Rule ablation: drops the issues whose every rule id is switched off, so a spec author can disable
 * a rule by id and see what breaks. An issue citing no rule, or any rule still on, is kept.
 */
export function withoutDisabledRules(
  issues: readonly ProtocolIssue[],
  disabled: ReadonlySet<string>,
): ProtocolIssue[] {
  return issues.filter((i) => i.ruleIds.length === 0 || i.ruleIds.some((id) => !disabled.has(id)));
}
