/**
 * The JUnit XML report of a fuzz campaign (`--junit FILE`), for CI dashboards: one test suite, one
 * test case per property, a failure carrying the first violation, the replay command as output.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type junitModule from 'junit-report-builder';
import { CliError } from '../harness/errors.ts';
import type { CampaignEntry } from './campaign.ts';
import { replayCommand } from './failure-report.ts';

// A CommonJS module: under NodeNext the default import is module.exports, which is the builder
// itself at run time while the typings describe it as `{ default: builder }`.
type Builder = typeof junitModule extends { default: infer B } ? B : typeof junitModule;
// Required when a report is made, not at every CLI's start (loading it costs ~0.1 s of CPU).
const requireHere = createRequire(import.meta.url);
function junit(): Builder {
  const m = requireHere('junit-report-builder') as { default?: Builder } & Builder;
  return m.default ?? m;
}

export function junitReport(entries: readonly CampaignEntry[], seed: number): string {
  const builder = junit().newBuilder();
  const suite = builder.testSuite().name('cetp-sim fuzz').property('seed', String(seed));
  for (const { def, result, replayFile, ms } of entries) {
    const test = suite
      .testCase()
      .className('cetp-sim.fuzz')
      .name(def.id)
      .time(Math.round(ms) / 1000)
      .property('title', def.title)
      .property('area', def.area)
      .property('rules', def.ruleIds.join(' '))
      .property('runs', String(result.runs))
      .property('exercised', JSON.stringify(result.exercised));
    const first = result.failure?.replay.violations[0];
    if (result.status === 'vacuous') {
      test.failure(
        `exercised nothing: ${result.reason ?? 'no call reached the implementation under test'}`,
        'vacuous',
      );
    } else if (result.status === 'failed') {
      const why = first ? `[${first.checker}] ${first.message}` : (result.reason ?? 'the property failed');
      test.failure(why, first?.class);
      if (replayFile) test.standardOutput(replayCommand(replayFile));
    }
  }
  return builder.build();
}

export function writeJunitReport(path: string, entries: readonly CampaignEntry[], seed: number): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, junitReport(entries, seed));
  } catch (error) {
    throw new CliError('junit_write_failed', `cannot write ${path}: ${(error as Error).message}`);
  }
}
