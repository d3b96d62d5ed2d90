/** Test helper: a deep copy of a JSON value with the member at a JSON pointer replaced or removed. */

/** Returns a copy of `value` with `pointer` set to `replacement` (or deleted when it is undefined). */
export function patched<T>(value: T, pointer: string, replacement: unknown): T {
  const copy = structuredClone(value) as unknown;
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = tokens.pop();
  if (last === undefined) return replacement as T;
  let node = copy as Record<string, unknown>;
  for (const t of tokens) node = node[t] as Record<string, unknown>;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else {
    node[last] = replacement;
  }
  return copy as T;
}
