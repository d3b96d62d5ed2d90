/** Test helpers for vectors: the fields every hand-written test vector repeats. Not part of the public API. */

/** A valid MUST vector of rule CETP-4-07 against the alerts provider, without id, steps or fresh. */
export const TEST_VECTOR = {
  title: 't',
  since: '1.0',
  level: 'MUST',
  result: 'valid',
  rules: ['CETP-4-07'],
  flags: [],
  requires: ['core'],
  provider: 'alerts',
} as const;
