/** Test helpers any layer's tests may use. Not part of the public API. */

/** The error of class `type` that `fn` throws: another error is rethrown, and none at all fails. */
export function thrownBy<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}, nothing was thrown`);
}
