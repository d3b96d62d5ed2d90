// A spec author's check: the reference implementations with a planted bug switched on must fail.
import { describeReference } from 'cetp-sim/vitest';

describeReference({ property: 'idempotency', mutant: 'dedup-ignores-args', seed: 1, runs: 300 });
