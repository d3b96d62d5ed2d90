/**
 * Found run (issue #14, control suite): the strict control — a provider that refuses another UID's
 * session token as INVALID_REQUEST, the legal NOTES 8a reading — failed `identity` at seed 0, run 119
 * of 150, on operations-terminate: the raw driver's settle phase gave up polling its operation on
 * INVALID_REQUEST instead of renegotiating, so the oracle judged what the driver abandoned. The driver
 * now renegotiates once (src/fuzz/scenario/driver.ts settle); without that this test fails.
 * (CETP-4.4-04 CETP-4.4-16.) Registered through the public vitest entry, as a user's suite would.
 */
import { describeProvider } from '../src/vitest.ts';
import { providers } from './controls/strict.provider.ts';

describeProvider(providers, {
  name: 'found run: a foreign session refused as INVALID_REQUEST (NOTES 8a)',
  module: './properties/controls/strict.provider.ts',
  property: 'identity',
  seed: 0,
  runs: 150,
  replayDir: null,
});
