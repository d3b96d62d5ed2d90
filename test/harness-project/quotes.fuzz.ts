// A user's test file: cetp-sim's properties as vitest tests against their provider.
import { describeProvider } from 'cetp-sim/vitest';
import { providers } from './quotes.provider.ts';

describeProvider(providers, {
  module: './quotes.provider.ts',
  property: ['idempotency', 'malformed'],
  runs: 15,
});
