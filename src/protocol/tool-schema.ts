/**
 * Checks on a tool's input_schema / output_schema (spec §3.2), shared by the provider SDK at start-up
 * and by the consumer, which treats every schema as untrusted (CETP-7.3-01, 7.3-02):
 * - the dialect is Draft 2020-12: `$schema` absent or equal to it (CETP-3.2-06, 3.2-07);
 * - no network resources: `$ref`/`$dynamicRef` only to same-document fragments (`#…`) and no `$id`
 *   naming a network URL (CETP-3.2-08, 3.2-09);
 * - bounded size and depth, then it compiles with Ajv2020 (no loader, so nothing is ever fetched).
 * `format` is an annotation, as in Draft 2020-12's default vocabulary.
 */

import { BoundedMemo } from '../base/memo.ts';
import { utf8Length } from './digest.ts';
import { fail, issue, ok, type ProtocolIssue, pointerToken, type WireResult } from './issues.ts';
import { AJV_OPTIONS, type Ajv2020Instance, SharedMetaAjv } from './schemas/ajv.ts';
import { DRAFT_2020_12 } from './schemas/core.ts';

export interface ToolSchemaCaps {
  /** Largest schema accepted, in UTF-8 bytes of its JSON text. */
  readonly maxBytes: number;
  /** Deepest nesting of JSON objects/arrays accepted. */
  readonly maxDepth: number;
}

export const DEFAULT_TOOL_SCHEMA_CAPS: ToolSchemaCaps = Object.freeze({ maxBytes: 262_144, maxDepth: 64 });

export type ToolSchemaRole = 'input' | 'output';
/** Validates a value (args or output) against a compiled tool schema. */
export type ToolValueValidator = (value: unknown) => ProtocolIssue[];

/** CETP-3.2-06, 3.2-07: the session's schema_dialect must be one we implement (only Draft 2020-12). */
export function checkSchemaDialect(dialect: string | undefined, path = '/schema_dialect'): ProtocolIssue[] {
  if (dialect === undefined || dialect === DRAFT_2020_12) return [];
  return [
    issue(
      'unsupported_dialect',
      `schema_dialect ${JSON.stringify(dialect)} is not ${DRAFT_2020_12}`,
      ['CETP-3.2-06', 'CETP-3.2-07'],
      path,
    ),
  ];
}

/**
 * Holds one Ajv instance so that checking many schemas (every tool of every provider) pays for the
 * meta-schema once. Schemas are not retained between calls (addUsedSchema off, removed after
 * compile), so one provider's `$id`s can neither collide with nor resolve into another's.
 */
/**
 * Compiles per Ajv instance before a fresh one takes over. Ajv's value scope keeps every function it
 * ever generated, even after removeSchema, so a long-lived compiler fed new schema objects (a fuzz
 * campaign checks every run's tool list) would grow without bound; validators already handed out keep
 * their old instance alive only as long as they are used.
 */
const COMPILES_PER_AJV = 256;

function newAjv(): Ajv2020Instance {
  return new SharedMetaAjv(AJV_OPTIONS);
}

export class ToolSchemaCompiler {
  private ajv: Ajv2020Instance;
  private compiles = 0;
  private readonly caps: ToolSchemaCaps;
  /** Verdicts by schema JSON (bounded like the Ajv instance). */
  private readonly byJson = new BoundedMemo<string, Compiled>(COMPILES_PER_AJV);

  constructor(caps: Partial<ToolSchemaCaps> = {}) {
    this.caps = Object.assign({}, DEFAULT_TOOL_SCHEMA_CAPS, caps);
    this.ajv = newAjv();
  }

  /** All issues with `schema`; empty when it is safe to use. */
  check(schema: unknown, path = ''): ProtocolIssue[] {
    const compiled = this.compile(schema, 'input', path);
    return compiled.ok ? [] : compiled.issues;
  }

  /** Checks `schema`, then compiles it into a validator for args (`input`) or results (`output`). */
  compile(schema: unknown, role: ToolSchemaRole, path = ''): WireResult<ToolValueValidator> {
    const checked = staticIssues(schema, this.caps, path);
    if (checked.issues.length > 0) return fail(checked.issues);
    const compiled = this.compiledFor(schema as object | boolean, checked.json);
    if ('failure' in compiled) {
      return fail([
        issue('schema_compile_failed', `schema does not compile: ${compiled.failure}`, ['CETP-7.3-02'], path),
      ]);
    }
    const validate = compiled.validate;
    return ok((value: unknown) => (validate(value) ? [] : valueIssues(validate.errors ?? [], role)));
  }

  /**
   * Ajv's verdict on a schema, by its JSON text: the same schema is checked again and again (each
   * catalogue a consumer reads, every app start), and generating a validator costs milliseconds.
   */
  private compiledFor(schema: object | boolean, json: string): Compiled {
    return this.byJson.get(json, () => this.compileNow(schema));
  }

