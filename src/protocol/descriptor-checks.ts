/**
 * Full checks of the descriptor objects a provider serves (spec §3.2 – §3.4): shape (unknown fields
 * ignored, CETP-3.2-10; missing required fields and unknown security enum values rejected, 3.2-11,
 * 3.2-12), then the rules that span fields — annotation consistency, tool schema safety, scope names
 * declared in the catalogue, unique tool names, provider_id under the package namespace.
 *
 * Reading of NOTES 15 (reaction to a bad descriptor): checkToolList rejects the offending tool and
 * keeps the others, so one bad tool neither hides nor exposes the rest; a rejected tool is never
 * offered for invocation.
 */
import { checkAnnotationConsistency, type ToolAnnotations } from './annotations.ts';
import { fail, issue, type ProtocolIssue, resultOf, type WireResult } from './issues.ts';
import { checkProviderId } from './names.ts';
import { validateWire, type WireShape } from './schemas/registry.ts';
import { checkSchemaDialect, ToolSchemaCompiler } from './tool-schema.ts';

export interface DescriptorContext {
  /** Capabilities of the session the descriptors were served in (CETP-3.4-10). */
  readonly negotiatedCapabilities: readonly string[];
  /** The provider's scope catalogue, when known: tool scopes must be declared in it (CETP-3.2-01). */
  readonly scopeNames?: readonly string[];
  /** Reused across calls to compile many tool schemas cheaply. */
  readonly compiler?: ToolSchemaCompiler;
}

function prefixed(issues: ProtocolIssue[], path: string): ProtocolIssue[] {
  return path === '' ? issues : issues.map((i) => ({ ...i, path: `${path}${i.path ?? ''}` }));
}

/** Untrusted annotations: shape, enums, then the §3.4 consistency rules. */
export function checkAnnotations(
  value: unknown,
  context: Pick<DescriptorContext, 'negotiatedCapabilities'>,
  path = '',
): WireResult<ToolAnnotations> {
  const shaped = validateWire('tool_annotations', value);
  if (!shaped.ok) return fail(prefixed(shaped.issues, path));
  return resultOf(shaped.value, checkAnnotationConsistency(shaped.value, context, path));
}

/** get_provider_info data; `packageName` is the provider's package, when known (CETP-3.1-02). */
export function checkProviderInfo(
  value: unknown,
  context: { readonly packageName?: string } = {},
): WireResult<WireShape<'provider_info'>> {
  const shaped = validateWire('provider_info', value);
  if (!shaped.ok) return shaped;
  const info = shaped.value;
  const issues = [...checkSchemaDialect(info.schema_dialect)];
  if (context.packageName !== undefined)
    issues.push(...checkProviderId(info.provider_id, context.packageName, '/provider_id'));
  info.scopes.forEach((scope, index) => {
    if (info.scopes.findIndex((s) => s.name === scope.name) !== index) {
      issues.push(
        issue(
          'duplicate_name',
          `scope ${scope.name} is declared twice`,
          ['CETP-3.2-02'],
          `/scopes/${index}/name`,
        ),
      );
    }
  });
  return resultOf(info, issues);
}

/** One tool descriptor from list_tools. */
export function checkToolDescriptor(
  value: unknown,
  context: DescriptorContext,
  path = '',
): WireResult<WireShape<'tool_descriptor'>> {
  const shaped = validateWire('tool_descriptor', value);
  if (!shaped.ok) return fail(prefixed(shaped.issues, path));
  const tool = shaped.value;
  const compiler = context.compiler ?? new ToolSchemaCompiler();
  const issues = [
    ...checkAnnotationConsistency(tool.annotations, context, `${path}/annotations`),
    ...compiler.check(tool.input_schema, `${path}/input_schema`),
    ...compiler.check(tool.output_schema, `${path}/output_schema`),
  ];
  const declared = context.scopeNames;
  tool.scopes.forEach((scope, i) => {
    if (declared !== undefined && !declared.includes(scope)) {
      issues.push(
        issue(
          'undeclared_scope',
          `scope ${scope} is not in the provider's scope catalogue`,
          ['CETP-3.2-01'],
          `${path}/scopes/${i}`,
        ),
      );
    }
  });
  return resultOf(tool, issues);
}

export interface RejectedTool {
  readonly index: number;
  readonly name: string | null;
  readonly issues: ProtocolIssue[];
}

export interface ToolListCheck {
  readonly revision: string | null;
  readonly accepted: WireShape<'tool_descriptor'>[];
  readonly rejected: RejectedTool[];
  /** Problems with the list itself (not attributable to one tool). */
  readonly issues: ProtocolIssue[];
}

/** list_tools data: every tool checked on its own; duplicate names reject every tool of that name. */
export function checkToolList(value: unknown, context: DescriptorContext): ToolListCheck {
  const listIssues: ProtocolIssue[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    listIssues.push(issue('wrong_type', 'list_tools data must be a JSON object', ['CETP-4-03'], ''));
    return { revision: null, accepted: [], rejected: [], issues: listIssues };
  }
  const { revision, tools } = value as { revision?: unknown; tools?: unknown };
  const validRevision = typeof revision === 'string' && revision !== '' ? revision : null;
  if (validRevision === null) {
    listIssues.push(
      issue('missing_required', 'revision must be a non-empty string', ['CETP-3.3-03'], '/revision'),
    );
  }
  if (!Array.isArray(tools)) {
    listIssues.push(issue('missing_required', 'tools must be an array', ['CETP-4-03'], '/tools'));
    return { revision: validRevision, accepted: [], rejected: [], issues: listIssues };
  }
  const compiler = context.compiler ?? new ToolSchemaCompiler();
  const names = tools.map((t: unknown) => {
    const name = typeof t === 'object' && t !== null ? (t as { name?: unknown }).name : undefined;
    return typeof name === 'string' ? name : null;
  });
  const accepted: WireShape<'tool_descriptor'>[] = [];
  const rejected: RejectedTool[] = [];
  tools.forEach((tool: unknown, index) => {
    const name = names[index] ?? null;
    const checked = checkToolDescriptor(tool, Object.assign({}, context, { compiler }), `/tools/${index}`);
    const issues = checked.ok ? [] : [...checked.issues];
    if (name !== null && names.filter((n) => n === name).length > 1) {
      issues.push(
        issue('duplicate_name', `tool name ${name} is not unique`, ['CETP-3.1-04'], `/tools/${index}/name`),
      );
    }
    if (checked.ok && issues.length === 0) accepted.push(checked.value);
    else rejected.push({ index, name, issues });
  });
  return { revision: validRevision, accepted, rejected, issues: listIssues };
}
