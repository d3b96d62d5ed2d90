/**
 * The JSON Schema subset the wire schemas are written in, and `FromSchema`, which derives each wire
 * type from its schema so that the schema is the single source of truth (STYLE.md habit 9).
 *
 * Why not ajv's JSONSchemaType: under exactOptionalPropertyTypes it demands `nullable: true` on
 * optional properties, which would let `null` through on the wire. Deriving the type from an
 * `as const` schema keeps one source and lets tsc check the rule ids in `x-rules`.
 */
import type { RuleId } from '../rule-ids.ts';

export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * Annotation keywords (registered with ajv as a vocabulary, ignored by validation):
 * - `x-rules`: the rules governing this value; issues raised at this node cite them.
 * - `x-descriptor`: a descriptor object (CETP-3.2-10/11): unknown fields allowed, missing required
 *   fields cite CETP-3.2-11.
 * - `x-security-enum`: an unknown value of this enum cites CETP-3.2-12.
 */
export const ANNOTATION_KEYWORDS = ['x-rules', 'x-descriptor', 'x-security-enum'] as const;

export interface SchemaNode {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly description?: string;
  readonly properties?: { readonly [name: string]: SchemaNode };
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly enum?: readonly (string | number)[];
  readonly const?: string | number | boolean;
  readonly oneOf?: readonly SchemaNode[];
  readonly allOf?: readonly SchemaNode[];
  readonly if?: SchemaNode;
  readonly then?: SchemaNode;
  readonly discriminator?: { readonly propertyName: string };
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly 'x-rules'?: readonly RuleId[];
  readonly 'x-descriptor'?: true;
  readonly 'x-security-enum'?: true;
}

/** A whole number from `minimum` up to the largest JSON carries exactly (ms, bytes, counts, limits). */
export const wholeNumber = <const R extends readonly RuleId[]>(minimum: number, rules: R) =>
  ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER, 'x-rules': rules }) as const;

/** A string that is never empty (ids, revisions, messages). */
export const nonEmptyString = <const R extends readonly RuleId[]>(rules: R) =>
  ({ type: 'string', minLength: 1, 'x-rules': rules }) as const;

type Rules = readonly RuleId[];
type Properties = { readonly [name: string]: SchemaNode };

/** A string matching `pattern` (names, hashes, media types, timestamps). */
export const patterned = <const P extends string, const R extends Rules>(pattern: P, rules: R) =>
  ({ type: 'string', pattern, 'x-rules': rules }) as const;

/** A boolean governed by `rules`. */
export const flag = <const R extends Rules>(rules: R) => ({ type: 'boolean', 'x-rules': rules }) as const;

/** A string that is exactly `value` (a discriminator or a fixed state). */
export const constant = <const V extends string, const R extends Rules>(value: V, rules: R) =>
  ({ type: 'string', const: value, 'x-rules': rules }) as const;

/** A string from `values`. */
export const oneOfStrings = <const E extends readonly string[], const R extends Rules>(values: E, rules: R) =>
  ({ type: 'string', enum: values, 'x-rules': rules }) as const;

/** A security enum (CETP-3.2-12): a string from `values`; an unknown value cites CETP-3.2-12. */
export const securityEnum = <const E extends readonly string[], const R extends Rules>(values: E, rules: R) =>
  ({ type: 'string', enum: values, 'x-rules': rules, 'x-security-enum': true }) as const;

/** An object with `properties`, of which `required` must be present, governed by `rules`. */
export const object = <
  const P extends Properties,
  const Q extends readonly (keyof P & string)[],
  const R extends Rules,
>(
  properties: P,
  required: Q,
  rules: R,
) => ({ type: 'object', properties, required, 'x-rules': rules }) as const;

/** A descriptor object (CETP-3.2-10/11): as `object`, and unknown fields are allowed. */
export const descriptor = <
  const P extends Properties,
  const Q extends readonly (keyof P & string)[],
  const R extends Rules,
>(
  ...parts: [properties: P, required: Q, rules: R]
) => ({ ...object(...parts), 'x-descriptor': true }) as const;

/** The TypeScript type of a value that validates against schema S (for the subset above). */
export type FromSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly oneOf: readonly (infer U)[] }
      ? FromVariant<U>
      : S extends { readonly type: 'object'; readonly properties: infer P }
        ? FromObject<P, RequiredOf<S>>
        : S extends { readonly type: 'object' }
          ? { [field: string]: unknown }
          : S extends { readonly type: 'array'; readonly items: infer I }
            ? FromSchema<I>[]
            : S extends { readonly type: 'string' }
              ? string
              : S extends { readonly type: 'integer' | 'number' }
                ? number
                : S extends { readonly type: 'boolean' }
                  ? boolean
                  : unknown;

type FromVariant<U> = U extends unknown ? FromSchema<U> : never;
type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;
type FromObject<P, R> = Flatten<
  { -readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K]> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]>;
  }
>;
type Flatten<T> = { [K in keyof T]: T[K] } & {};
