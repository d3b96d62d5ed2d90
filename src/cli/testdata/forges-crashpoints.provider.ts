/**
 * A `--provider` module that forges the crash-point verdict in its own realm (used by the
 * crash-point tests): the split-commit alerts app — a kill between its two commits makes the retry
 * execute again (single-effect) — which, as it loads, empties the crash-point properties' lists of
 * oracles it can reach, so that in the worker that runs it every point "holds". The judge in the
 * CLI's thread must fail it anyway.
 */
import { CRASHPOINTS_CONSUMER, CRASHPOINTS_RAW } from '../../fuzz/crashpoint-oracles.ts';

export { providers } from './split-commit.provider.ts';

for (const def of [CRASHPOINTS_RAW, CRASHPOINTS_CONSUMER]) (def.fixture.checkers as unknown[]).length = 0;
