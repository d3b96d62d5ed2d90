/**
 * The Android side of the vectors (runners/android, issue 36), on the real framework classes:
 * runners/android/build.sh builds offline (mvn -o; a Maven prefetch and a second try only when that
 * fails) the runner core, AndroidTransport and the Java reference provider against
 * Robolectric's android-all, and runs under
 * Robolectric (offline, android-all jars copied by Maven) the shared vectors' core profile against
 * that provider on API 34 and API 35 through AndroidTransport — every vector of the alerts fixture
 * must pass — and a test that AndroidTransport sends and reads each Bundle type as its exact Java
 * type, and the provider's operations and file results (ProviderSurfaceTest). Then it compiles the
 * device example that docs/device-testing.md shows. CETP_SIM_SKIP_JAVA=1,
 * or no javac / mvn, skips with one line (CI=true: a missing tool fails).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../src/harness/root.ts';
import { loadCorpus } from '../src/vectors/corpus.ts';
import { profileOf } from '../src/vectors/format.ts';

const SKIPPED = 3;
/**
 * The corpus `cetp-sim vectors` reads by default (src/cli/commands/vectors.ts's DEFAULT_VECTORS_DIR),
 * named here so this file does not import the CLI: it runs in a shared worker (vitest.projects.ts).
 */
const DEFAULT_VECTORS_DIR = join(PACKAGE_ROOT, 'vectors');
const EXAMPLE = 'runners/android/src/android-example/java/com/example/alerts/test/CetpVectorsTest.java';
let build: { status: number | null; output: string } = { status: null, output: '' };

/** The core profile's vectors: those of the alerts fixture (the Java provider's), and the others. */
function coreVectors(): { alerts: number; others: number } {
  const corpus = loadCorpus(DEFAULT_VECTORS_DIR);
  const provider = corpus.files.flatMap((f) => f.content.vectors).filter((v) => profileOf(v) === 'core');
  const consumer = corpus.consumerFiles.flatMap((f) => f.content.vectors);
  const alerts = provider.filter((v) => v.provider === 'alerts').length;
  return { alerts, others: provider.length - alerts + consumer.length };
}

describe('docs/device-testing.md', () => {
  it('shows the androidTest class that runners/android/build.sh compiles, character for character', () => {
    const doc = readFileSync(join(PACKAGE_ROOT, 'docs/device-testing.md'), 'utf8');
    const shown = /```java\n(package com\.example\.alerts\.test;[\s\S]*?)```/.exec(doc)?.[1];
    expect(shown).toBe(readFileSync(join(PACKAGE_ROOT, EXAMPLE), 'utf8'));
  });
});

describe('the Android runner under Robolectric (runners/android)', () => {
  beforeAll(() => {
    const r = spawnSync('bash', ['runners/android/build.sh'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    build = { status: r.status, output: `${r.stdout}\n${r.stderr}` };
    for (const line of build.output.split('\n')) {
      if (/^android runner: |^robolectric: /.test(line)) console.warn(line);
    }
  }, 1_200_000);

  it('passes the core profile against the Java reference provider on API 34 and 35, offline', (ctx) => {
    if (build.status === SKIPPED && process.env.CI !== 'true') {
      ctx.skip(build.output.split('\n').find((l) => l.includes('SKIPPED')) ?? 'android runner: SKIPPED');
    }
    expect(build.status, build.output.slice(-20_000)).toBe(0);
    const { alerts, others } = coreVectors();
    expect(alerts).toBeGreaterThanOrEqual(50);
    for (const api of [34, 35]) {
      const line = new RegExp(
        `^robolectric: API ${api}, core profile against com\\.example\\.alerts: (\\{.*\\})$`,
        'm',
      );
      const counts = JSON.parse(line.exec(build.output)?.[1] ?? '{}') as Record<string, number>;
      // Every alerts vector passes; the others (other fixtures, consumer vectors) are skipped.
      expect(counts, `API ${api}`).toEqual({ pass: alerts, skip: others });
    }
    // 6 + AndroidTransportKillTest's 3 (a kill step's process).
    expect(build.output).toMatch(/Tests run: 9, Failures: 0, Errors: 0, Skipped: 0/);
    expect(build.output).toMatch(/^android runner: device example compiled$/m);
    // Offline by construction: the tests ran under mvn -o, and Robolectric was told to load its
    // android-all jars only from the folder Maven filled (it fails rather than download).
    expect(build.output).toMatch(/^android runner: offline build and tests done in \d+ s$/m);
    const pom = readFileSync(join(PACKAGE_ROOT, 'runners/android/pom.xml'), 'utf8');
    expect(pom).toContain('<robolectric.offline>true</robolectric.offline>');
  });
});
