/**
 * The one replay core (issue 33): every replay — `replay()` of the library, `cetp-sim replay`, the
 * CLI's fresh-instance re-run of a failure — reads its file, finds its property and judges its run
 * here. What differs between them is only how the scenario is run (a `ReplayRunner`: in this process,
 * or in a worker thread under the watchdog) and how the verdict is shown (the caller's business).
 *
 * The steps, in the order a human would fix things: read and validate the file (replay-file.ts: every
 * problem a CliError naming the file and the place); refuse a module the file was recorded with that
 * the caller does not hand over (a replay file never loads code by itself); run it (the runner finds
 * the property with `replayProperty`: from the registry, re-aimed at the implementations under test,
 * checked to fit the scenario); compare the trace hash with the recorded one — a different trace from
 * the same code is a determinism break, after a change of code (or of the file: code-identity.ts,
 * `inputs`) it is what a fix does, and the verdict alone decides.
 */

import type { Violation } from '../check/checker.ts';
import { replayablePropertyById } from '../fuzz/registry.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import type { AndroidRelease } from '../sim/core/release.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import type { ConsumerUnderTest } from '../subjects/subjects.ts';
import { type CodeIdentity, codeChanges, type ReplayModules } from './code-identity.ts';
import { CliError } from './errors.ts';
import {
  type CliReplayFile,
  checkScenarioFits,
  editedFields,
  type InputField,
  missingModules,
  readReplayFile,
} from './replay-file.ts';
import { type ProvidersUnderTest, withConsumer, withProviders } from './subjects.ts';

/** A run of a replay file's scenario, as a runner hands it back. */
export interface ReplayRun {
  readonly violations: readonly Violation[];
  /** '' when the run never finished. */
  readonly traceHash: string;
  readonly events: readonly TraceEvent[];
  /** False when the run never finished (a watchdog ended it): it has no trace hash to compare. */
  readonly finished: boolean;
}

/** A module the file was recorded with that the caller does not hand over. */
export type MissingModule = ReturnType<typeof missingModules>[number];

/** How a replay is run: in this process (`replay()`), or in a worker under the watchdog (the CLI). */
export interface ReplayRunner {
  /** Which user modules the caller hands over, by kind. */
  readonly given: Readonly<Record<keyof ReplayModules, boolean>>;
  /** How to hand over `missing`, in the caller's terms (the end of the refusal's message). */
  howToPass(path: string, missing: readonly MissingModule[]): string;
  /** Runs the file's scenario against the implementations under test (`replayProperty` finds its property). */
  run(path: string, file: CliReplayFile): Promise<ReplayRun>;
  /** The code it runs now, to tell a change of code from a determinism break; null when unknown. */
  codeNow(): CodeIdentity | null;
}

/** Edits a replay makes to its file before it runs: another Android release profile. */
export interface ReplayEdit {
  readonly android?: AndroidRelease;
}

export interface ReplayVerdict {
  /** The file as it ran (with the edit applied). */
  readonly file: CliReplayFile;
  readonly run: ReplayRun;
  /** True when the run broke a rule. */
  readonly failed: boolean;
  /** What code changed since the file was recorded, in words; null when the file (or runner) cannot say. */
  readonly codeChanged: readonly string[] | null;
  /** The file's input fields changed since it was recorded; null for a file without digests. */
  readonly edited: readonly InputField[] | null;
  /** The message of a determinism break (the same code, another trace), or null. */
  readonly determinismBreak: string | null;
  /** Why the trace differs from the recorded one when that is not a determinism break, or null. */
  readonly note: string | null;
}

/** The implementations a property is re-aimed at (none: the reference ones). */
export interface ResolvedSubjects {
  readonly providers?: ProvidersUnderTest;
  readonly consumer?: ConsumerUnderTest;
}

