/**
 * Tool annotations and scope attributes (spec §3.4 and §3.2): the security-relevant enums and the
 * §3.4 consistency rules between them.
 *
 * Decision (NOTES 15): on the wire all seven annotation fields are required. The spec's SDK example
 * omits destructive, open_world and execution, but that is the SDK filling defaults before it
 * serializes; a descriptor that arrives without one of them is rejected (CETP-3.2-11), because a
 * Consumer defaulting `destructive` to false could accept confirmation=provider_policy for a tool
 * that is destructive, defeating CETP-3.4-09. The required list lives in schemas/tool.ts.
 */
import { issue, type ProtocolIssue } from './issues.ts';
import type { ToolAnnotations } from './schemas/tool.ts';

export const EFFECTS = ['read', 'create', 'update', 'delete', 'transaction'] as const;
export type Effect = (typeof EFFECTS)[number];

export const RISKS = ['low', 'moderate', 'high'] as const;
export type Risk = (typeof RISKS)[number];

export const CONFIRMATIONS = ['never', 'provider_policy', 'always'] as const;
export type Confirmation = (typeof CONFIRMATIONS)[number];

export const EXECUTIONS = ['sync', 'sync_or_async'] as const;
export type Execution = (typeof EXECUTIONS)[number];

export const SCOPE_ACCESS = ['read', 'write'] as const;
export type ScopeAccess = (typeof SCOPE_ACCESS)[number];

export const SENSITIVITIES = ['public', 'personal', 'financial', 'health', 'device', 'other'] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

export type { ToolAnnotations } from './schemas/tool.ts';

/**
 * Why a tool needs confirmation=always (CETP-3.4-09): the triggers present in its annotations, in
 * spec order. Empty when none applies.
 */
export function alwaysConfirmationTriggers(a: ToolAnnotations): string[] {
  const triggers: string[] = [];
  if (a.effect === 'delete' || a.effect === 'transaction') triggers.push(`effect=${a.effect}`);
  if (a.destructive) triggers.push('destructive=true');
  if (a.risk === 'high') triggers.push('risk=high');
  return triggers;
}

export interface AnnotationContext {
  /** Capabilities negotiated in the session the descriptor is served in. */
  readonly negotiatedCapabilities: readonly string[];
}

/**
 * The §3.4 consistency rules on well-formed annotations (use checkAnnotations in
 * descriptor-checks.ts for untrusted JSON, which also rejects missing fields and unknown enum values).
 */
export function checkAnnotationConsistency(
  a: ToolAnnotations,
  context: AnnotationContext,
  path = '',
): ProtocolIssue[] {
  const issues: ProtocolIssue[] = [];
  const triggers = alwaysConfirmationTriggers(a);
  if (triggers.length > 0 && a.confirmation !== 'always') {
    issues.push(
      issue(
        'inconsistent_confirmation',
        `${triggers.join(', ')} requires confirmation=always, got confirmation=${a.confirmation}`,
        ['CETP-3.4-09', 'CETP-10-02'],
        `${path}/confirmation`,
      ),
    );
  }
  if (a.execution === 'sync_or_async' && !context.negotiatedCapabilities.includes('async_operations')) {
    issues.push(
      issue(
        'async_not_negotiated',
        'execution=sync_or_async is only allowed when async_operations was negotiated',
        ['CETP-3.4-10'],
        `${path}/execution`,
      ),
    );
  }
  return issues;
}
