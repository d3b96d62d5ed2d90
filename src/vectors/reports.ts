/**
 * Reports of a vector run: one JSON object (no times in it, so identical runs print identical
 * bytes), JUnit XML for CI, and CTRF (the Common Test Report Format, github.com/ctrf-io/ctrf,
 * specVersion 0.1.0) for test dashboards. A vector is one test case; an expected failure is a
 * skipped JUnit case and a CTRF `other` with rawStatus `xfail`; a stale baseline entry is a failure.
 */
import { createRequire } from 'node:module';
import type junitModule from 'junit-report-builder';
import type { RunSummary, VectorOutcome } from './run.ts';

// A CommonJS module (see src/cli/junit.ts): the builder is the default export at run time.
type Builder = typeof junitModule extends { default: infer B } ? B : typeof junitModule;
// Required when a report is made, not at every CLI's start (loading it costs ~0.1 s of CPU).
const requireHere = createRequire(import.meta.url);
function junit(): Builder {
  const m = requireHere('junit-report-builder') as { default?: Builder } & Builder;
  return m.default ?? m;
}

function failureText(o: VectorOutcome): string {
  if (o.status === 'stale') return `stale baseline entry: ${o.reason}`;
  const f = o.failures?.[0];
  return f ? `step ${f.step}: ${f.path}: ${f.message}` : (o.reason ?? '');
}

export function runJson(summary: RunSummary) {
  return {
    ok: summary.ok,
    counts: summary.counts,
    claims: summary.claims,
    unknown_baseline_ids: summary.unknownBaselineIds,
    vectors: summary.outcomes.map((o) => ({
      id: o.id,
      status: o.status,
      profile: o.profile,
      level: o.level,
      rules: o.rules,
      ...(o.reason !== undefined ? { reason: o.reason } : {}),
      ...(o.failures && o.failures.length > 0 ? { failures: o.failures } : {}),
    })),
  };
}

export function junitXml(summary: RunSummary): string {
  const builder = junit().newBuilder();
  const suite = builder.testSuite().name('cetp-sim vectors');
  for (const o of summary.outcomes) {
    const test = suite
      .testCase()
      .className(`cetp-sim.vectors.${o.file.split('/')[0] ?? 'vectors'}`)
      .name(`${o.id}: ${o.title}`)
      .time(o.ms / 1000)
      .property('profile', o.profile)
      .property('level', o.level)
      .property('rules', o.rules.join(' '));
    if (o.status === 'fail' || o.status === 'stale') test.failure(failureText(o));
    else if (o.status === 'skip') test.skipped().standardOutput(`skipped: ${o.reason}`);
    else if (o.status === 'xfail')
      test.skipped().standardOutput(`expected failure: ${o.reason}; ${failureText(o)}`);
  }
  return builder.build();
}

const CTRF_STATUS = {
  pass: 'passed',
  fail: 'failed',
  stale: 'failed',
  skip: 'skipped',
  xfail: 'other',
} as const;

export function ctrfReport(summary: RunSummary, times: { start: number; stop: number }, version: string) {
  const tests = summary.outcomes.map((o) => ({
    name: `${o.id}: ${o.title}`,
    status: CTRF_STATUS[o.status],
    rawStatus: o.status,
    duration: o.ms,
    suite: [o.file],
    filePath: `vectors/${o.file}`,
    tags: [o.profile, o.level],
    labels: { vector: o.id, rules: o.rules.length > 0 ? [...o.rules] : ['none'] },
    ...(o.status === 'pass'
      ? {}
      : { message: o.status === 'skip' ? `skipped: ${o.reason}` : failureText(o) }),
  }));
  const count = (s: string) => tests.filter((t) => t.status === s).length;
  return {
    reportFormat: 'CTRF',
    specVersion: '0.1.0',
    generatedBy: 'cetp-sim vectors run',
    results: {
      tool: { name: 'cetp-sim', version },
      summary: {
        tests: tests.length,
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped'),
        pending: 0,
        other: count('other'),
        start: Math.round(times.start),
        stop: Math.round(times.stop),
        extra: { claims: summary.claims },
      },
      tests,
    },
  };
}
