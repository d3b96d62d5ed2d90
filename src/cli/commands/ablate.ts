/**
 * `cetp-sim ablate`: switches one enforcement point off at a time (by rule id, in the provider SDK
 * and the consumer alike) and runs every property against it. The properties that fail are the ones
 * that guard the rule. A rule no property catches is a finding for spec authors: either the rule has
 * no consequence our properties can observe, or an oracle is missing. Findings are reported, not
 * failed on: the command exits 0 when it ran. The rules are spread over `--workers` threads, one rule
 * and property per job, and reported in catalogue order (the results do not depend on the number of workers);
 * `--shard I/N` ablates every N-th rule (for a CI matrix, merged with `cetp-sim merge`).
 */

import { type AblationResult, ablatableRules } from '../../fuzz/hunt.ts';
import { PROPERTIES } from '../../fuzz/suites.ts';
import { CliError, EXIT_OK } from '../../harness/errors.ts';
import { CODE_ROOT } from '../../harness/root.ts';
import { selectRules } from '../../harness/selection.ts';
import { isRuleId } from '../../protocol/index.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { shardOf, tailsOf } from '../campaign.ts';
import { gateSites } from '../gate-sites.ts';
import { onInterrupt, SIGNAL_EXIT, type StopSignal } from '../interrupt.ts';
import type { Io } from '../io.ts';
import { startProgress } from '../progress.ts';
import { table } from '../table.ts';
import { mustFinish, runSpread } from '../worker/pool.ts';
import type { AblateJob } from '../worker/protocol.ts';
import { HUNT_BUDGET_MS, type SweepFlags } from './mutants.ts';

/** Runs per property for each ablated rule (measured on 2 cores: the 75-rule sweep takes about 10 min). */
export const DEFAULT_ABLATION_RUNS = 100;

export interface AblateFlags extends SweepFlags {
  readonly rule?: readonly string[];
}

function validRules(ids: readonly string[] | undefined, ablatable: readonly string[]): string[] {
  for (const id of ids ?? []) {
    if (isRuleId(id) && !ablatable.includes(id))
      throw new CliError(
        'rule_not_ablatable',
        `rule ${id} has no enforcement point that can be switched off; ablatable: ${ablatable.join(', ')}`,
      );
  }
  return selectRules(ids, ablatable);
}

/** The header line of the sweep (text output). */
function ablateHeader(flags: AblateFlags, rules: number): string {
  const shard = flags.shard ? `, shard ${flags.shard.index}/${flags.shard.count}` : '';
  const android = flags.android !== undefined ? `, Android ${flags.android}` : '';
  return `cetp-sim ablate: ${rules} rule(s)${shard}, each switched off against every property (seed ${flags.seed}, ${flags.runs} runs per property${android})`;
}

/** One rule switched off against one property, as a worker job. */
function ablateJob(flags: AblateFlags, rule: string, property: string): AblateJob {
  return {
    kind: 'ablate',
    rule,
    property,
    seed: flags.seed,
    runsPerProperty: flags.runs,
    tails: tailsOf(flags.strategy),
    ...(flags.android !== undefined ? { android: flags.android } : {}),
  };
}

