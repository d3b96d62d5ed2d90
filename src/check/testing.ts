/** Test support for the oracles' tests (not shipped: tsconfig.build.json leaves testing.ts out). */
import type { CheckContext } from './checker.ts';

/** A check context with nothing under test and no tool known, with `over` on top. */
export function checkContext(over: Partial<CheckContext> = {}): CheckContext {
  return {
    providersUnderTest: [],
    consumers: [],
    toolEffects: new Map(),
    toolScopes: new Map(),
    userGrantedScopes: new Map(),
    ...over,
  };
}
