/**
 * The public fuzzing API (`import { fuzzProvider } from 'cetp-sim'`): run cetp-sim's properties
 * against your own provider or consumer from your own code or test suite, read the property
 * catalogue, replay a failure. docs/harness.md is its guide; `cetp-sim/vitest` builds on it.
 */
export { PLANTED_BUGS, type PlantedBugInfo, PROPERTY_CATALOGUE, type PropertyInfo } from './catalogue.ts';
export { CliError } from './errors.ts';
export {
  type ConsumerFuzzOptions,
  DEFAULT_REPLAY_DIR,
  type FuzzOptions,
  type FuzzReport,
  fuzzConsumer,
  fuzzProvider,
  fuzzReference,
  MODULE_STATE_CHECKER,
  type PropertyReport,
  replayCommand,
  STRATEGIES,
  type Strategy,
  type ViolationReport,
} from './fuzz.ts';
export { type ReplayReport, type ReplaySubjects, replay } from './replay.ts';