  private compileNow(schema: object | boolean): Compiled {
    if (++this.compiles > COMPILES_PER_AJV) {
      this.ajv = newAjv();
      this.compiles = 1;
    }
    try {
      return { validate: this.ajv.compile(schema) };
    } catch (e) {
      return { failure: (e as Error).message };
    } finally {
      if (typeof schema === 'object') this.ajv.removeSchema(schema);
    }
  }
}

type Compiled = { readonly validate: ReturnType<Ajv2020Instance['compile']> } | { readonly failure: string };

/** One-off check; hold a ToolSchemaCompiler instead when checking many schemas. */
export function checkToolSchema(
  schema: unknown,
  caps: Partial<ToolSchemaCaps> = {},
  path = '',
): ProtocolIssue[] {
  return new ToolSchemaCompiler(caps).check(schema, path);
}

function valueIssues(
  errors: readonly { instancePath: string; message?: string }[],
  role: ToolSchemaRole,
): ProtocolIssue[] {
  return errors.map((e) =>
    role === 'input'
      ? issue(
          'input_schema_violation',
          `args${e.instancePath}: ${e.message ?? 'invalid'}`,
          ['CETP-5-14'],
          e.instancePath,
        )
      : issue(
          'output_schema_violation',
          `result${e.instancePath}: ${e.message ?? 'invalid'}`,
          ['CETP-4.2-02', 'CETP-4.2-03'],
          e.instancePath,
        ),
  );
}

/** The schema's static issues and, when it is a schema of acceptable depth, its JSON text. */
function staticIssues(
  schema: unknown,
  caps: ToolSchemaCaps,
  path: string,
): { readonly issues: ProtocolIssue[]; readonly json: string } {
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    return {
      issues: [issue('not_a_schema', 'a JSON Schema must be an object or a boolean', ['CETP-3.2-07'], path)],
      json: '',
    };
  }
  const depth = jsonDepth(schema, caps.maxDepth);
  if (depth > caps.maxDepth) {
    return {
      issues: [issue('schema_too_deep', `schema nests deeper than ${caps.maxDepth}`, ['CETP-7.3-01'], path)],
      json: '',
    };
  }
  const json = JSON.stringify(schema);
  const bytes = utf8Length(json);
  if (bytes > caps.maxBytes) {
    return {
      issues: [
        issue('schema_too_large', `schema is ${bytes} bytes, over ${caps.maxBytes}`, ['CETP-7.3-01'], path),
      ],
      json,
    };
  }
  const issues: ProtocolIssue[] = [];
  visitSchema(schema, path, issues);
  return { issues, json };
}

/** Nesting depth of a JSON value, counted iteratively and abandoned once it passes `limit`. */
function jsonDepth(root: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    max = Math.max(max, depth);
    if (max > limit) return max;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Keywords whose value is a subschema, an array of them, or a name → subschema map (Draft 2020-12). */
const SINGLE = [
  'additionalProperties',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

const NETWORK_URL = /^(?:[a-z][a-z0-9+.-]*:)?\/\//i;

/**
 * Walks schema positions only — not `properties` names, `enum`/`const`/`default`/`examples` data or
 * unknown keywords — so a property literally named "$ref" is not mistaken for a reference.
 */
function visitSchema(node: unknown, path: string, issues: ProtocolIssue[]): void {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  const s = node as Record<string, unknown>;
  if ('$schema' in s && s.$schema !== DRAFT_2020_12) {
    issues.push(
      issue(
        'dialect_mismatch',
        `$schema ${JSON.stringify(s.$schema)} is not ${DRAFT_2020_12}`,
        ['CETP-3.2-06', 'CETP-3.2-07'],
        `${path}/$schema`,
      ),
    );
  }
  for (const key of ['$ref', '$dynamicRef']) {
    const ref = s[key];
    if (key in s && (typeof ref !== 'string' || !ref.startsWith('#'))) {
      issues.push(
        issue(
          'external_ref',
          `${key} ${JSON.stringify(ref)} is not a same-document fragment`,
          ['CETP-3.2-08', 'CETP-3.2-09'],
          `${path}/${key}`,
        ),
      );
    }
  }
  if (typeof s.$id === 'string' && NETWORK_URL.test(s.$id)) {
    issues.push(
      issue(
        'network_id',
        `$id ${JSON.stringify(s.$id)} names a network resource`,
        ['CETP-3.2-08'],
        `${path}/$id`,
      ),
    );
  }
  for (const key of SINGLE)
    if (key in s && !Array.isArray(s[key])) visitSchema(s[key], `${path}/${key}`, issues);
  for (const key of LIST) {
    const list = s[key];
    if (!Array.isArray(list)) continue;
    list.forEach((sub, i) => {
      visitSchema(sub, `${path}/${key}/${i}`, issues);
    });
  }
  for (const key of MAP) {
    const map = s[key];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) continue;
    for (const [name, sub] of Object.entries(map))
      visitSchema(sub, `${path}/${key}/${pointerToken(name)}`, issues);
  }
}
