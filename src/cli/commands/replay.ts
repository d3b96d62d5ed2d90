/**
 * `cetp-sim replay FILE`: re-runs a replay file's scenario bit for bit — same seed, decisions,
 * faults, user answers, variant, and the same provider module when the campaign used one — prints
 * the trace and judges it again. Exit 1 if it still fails, 0 if it now passes, 2 for a bad file, 3
 * when the re-run's trace hash differs from the recorded one: either the code under test changed
 * since the file was written, or determinism is broken; both deserve a loud message.
 */
import { replayScenario } from '../../../properties/fuzz.ts';
import { type PropertyDef, propertyById } from '../../../properties/suites.ts';
import { renderMermaid } from '../../sim/trace-render.ts';
import { loadConsumerModule, withConsumer } from '../consumer-module.ts';
import { CliError, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK } from '../errors.ts';
import { printTrace, printViolations } from '../failure-report.ts';
import type { Io } from '../io.ts';
import { loadProviderModule, UserModuleError, withProviders } from '../provider-module.ts';
import { type CliReplayFile, checkScenarioFits, readReplayFile } from '../replay-file.ts';

export interface ReplayFlags {
  readonly mermaid: boolean;
  readonly json: boolean;
  readonly provider?: string;
  readonly consumer?: string;
}

/** Loads a module the file names (not one given on the command line), saying where the name came from. */
async function fromFile<T>(flag: string, given: string | undefined, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (given !== undefined || !(error instanceof CliError)) throw error;
    throw new CliError(
      error.code,
      `${error.message} (the replay file was recorded with this ${flag}, relative to the directory fuzz ran in; run replay from there or pass ${flag})`,
    );
  }
}

async function propertyFor(path: string, file: CliReplayFile, flags: ReplayFlags): Promise<PropertyDef> {
  const def = propertyById(file.property) as PropertyDef;
  const providerSpec = flags.provider ?? file.modules?.provider;
  const consumerSpec = flags.consumer ?? file.modules?.consumer;
  let fitted =
    providerSpec !== undefined
      ? withProviders(
          def,
          await fromFile('--provider', flags.provider, () => loadProviderModule(providerSpec, process.cwd())),
        )
      : def;
  if (consumerSpec !== undefined)
    fitted = withConsumer(
      fitted,
      await fromFile('--consumer', flags.consumer, () => loadConsumerModule(consumerSpec, process.cwd())),
    );
  checkScenarioFits(path, file, fitted);
  return fitted;
}

export async function replayCommand(io: Io, path: string, flags: ReplayFlags): Promise<number> {
  const c = io.color;
  const file = readReplayFile(path);
  const def = await propertyFor(path, file, flags);
  let run: Awaited<ReturnType<typeof replayScenario>>;
  try {
    run = await replayScenario(def, file);
  } catch (error) {
    if (error instanceof UserModuleError) throw new CliError('provider_module_failed', error.message);
    throw error;
  }
  const failed = run.violations.length > 0;
  const hash = run.report.traceHash;
  const diverged = hash !== file.traceHash;
  const divergence =
    `DETERMINISM BREAK: the re-run's trace hash ${hash} differs from the recorded ${file.traceHash}. ` +
    'Either the code under test changed since the file was written (re-run the campaign for a fresh ' +
    'replay file), or a run is no longer reproducible from its inputs — a bug in cetp-sim.';
  if (flags.json) {
    if (diverged) throw new CliError('determinism_break', divergence, EXIT_INTERNAL);
    const mermaid = flags.mermaid ? { mermaid: renderMermaid(run.world.trace.events, { omit: ['pm'] }) } : {};
    io.out(JSON.stringify({ failed, traceHash: hash, ...mermaid }));
    return failed ? EXIT_FAILED : EXIT_OK;
  }
  io.out(c.bold(`cetp-sim replay ${path}`));
  io.out(`  property ${file.property} (rules ${file.rules.join(' ')})`);
  const bugs = [...file.variant.providerBugs, ...file.variant.consumerBugs];
  if (bugs.length > 0) io.out(`  planted bugs: ${bugs.join(', ')}`);
  if (file.variant.disabledRules.length > 0)
    io.out(`  rules switched off: ${file.variant.disabledRules.join(' ')}`);
  io.out(c.bold('trace:'));
  printTrace(io, run.world.trace.events);
  if (flags.mermaid) {
    io.out(c.bold('\nMermaid:'));
    io.out(renderMermaid(run.world.trace.events, { omit: ['pm'] }));
  }
  io.out('');
  if (failed) {
    io.out(c.red(c.bold(`still fails: ${run.violations.length} violation(s)`)));
    printViolations(io, run.violations);
  } else {
    io.out(c.green(`now passes (recorded: ${file.violations.length} violation(s))`));
  }
  io.out(c.dim(`trace hash ${hash}`));
  if (diverged) {
    io.err(c.red(c.bold(divergence)));
    return EXIT_INTERNAL;
  }
  return failed ? EXIT_FAILED : EXIT_OK;
}
