// The same test file against a provider with a bug: the idempotency test fails with the replay command.
import { describeProvider } from 'cetp-sim/vitest';
import { providers } from './broken.provider.ts';

describeProvider(providers, {
  module: './broken.provider.ts',
  property: ['idempotency', 'malformed'],
  runs: 15,
});
