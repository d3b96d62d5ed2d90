/**
 * Translates ajv validation errors into ProtocolIssues: JSON pointer paths, a stable issue code per
 * JSON Schema keyword, and the rule ids found on the schema (`x-rules` of the deepest schema node on
 * the error's schema path; see core.ts for the annotation keywords).
 */
import { type IssueCode, issue, type ProtocolIssue, pointerToken } from '../issues.ts';
import type { RuleId } from '../rule-ids.ts';
import type { ErrorObject } from './ajv.ts';

const CODE_BY_KEYWORD: Readonly<Record<string, IssueCode>> = {
  required: 'missing_required',
  enum: 'unknown_enum_value',
  const: 'unknown_enum_value',
  type: 'wrong_type',
  pattern: 'pattern_mismatch',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  minLength: 'length_out_of_range',
  maxLength: 'length_out_of_range',
  minItems: 'length_out_of_range',
  maxItems: 'length_out_of_range',
  oneOf: 'no_matching_variant',
  anyOf: 'no_matching_variant',
};

/** Keywords whose failure is already reported by the errors of their subschemas. */
const REDUNDANT_KEYWORDS: ReadonlySet<string> = new Set(['if']);

type Node = Readonly<Record<string, unknown>>;

/** Ajv errors → issues for a wire shape whose root schema is `root`. */
export function issuesFromAjvErrors(errors: readonly ErrorObject[], root: Node): ProtocolIssue[] {
  const issues: ProtocolIssue[] = [];
  for (const e of errors) {
    if (REDUNDANT_KEYWORDS.has(e.keyword)) continue;
    const walk = walkSchemaPath(root, e.schemaPath);
    // Field-specific rules first: for `required`, those of the missing property.
    const rules = new Set<RuleId>(e.keyword === 'required' ? rulesOf(propertySchema(walk.node, e)) : []);
    for (const r of walk.rules) rules.add(r);
    let code: IssueCode = CODE_BY_KEYWORD[e.keyword] ?? 'schema_violation';
    let path = e.instancePath;
    let message = e.message ?? `violates ${e.keyword}`;
    if (e.keyword === 'required') {
      const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
      path = `${e.instancePath}/${pointerToken(missing)}`;
      message = `missing required field ${JSON.stringify(missing)}`;
      if (walk.node?.['x-descriptor'] === true) rules.add('CETP-3.2-11');
    } else if (e.keyword === 'enum' || e.keyword === 'const') {
      const allowed = (e.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [
        (e.params as { allowedValue?: unknown }).allowedValue,
      ];
      message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
      if (walk.node?.['x-security-enum'] === true) rules.add('CETP-3.2-12');
    } else if (e.keyword === 'discriminator') {
      const p = e.params as { tag?: string; tagValue?: unknown };
      const tag = p.tag ?? 'kind';
      path = `${e.instancePath}/${pointerToken(tag)}`;
      code = p.tagValue === undefined ? 'missing_required' : 'unknown_enum_value';
      message =
        p.tagValue === undefined
          ? `missing required field ${JSON.stringify(tag)}`
          : `unknown ${tag} ${JSON.stringify(p.tagValue)}`;
    }
    issues.push(issue(code, `${path === '' ? '/' : path}: ${message}`, [...rules], path));
  }
  return issues;
}

/**
 * Follows an ajv schemaPath (`#/properties/a/items/required`) from the root, returning the rule ids
 * of the deepest node that declares `x-rules`, and the node that holds the failing keyword.
 */
function walkSchemaPath(
  root: Node,
  schemaPath: string,
): { rules: readonly RuleId[]; node: Node | undefined } {
  const tokens = schemaPath
    .replace(/^#\/?/, '')
    .split('/')
    .filter((t) => t !== '');
  tokens.pop(); // the failing keyword itself
  let node: unknown = root;
  let rules = rulesOf(root);
  for (const raw of tokens) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null) return { rules, node: undefined };
    node = (node as Record<string, unknown>)[token];
    const here = rulesOf(node);
    if (here.length > 0) rules = here;
  }
  return { rules, node: typeof node === 'object' && node !== null ? (node as Node) : undefined };
}

function propertySchema(objectNode: Node | undefined, e: ErrorObject): unknown {
  const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
  const props = objectNode?.properties as Record<string, unknown> | undefined;
  return props !== undefined && Object.hasOwn(props, missing) ? props[missing] : undefined;
}

function rulesOf(node: unknown): readonly RuleId[] {
  if (typeof node !== 'object' || node === null) return [];
  const rules = (node as Node)['x-rules'];
  return Array.isArray(rules) ? (rules as RuleId[]) : [];
}
