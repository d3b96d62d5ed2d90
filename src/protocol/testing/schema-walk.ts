/**
 * Test helpers that walk a wire schema and a valid example together, so the schema tests can mutate
 * every required field and every enum of every spec example without listing them by hand.
 */

export type Node = Record<string, unknown>;

/** Every object node inside a schema (by identity), the root included. */
export function schemaNodes(root: unknown, out = new Set<unknown>()): Set<unknown> {
  if (typeof root !== 'object' || root === null || out.has(root)) return out;
  out.add(root);
  for (const v of Object.values(root)) schemaNodes(v, out);
  return out;
}

/** The schema that applies to `value` at this node: resolves a discriminated oneOf and if/then. */
export function effective(schema: Node, value: unknown): Node[] {
  const nodes: Node[] = [schema];
  const v = value as Node;
  if (Array.isArray(schema.oneOf)) {
    const tag = (schema.discriminator as { propertyName: string }).propertyName;
    const branch = (schema.oneOf as Node[]).find(
      (b) => (b.properties as Record<string, Node>)[tag]?.const === v[tag],
    );
    if (branch !== undefined) nodes.push(branch);
  }
  for (const clause of (schema.allOf as Node[] | undefined) ?? []) {
    const cond = (clause.if as { properties: Record<string, { const: unknown }> }).properties;
    if (Object.entries(cond).every(([k, c]) => v[k] === c.const)) nodes.push(clause.then as Node);
  }
  return nodes;
}

export interface Site {
  pointer: string;
  schema: Node;
  value: unknown;
}

/** Walks a valid example and its schema together, yielding every object node with its schemas. */
export function* objectSites(
  schema: Node,
  value: unknown,
  pointer = '',
): Generator<Site & { required: string[] }> {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    if (schema.items !== undefined) {
      for (const [i, item] of value.entries())
        yield* objectSites(schema.items as Node, item, `${pointer}/${i}`);
    }
    return;
  }
  const nodes = effective(schema, value);
  const required = nodes.flatMap((n) => (n.required as string[] | undefined) ?? []);
  const properties = Object.assign({}, ...nodes.map((n) => n.properties ?? {})) as Record<string, Node>;
  if (Object.keys(properties).length === 0) return; // a free-form object (error_details, a JSON Schema)
  yield { pointer, schema, value, required };
  for (const [key, sub] of Object.entries(properties)) {
    if (key in (value as Node)) yield* objectSites(sub, (value as Node)[key], `${pointer}/${key}`);
  }
}

/** Every enum/const-constrained string in the example, with its schema node. */
export function* enumSites(schema: Node, value: unknown, pointer = ''): Generator<Site> {
  if (typeof value === 'string' && (schema.enum !== undefined || schema.const !== undefined)) {
    yield { pointer, schema, value };
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries())
      if (schema.items) yield* enumSites(schema.items as Node, item, `${pointer}/${i}`);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const node of effective(schema, value)) {
    for (const [key, sub] of Object.entries((node.properties as Record<string, Node> | undefined) ?? {})) {
      if (key in (value as Node)) yield* enumSites(sub, (value as Node)[key], `${pointer}/${key}`);
    }
  }
}
