// `.skip`, as vitest's describe has it: the block's tests are registered and skipped.
import { describeProvider } from 'cetp-sim/vitest';
import { providers } from './quotes.provider.ts';

describeProvider.skip(providers, { property: ['idempotency', 'versions'] });
