/**
 * The JSON Schemas of the reference apps' tool arguments and results: an object of named
 * properties, all of them listed in `required` when the tool needs them. Arguments admit no other
 * property (`additionalProperties: false`); results may grow fields. Key order is the wire's.
 */
import type { JsonObject } from '../../base/json.ts';

/** The arguments of a tool that takes none. */
export const NO_ARGS: JsonObject = { type: 'object', properties: {}, additionalProperties: false };

/** A tool's arguments: `properties`, of which `required` must be there, and nothing else. */
export function argsSchema(properties: JsonObject, required: string[]): JsonObject {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** A tool's result: `properties`, of which `required` are always there. */
export function resultSchema(properties: JsonObject, required: string[]): JsonObject {
  return { type: 'object', properties, required };
}
