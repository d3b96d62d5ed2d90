// A fixture with a mistake: no args pool for any tool. The block fails once, naming the field.
import { describeProvider } from 'cetp-sim/vitest';
import { quotes } from './quotes.provider.ts';

describeProvider({ ...quotes(), tools: {} }, { property: ['idempotency', 'malformed'] });
