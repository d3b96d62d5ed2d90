/**
 * The wire-field table: every field of the protocol (src/protocol/fields.ts, derived from the key
 * tables and the wire schemas) with the oracles that judge it, as the oracles themselves declare
 * (`Checker.fields`). A field is judged on two counts: its *schema* (Bundle type, JSON type, range,
 * enum, pattern) and its *consistency* with what the world knows (a file result's size and digest
 * against the file's bytes, a PendingIntent's flags and creator against the system's record, a
 * revision against the tools it names, a session token against the UID it was issued to, an echoed
 * request_id and version against the request). A field with no oracle on either count is a gap;
 * where a black-box oracle cannot judge its consistency, FIELD_GAPS says why. `cetp-sim rules
 * --fields` prints this table; src/check/fields.test.ts holds it complete.
 */
import { fieldMatches, WIRE_FIELDS, type WireField } from '../protocol/index.ts';
import type { Checker, FieldJudgement } from './checker.ts';
import { ALL_CHECKERS } from './checkers/index.ts';

/**
 * Fields no oracle judges for consistency, each with the reason (by field id pattern, `*` wildcard).
 * Every field must have an oracle or a reason here; a reason for a field an oracle now judges is
 * stale (the completeness test fails on both).
 */
export const FIELD_GAPS: Readonly<Record<string, string>> = {
  'req:*:protocol_version':
    'a constant (2): its type and value are the schema; the version a call is answered in is judged on the response echo',
  'req:get_provider_info:deadline_at_ms':
    'reads have no effect to order against the deadline; the deadline of writes is judged (deadline-before-effect)',
  'req:list_tools:deadline_at_ms': 'as get_provider_info: a read',
  'req:get_operation:deadline_at_ms': 'as get_provider_info: a read of an operation',
  'req:cancel_operation:deadline_at_ms':
    'a cancel after its deadline is not a business effect; whether the operation then ends cancelled is cancelled-has-no-effect',
  'res:negotiateSuccess:status': 'a constant; its type and value are the schema (wire-well-formed)',
  'res:success:status': 'a constant; the schema (wire-well-formed)',
  'res:accepted:data': 'its fields are judged one by one (json:accepted/*)',
  'res:negotiateSuccess:data': 'its fields are judged one by one (json:negotiate_response/*)',
  'res:error:error_details':
    'free JSON the spec gives no content (5-04): only its type (an object) can be judged',
  'res:negotiateError:*':
    'negotiate has no envelope to echo (NOTES 20); its codes and retryability are judged like any error (wire-well-formed on the error keys)',
  'res:negotiateError:error_code': 'as res:error:error_code',
  'json:provider_info/schema_dialect':
    'the simulation implements Draft 2020-12 only (tool-schema.ts); another dialect is refused by the consumer, not judged against the world',
  'json:provider_info/scopes': 'the list is judged through each scope’s name (authorized-effect)',
  'json:provider_info/scopes[]': 'as json:provider_info/scopes',
  'json:provider_info/scopes[]/title': 'display text',
  'json:provider_info/scopes[]/description': 'display text',
  'json:provider_info/scopes[]/access':
    'a self-description with no ground truth: which data a scope reaches is the app’s own business logic',
  'json:provider_info/scopes[]/sensitivity': 'a self-description with no ground truth (as access)',
  'json:list_tools_response/tools[]':
    'each descriptor is judged through its fields; the list as a whole against its revision (catalogue-revision)',
  'json:list_tools_response/tools[]/annotations':
    'judged through its fields (confirmation: approval-binding; effect: the fixture’s declared effects and v1-read-only)',
  'json:list_tools_response/tools[]/annotations/effect':
    'oracles take each tool’s effect from the provider’s descriptor (CheckContext.toolEffects), not from this answer; a provider that lies here is caught through the effects it commits (single-effect, args-binding) and v1-read-only',
  'json:list_tools_response/tools[]/annotations/risk': 'a self-description with no ground truth in the world',
  'json:list_tools_response/tools[]/annotations/destructive': 'a self-description with no ground truth',
  'json:list_tools_response/tools[]/annotations/idempotent':
    'idempotent=true exempts nothing (6-09): every non-read is judged deduplicated whatever it says',
  'json:list_tools_response/tools[]/annotations/open_world': 'a self-description with no ground truth',
  'json:list_tools_response/tools[]/annotations/execution':
    'whether a tool may answer accepted is judged by the session’s capability (capability-gating), not by this hint',
  'json:negotiate_response/limits':
    'judged through its fields (max_request_bytes, max_inline_result_bytes, idempotency_window_seconds)',
  'json:execution_result/media_type':
    'the simulated file store keeps bytes, not media types: nothing to compare it with',
  'json:operation_status/result': 'judged through its fields (as json:execution_result/*)',
  'json:operation_status/result/kind':
    'as json:execution_result/kind (capability-gating judges sync results)',
  'json:operation_status/result/media_type': 'as json:execution_result/media_type',
  'json:accepted/poll_after_ms':
    'GAP: a hint to the consumer; whether consumers honour it and providers set it sensibly is issue 22 item 7 (clocks)',
  'json:operation_status/poll_after_ms': 'as json:accepted/poll_after_ms',
  'json:operation_status/progress': 'optional display data (4.4-08 MAY)',
  'json:operation_status/progress/*': 'optional display data (4.4-08 MAY)',
  'json:operation_status/error':
    'its fields follow §5 (4.4-06): the schema judges them; same-terminal-result compares the failure',
  'json:operation_status/error/*': 'as res:error:* (schema)',
};

export interface FieldRow {
  readonly field: WireField;
  readonly judgedBy: readonly { readonly checker: string; readonly judgement: FieldJudgement }[];
  /** Why no oracle judges its consistency (null when one does). */
  readonly gap: string | null;
}

function gapReason(id: string): string | null {
  for (const [pattern, reason] of Object.entries(FIELD_GAPS)) if (fieldMatches(pattern, id)) return reason;
  return null;
}

/** The table: each wire field, the oracles that declare they judge it, and its gap reason if any. */
export function fieldTable(checkers: readonly Checker[] = ALL_CHECKERS): FieldRow[] {
  return WIRE_FIELDS.map((field) => {
    const judgedBy = checkers.flatMap((checker) =>
      (checker.fields ?? [])
        .filter((j) => j.fields.some((p) => fieldMatches(p, field.id)))
        .map((judgement) => ({ checker: checker.id, judgement })),
    );
    const consistent = judgedBy.some((j) => j.judgement.aspect === 'consistency');
    return { field, judgedBy, gap: consistent ? null : gapReason(field.id) };
  });
}

/** Fields no oracle judges at all, or none for consistency and without a reason. */
export function unexplainedGaps(rows: readonly FieldRow[]): FieldRow[] {
  return rows.filter(
    (r) =>
      r.judgedBy.length === 0 ||
      (r.gap === null && !r.judgedBy.some((j) => j.judgement.aspect === 'consistency')),
  );
}