export async function ablateCommand(io: Io, flags: AblateFlags): Promise<number> {
  const c = io.color;
  const ablatable = ablatableRules(CODE_ROOT);
  const rules = shardOf(validRules(flags.rule, ablatable), flags.shard);
  const sites = gateSites(CODE_ROOT);
  const consumerDriven = PROPERTIES.some((p) => p.kind === 'consumer');
  if (!flags.json) io.out(c.bold(ablateHeader(flags, rules.length)));
  const progress = startProgress(io, rules.length, {
    json: flags.json,
    noun: 'ablate',
    units: 'rules',
    failure: 'not caught',
    countsRuns: false,
  });
  // One job per rule and property (each property's runs depend only on the seed), so the threads
  // share the work evenly; joined per rule in property order, the same result as one job per rule.
  const items = rules.flatMap((rule) => PROPERTIES.map((p, i) => ({ rule, property: p.id, first: i === 0 })));
  const last = PROPERTIES.length - 1;
  let caught: AblationResult['caughtBy'][number][] = [];
  const results: AblationResult[] = [];
  const ending: Ending = {
    json: flags.json,
    sites,
    consumerDriven,
    total: rules.length,
    android: flags.android,
  };
  // SIGINT/SIGTERM: the report of the rules ablated so far, marked interrupted, and the shell's exit
  // code for the signal (jobs in flight are dropped).
  const interrupt = onInterrupt((signal) => {
    progress.finish();
    process.exit(ablateReport(io, ending, results, signal));
  });
  try {
    await runSpread(items, {
      workers: flags.workers,
      userCode: false,
      onStart: (item) => {
        if (item.first) progress.begin(item.rule);
      },
      run: (host, { rule, property }) =>
        mustFinish<AblationResult>(host, ablateJob(flags, rule, property), HUNT_BUDGET_MS),
      onResult: (part, item) => {
        caught.push(...part.caughtBy);
        if (item.property !== PROPERTIES[last]?.id) return;
        const result: AblationResult = { rule: item.rule, caughtBy: caught };
        caught = [];
        results.push(result);
        progress.done(
          item.rule,
          result.caughtBy.length > 0
            ? `  ${item.rule} caught by ${result.caughtBy.map((x) => x.property).join(', ')}`
            : `  ${c.yellow(`${item.rule} not caught`)}`,
          { failed: result.caughtBy.length === 0 },
        );
      },
    });
  } finally {
    progress.finish();
    interrupt.dispose();
  }
  return ablateReport(io, ending, results, null);
}

interface Ending {
  readonly json: boolean;
  readonly sites: ReturnType<typeof gateSites>;
  readonly consumerDriven: boolean;
  readonly total: number;
  readonly android: AndroidRelease | undefined;
}

/** The sweep's report (whole, or so far when `interrupted`) and its exit code. */
function ablateReport(
  io: Io,
  { json, sites, consumerDriven, total, android }: Ending,
  results: readonly AblationResult[],
  interrupted: StopSignal | null,
): number {
  const c = io.color;
  const code = interrupted !== null ? SIGNAL_EXIT[interrupted] : EXIT_OK;
  if (json) {
    io.out(
      JSON.stringify({
        ...(android !== undefined ? { android } : {}),
        rules: results.map((r) => ({
          id: r.rule,
          caughtBy: r.caughtBy.map(({ property, checker }) => ({ property, checker })),
        })),
        ...(interrupted !== null ? { interrupted } : {}),
      }),
    );
    return code;
  }
  const rows = results.map((r) => {
    const where = (sites.get(r.rule) ?? []).join('+');
    if (r.caughtBy.length > 0)
      return [r.rule, where, r.caughtBy.map((x) => `${x.property} (${x.checker ?? '?'})`).join(', ')];
    const hint =
      where === 'consumer' && !consumerDriven
        ? 'not caught — enforced only in the consumer, which no property runs'
        : 'not caught';
    return [r.rule, where, hint].map((cell) => c.yellow(c.bold(cell)));
  });
  io.out('');
  for (const line of table(['rule', 'enforced in', 'caught by (property (checker))'], rows)) io.out(line);
  const missed = results.filter((r) => r.caughtBy.length === 0);
  io.out('');
  io.out(
    missed.length === 0
      ? c.green(`Every one of the ${results.length} ablated rule(s) is caught by some property.`)
      : c.yellow(
          `${missed.length} of ${results.length} rule(s) not caught: each has no consequence the properties observe, or lacks an oracle.`,
        ),
  );
  if (interrupted !== null)
    io.out(c.yellow(c.bold(`INTERRUPTED (${interrupted}): ${results.length} of ${total} rule(s) ablated`)));
  return code;
}
