/**
 * Every code a `CliError` carries (src/harness/errors.ts), in one place, as the MCP SDK's `ErrorCode`:
 * the `error.code` of a `--json` error report and of a `CliError` thrown to a harness user. A code is
 * part of the interface: scripts match on it, so one is never renamed or reused for another meaning.
 * `CliError` accepts only these (the type is checked), src/harness/error-codes.test.ts checks that
 * every code the sources throw is here, and docs/error-codes.md lists them all.
 *
 * Exit code: 2 (bad input or usage) unless the entry says 3 (cetp-sim could not do its job).
 */
export const CliErrorCode = {
  // Usage: the command line, as commander parses it (its error codes, in snake_case).
  /** Two options given that exclude each other (e.g. --runs with --time). */
  ConflictingOption: 'conflicting_option',
  /** More arguments than the command takes. */
  ExcessArguments: 'excess_arguments',
  /** An option or argument value that does not parse (a number out of range, an unknown choice). */
  InvalidArgument: 'invalid_argument',
  /** A required argument left out. */
  MissingArgument: 'missing_argument',
  /** A mandatory option left out. */
  MissingMandatoryOptionValue: 'missing_mandatory_option_value',
  /** An option given without the value it needs. */
  OptionMissingArgument: 'option_missing_argument',
  /** A command cetp-sim does not have. */
  UnknownCommand: 'unknown_command',
  /** An option the command does not have. */
  UnknownOption: 'unknown_option',
  /** Options that parse but do not fit together, or an option value cetp-sim cannot use. */
  InvalidOption: 'invalid_option',
  /** A command used in a way it does not support (e.g. --fixture with a module of several providers). */
  InvalidUsage: 'invalid_usage',

  // Selection: a name on the command line that names nothing.
  /** --property: no such property. */
  UnknownProperty: 'unknown_property',
  /** --mutant / --id: no such planted bug. */
  UnknownMutant: 'unknown_mutant',
  /** --rule: no such ablatable rule. */
  UnknownRule: 'unknown_rule',
  /** --flow: no such crash-point flow. */
  UnknownFlow: 'unknown_flow',
  /** --note: a NOTES item with no switchable readings. */
  UnknownNote: 'unknown_note',
  /** A shared test vector id that does not exist. */
  UnknownVector: 'unknown_vector',
  /** A variant (planted bug set) that does not exist. */
  UnknownVariant: 'unknown_variant',
  /** A reference fixture that does not exist. */
  UnknownFixture: 'unknown_fixture',
  /** A rule with no enforcement point that can be switched off (ablate). */
  RuleNotAblatable: 'rule_not_ablatable',
  /** A planted bug the selected providers cannot run. */
  MutantNotPlanted: 'mutant_not_planted',

  // User modules (--provider, --consumer, harness fixtures).
  /** The module file does not exist or cannot be resolved. */
  ModuleNotFound: 'module_not_found',
  /** The module failed to load (it threw, or hung past the watchdog). */
  ModuleLoadFailed: 'module_load_failed',
  /** A provider module that does not export what a provider module must. */
  InvalidProviderModule: 'invalid_provider_module',
  /** A consumer module that does not export what a consumer module must. */
  InvalidConsumerModule: 'invalid_consumer_module',
  /** A provider fixture with a missing or malformed field (the field is named). */
  InvalidFixture: 'invalid_fixture',
  /** A consumer fixture with a missing or malformed field (the field is named). */
  InvalidConsumer: 'invalid_consumer',
  /** Loading the module patched a global cetp-sim relies on (Math, Date, Promise …). */
  ModulePatchesGlobals: 'module_patches_globals',
  /** Loading the module reached outside the simulation (real time, timers, I/O). */
  ModuleEscapesSimulation: 'module_escapes_simulation',
  /** The module imports a second copy of cetp-sim (a refused import, worker/boundary.mjs). */
  ModuleSecondCopy: 'module_second_copy',
  /** The module imports cetp-sim's internal files (a refused import, worker/boundary.mjs). */
  ModuleImportsInternals: 'module_imports_internals',

  // Replay files.
  /** The replay file does not exist. */
  ReplayFileNotFound: 'replay_file_not_found',
  /** The replay file cannot be read. */
  ReplayFileUnreadable: 'replay_file_unreadable',
  /** The replay file is not JSON. */
  ReplayInvalidJson: 'replay_invalid_json',
  /** The replay file has a missing or malformed field (the field is named). */
  ReplayInvalid: 'replay_invalid',
  /** The replay file switches off a rule cetp-sim does not know. */
  ReplayUnknownRule: 'replay_unknown_rule',
  /** The replay file names a reading cetp-sim does not know. */
  ReplayUnknownReading: 'replay_unknown_reading',
  /** The replay file is larger than a replay file may be. */
  ReplayTooLarge: 'replay_too_large',
  /** The replay file's `format` is not one this cetp-sim reads. */
  ReplayUnknownFormat: 'replay_unknown_format',
  /** The replay file names a property cetp-sim does not have. */
  ReplayUnknownProperty: 'replay_unknown_property',
  /** The replay file names a planted bug cetp-sim does not have. */
  ReplayUnknownBug: 'replay_unknown_bug',
  /** The replay file's scenario does not fit its property (e.g. a provider the property does not install). */
  ReplayMismatch: 'replay_mismatch',
  /** The replay file was recorded with a module that was not passed to replay. */
  ReplayNeedsModule: 'replay_needs_module',
  /** Exit 3: the same code gave a different trace than the one recorded (a determinism break). */
  DeterminismBreak: 'determinism_break',

  // Other input files.
  /** A wording file (propose) with a missing or malformed field, or that contradicts another. */
  BadWording: 'bad_wording',
  /** A wording file that does not exist. */
  WordingNotFound: 'wording_not_found',
  /** A wording file that cannot be read. */
  WordingUnreadable: 'wording_unreadable',
  /** A shared test vector file with a missing or malformed field. */
  InvalidCorpus: 'invalid_corpus',
  /** A vector baseline file with a missing or malformed field. */
  InvalidBaseline: 'invalid_baseline',
  /** A vector left the sources (vector ids are never reused: deprecate it instead). */
  VectorRemoved: 'vector_removed',
  /** A shard report given to `merge` that is invalid or does not match the others. */
  InvalidMergeInput: 'invalid_merge_input',
  /** A shard report given to `merge` that cannot be read. */
  MergeReadFailed: 'merge_read_failed',

  // Outputs.
  /** An output path (--out, --junit, --md …) cetp-sim cannot write to. */
  OutputUnwritable: 'output_unwritable',
  /** An output directory that holds files cetp-sim did not write. */
  OutputRefused: 'output_refused',
  /** A replay file could not be written. */
  ReplayWriteFailed: 'replay_write_failed',
  /** A JUnit report could not be written. */
  JunitWriteFailed: 'junit_write_failed',
  /** A CTRF report (vectors run --ctrf) could not be written. */
  CtrfWriteFailed: 'ctrf_write_failed',
  /** A generated shared test vector file could not be written. */
  CorpusWriteFailed: 'corpus_write_failed',
  /** A device-test (vectors --adb) file could not be written. */
  AdbWriteFailed: 'adb_write_failed',
  /** The matrix document or results could not be written. */
  MatrixWriteFailed: 'matrix_write_failed',
  /** The propose results or record could not be written. */
  ProposeWriteFailed: 'propose_write_failed',

  /** A user's provider module failed while a worker ran it. */
  ProviderModuleFailed: 'provider_module_failed',

  // cetp-sim could not do its job (exit 3).
  /** Exit 3: an error in cetp-sim itself (CETP_SIM_DEBUG=1 adds the stack). */
  InternalError: 'internal_error',
  /** Exit 3: generating the shared test vectors failed. */
  GenerationFailed: 'generation_failed',
  /** Exit 3: a job in a worker never finished. */
  JobHung: 'job_hung',
  /** Exit 3: a zoo shard's worker exited without a report. */
  ZooWorkerFailed: 'zoo_worker_failed',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** Every code, in the order above. */
export const CLI_ERROR_CODES: readonly CliErrorCode[] = Object.values(CliErrorCode);

const KNOWN: ReadonlySet<string> = new Set(CLI_ERROR_CODES);

export function isCliErrorCode(code: string): code is CliErrorCode {
  return KNOWN.has(code);
}
