/**
 * The trace corpus: a fingerprint of what the simulation does, for changes that must not change it
 * (performance work, refactors). It samples scenarios of every property against the reference apps
 * and of every planted bug against the property that should kill it, runs each, and hashes each
 * run's trace hash, outcome and violations. Same code ⇒ same hashes; a change that alters a trace or
 * a verdict shows up as the property or planted bug whose hash moved.
 *
 *   npm run trace-corpus              20 scenarios per property, 7 per planted bug (a few seconds)
 *   npm run trace-corpus -- 100       more
 *
 * One planted bug, internal-error-leaks-stack, leaks stack traces into error messages; their line
 * numbers move with any edit of the files on the stack, so its hash does too.
 */
import { createHash, type Hash } from 'node:crypto';
import fc from 'fast-check';
import type { Violation } from '../src/check/checker.ts';
import { MUTANTS } from '../src/fuzz/mutants.ts';
import { scenarioArb } from '../src/fuzz/scenario/arbitraries.ts';
import { consumerScenarioArb, runConsumerScenario } from '../src/fuzz/scenario/consumer.ts';
import { REFERENCE, type Tail, type Variant } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { ALL_PROPERTIES, type PropertyDef } from '../src/fuzz/suites.ts';
import type { RunReport } from '../src/sim/world.ts';

/** Every tail strategy, so scheduling differences show too. */
const TAILS: readonly Tail[] = ['fifo', 'random', 'pct'];

function fingerprint(run: { readonly report: RunReport; readonly violations: readonly Violation[] }): string {
  const verdicts = run.violations.map((v) => `${v.checker}:${v.message}`).join(';');
  return `${run.report.traceHash}|${run.report.outcome.kind}|${verdicts}`;
}

/** Runs `count` sampled scenarios of `def` under `variant`; feeds every run into `all` too. */
async function corpusOf(
  def: PropertyDef,
  variant: Variant,
  count: number,
  seed: number,
  all: Hash,
): Promise<string> {
  const own = createHash('sha256');
  const add = (line: string): void => {
    own.update(line);
    all.update(line);
  };
  if (def.kind === 'consumer') {
    for (const s of fc.sample(consumerScenarioArb(def.shape, TAILS, true), { seed, numRuns: count }))
      add(fingerprint(await runConsumerScenario(def.fixture, s, variant)));
  } else {
    for (const s of fc.sample(scenarioArb(def.shape, TAILS, true), { seed, numRuns: count }))
      add(fingerprint(await runScenario(def.fixture, s, variant)));
  }
  return own.digest('hex').slice(0, 16);
}

async function main(): Promise<number> {
  const arg = process.argv[2] ?? '20';
  const perProperty = Number(arg);
  if (!Number.isInteger(perProperty) || perProperty < 1) {
    console.error(`trace-corpus: the scenario count must be a positive integer, got "${arg}"`);
    return 2;
  }
  const all = createHash('sha256');
  let runs = 0;
  for (const def of ALL_PROPERTIES) {
    const hash = await corpusOf(def, REFERENCE, perProperty, 1, all);
    console.log(`${def.id.padEnd(48)} ${hash}`);
    runs += perProperty;
  }
  const perMutant = Math.ceil(perProperty / 3);
  for (const mutant of MUTANTS) {
    const killer = ALL_PROPERTIES.find((p) => p.id === mutant.killers[0]);
    if (!killer) {
      console.error(`trace-corpus: planted bug ${mutant.id} names no known property`);
      return 2;
    }
    const hash = await corpusOf(killer, mutant.variant, perMutant, 2, all);
    console.log(`${`bug ${mutant.id}`.padEnd(48)} ${hash}`);
    runs += perMutant;
  }
  console.log(`\ncorpus ${all.digest('hex')} (${runs} runs)`);
  return 0;
}

process.exitCode = await main();