/** A property of the registry by id, re-aimed at the implementations under test (copies; the registry is untouched). */
export function propertyUnderTest(id: string, subjects: ResolvedSubjects = {}): PropertyDef {
  const def = replayablePropertyById(id);
  if (!def) throw new CliError('unknown_property', `unknown property '${id}'`);
  const aimed = subjects.providers ? withProviders(def, subjects.providers) : def;
  return subjects.consumer ? withConsumer(aimed, subjects.consumer) : aimed;
}

/** The property a replay file names, re-aimed at the implementations under test, checked to fit its scenario. */
export function replayProperty(
  path: string,
  file: CliReplayFile,
  subjects: ResolvedSubjects = {},
): PropertyDef {
  const def = propertyUnderTest(file.property, subjects);
  checkScenarioFits(path, file, def);
  return def;
}

/** The file with `edit` applied (an edit of its variant: the run is then a new scenario). */
function applyEdit(file: CliReplayFile, edit: ReplayEdit): CliReplayFile {
  return edit.android === undefined ? file : { ...file, variant: { ...file.variant, android: edit.android } };
}

/** Refuses a file recorded with a module the runner is not given: a replay file never loads code by itself. */
function refuseMissing(path: string, file: CliReplayFile, runner: ReplayRunner): void {
  const missing = missingModules(file, runner.given);
  if (missing.length > 0)
    throw new CliError(
      'replay_needs_module',
      `${path} was recorded with ${missing.map((m) => `--${m.kind} ${m.recorded}`).join(' and ')}; a replay file never loads code by itself — ${runner.howToPass(path, missing)}`,
    );
}

const DETERMINISM_BREAK =
  'with the same code (cetp-sim and the modules hash as they did): a run is no longer reproducible ' +
  'from its inputs. This is a bug — in cetp-sim, or nondeterminism in a module (real time, Math.random, state kept between runs).'; // determinism-ok: a message naming what breaks determinism, not a call

const NO_DIGESTS =
  ' (This file records no digest of its inputs, as older files do: if you edited its scenario, variant or faults, that, not cetp-sim, changed the trace.)';

/** The verdict on a run of `file`: failed or not, and whether its trace may differ from the recorded one. */
export function replayVerdict(
  file: CliReplayFile,
  run: ReplayRun,
  codeNow: () => CodeIdentity | null,
): ReplayVerdict {
  const now = file.code ? codeNow() : null;
  const changed = file.code && now ? codeChanges(file.code, now) : null;
  const edited = editedFields(file);
  // A run that never finished has no trace hash, now or when it was recorded: nothing to compare.
  // An edited file is a new scenario: its recorded hash belongs to the run before the edit.
  const comparable = run.finished && file.traceHash !== '' && !(edited !== null && edited.length > 0);
  const diverged = comparable && run.traceHash !== file.traceHash;
  const broken = diverged && changed !== null && changed.length === 0;
  const note = !diverged
    ? null
    : changed === null
      ? 'the trace differs from the recorded one; the file does not say what code it was recorded with, so this may be a change of code'
      : changed.length > 0
        ? `the trace differs from the recorded one, as expected: ${changed.join(' and ')} changed since the file was recorded`
        : null;
  return {
    file,
    run,
    failed: run.violations.length > 0,
    codeChanged: changed,
    edited,
    determinismBreak: broken
      ? `DETERMINISM BREAK: the re-run's trace hash ${run.traceHash} differs from the recorded ${file.traceHash}, ${DETERMINISM_BREAK}${edited === null ? NO_DIGESTS : ''}`
      : null,
    note,
  };
}

/** Replays the file at `path` with `runner`: read and checked, refused if it needs a module not given, run, judged. */
export async function replayWith(
  path: string,
  runner: ReplayRunner,
  edit: ReplayEdit = {},
): Promise<ReplayVerdict> {
  const file = applyEdit(readReplayFile(path), edit);
  refuseMissing(path, file, runner);
  const run = await runner.run(path, file);
  return replayVerdict(file, run, () => runner.codeNow());
}
