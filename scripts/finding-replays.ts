/**
 * The replay files of spec/findings/ that are not the shrunk run of a campaign: hand-written scenarios
 * whose runs a finding cites (a request re-sent after a reinstall runs again). Each file replays with
 * `npx cetp-sim replay FILE`; re-running this script rewrites them byte for byte.
 *
 *   npx tsx scripts/finding-replays.ts
 */
import { readFileSync } from 'node:fs';
import { REPLAY_FORMAT, type ReplayFile } from '../src/fuzz/fuzz.ts';
import { executeCommand, REFERENCE, type Scenario } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { propertyById, type RawPropertyDef } from '../src/fuzz/suites.ts';
import { replay as replayFile } from '../src/harness/replay.ts';
import { writeReplayFile } from '../src/harness/replay-file.ts';
import type { ConsumerUnderTest, ProviderFixture } from '../src/subjects/subjects.ts';

const lifecycle = propertyById('lifecycle') as RawPropertyDef;

/** An app re-sends a request its journal holds as done, once the provider was reinstalled (data wiped). */
const REINSTALL: Scenario = {
  seed: 1,
  tail: 'fifo',
  actors: {
    a: [
      executeCommand('payments.reconcile_accounts'),
      { kind: 'wait', ms: 20_000 },
      { kind: 'after-faults' },
      { kind: 'retry', index: 0, afterMs: 0, resolve: true },
      { kind: 'retry', index: 0, afterMs: 0, resolve: true },
    ],
  },
  user: [],
  faults: [{ at: 300, fault: { kind: 'reinstall', package: 'com.example.payments' } }],
  decisions: [],
};

const run = await runScenario(lifecycle.fixture, REINSTALL, REFERENCE);
const replay: ReplayFile = {
  format: REPLAY_FORMAT,
  property: lifecycle.id,
  rules: lifecycle.ruleIds,
  fuzz: { seed: 0, path: '', runsToFailure: 0, shrinks: 0 },
  variant: REFERENCE,
  scenario: REINSTALL,
  traceHash: run.report.traceHash,
  violations: [],
};
const path = 'spec/findings/replays/reinstall-runs-again.replay.json';
writeReplayFile(path, replay, {}, process.cwd());
const effects = run.observation.effects.filter((e) => e.provider === 'com.example.payments');
console.log(
  `${path}: ${effects.length} effects of ${new Set(effects.map((e) => e.requestId)).size} request(s), trace ${run.report.traceHash}`,
);

/**
 * spec/findings/consumer-unknown-outcome-not-unavailable.md: the control campaign's run (impatient
 * consumer, strict provider) re-recorded as it runs today — the consumer gives up on the transfer
 * and tells its agent outcome_unknown. properties/regressions/ keeps the run as it was found.
 */
const FOUND = 'properties/regressions/consumer-gave-up-before-restart.replay.json';
const gaveUpModules = {
  provider: 'properties/controls/strict.provider.ts',
  consumer: 'properties/controls/impatient.consumer.ts',
};
const found = JSON.parse(readFileSync(FOUND, 'utf8')) as ReplayFile;
const today = await replayFile(FOUND, {
  providers: ((await import(`../${gaveUpModules.provider}`)) as { providers: ProviderFixture[] }).providers,
  consumer: ((await import(`../${gaveUpModules.consumer}`)) as { consumer: ConsumerUnderTest }).consumer,
});
const gaveUp: ReplayFile = {
  format: REPLAY_FORMAT,
  property: found.property,
  rules: found.rules,
  fuzz: found.fuzz,
  variant: found.variant,
  scenario: found.scenario,
  traceHash: today.traceHash,
  violations: [],
};
const gaveUpPath = 'spec/findings/replays/consumer-gave-up-outcome-unknown.replay.json';
writeReplayFile(gaveUpPath, gaveUp, gaveUpModules, process.cwd());
console.log(`${gaveUpPath}: ${today.passed ? 'passes' : 'FAILS'}, trace ${today.traceHash}`);
