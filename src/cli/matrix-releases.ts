/**
 * On which Android releases each matrix break holds (spec/matrix/releases.json): `cetp-sim matrix
 * --android N --releases FILE` merges that run's verdict of every pairing it ran, under release N,
 * into the record; spec/matrix.md states per break the releases whose re-run broke it (and by which
 * oracles), and lists the pairings that break on a release other than the document's. The record is
 * data written by the matrix, never by hand: a release not re-run is said to be so.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Option } from 'commander';
import { CliError } from '../harness/errors.ts';
import { ANDROID_RELEASES, type AndroidRelease, DEFAULT_ANDROID } from '../sim/core/release.ts';
import { parseAndroidArg } from './args.ts';
import type { MatrixResult, PairingResult } from './matrix-results.ts';

/** `--android N` of matrix and propose: the release profile every pairing runs. */
export function androidOption(): Option {
  return new Option(
    '--android <release>',
    `the Android release profile the pairings run: ${ANDROID_RELEASES.join(', ')} (default ${DEFAULT_ANDROID}; src/sim/core/release.ts)`,
  ).argParser(parseAndroidArg);
}

/** The repository's record (the document reads it when no other is given). */
export const RELEASES_RECORD = 'spec/matrix/releases.json';

/** One pairing's verdict on one release: its verdict and the oracles that broke it (`property/checker`). */
export interface ReleaseVerdict {
  readonly verdict: PairingResult['verdict'];
  readonly broken: readonly string[];
}

/** Per release: the campaign's seed and runs, and each pairing's verdict. */
export interface ReleaseRun {
  readonly seed: number;
  readonly runs: number;
  readonly pairings: Readonly<Record<string, ReleaseVerdict>>;
}

export interface ReleaseRecord {
  readonly releases: Readonly<Partial<Record<string, ReleaseRun>>>;
}

const brokenOf = (r: PairingResult): string[] =>
  r.properties.filter((p) => p.status === 'failed').map((p) => `${p.property}/${p.checker ?? '?'}`);

/** The record at `path`, or null when there is none (or it is unreadable). */
export function loadReleaseRecord(path: string = RELEASES_RECORD): ReleaseRecord | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as ReleaseRecord;
    return parsed && typeof parsed.releases === 'object' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * `record` with this run's verdicts under `release`: its pairings replace theirs; a pairing of a note
 * it did not run is kept only when seed and runs are the same (else the release starts afresh).
 */
export function mergeRelease(
  record: ReleaseRecord | null,
  result: MatrixResult,
  release: AndroidRelease,
): ReleaseRecord {
  const before = record?.releases[String(release)];
  const keep = before && before.seed === result.seed && before.runs === result.runs ? before.pairings : {};
  const pairings: Record<string, ReleaseVerdict> = { ...keep };
  for (const r of result.pairings) pairings[r.pairing.id] = { verdict: r.verdict, broken: brokenOf(r) };
  const sorted = Object.fromEntries(
    Object.entries(pairings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const run: ReleaseRun = { seed: result.seed, runs: result.runs, pairings: sorted };
  return { releases: { ...(record?.releases ?? {}), [String(release)]: run } };
}

export function writeReleaseRecord(path: string, record: ReleaseRecord): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const releases = Object.fromEntries(
      ANDROID_RELEASES.flatMap((r) => {
        const run = record.releases[String(r)];
        return run ? [[String(r), run]] : [];
      }),
    );
    writeFileSync(path, `${JSON.stringify({ releases }, null, 2)}\n`);
  } catch (error) {
    throw new CliError('matrix_write_failed', `cannot write ${path}: ${(error as Error).message}`);
  }
}

/**
 * With `--releases FILE`: the run's verdicts merged into FILE under its release (written); the
 * record the document reads either way (FILE's, or the repository's).
 */
export function recordRelease(file: string | undefined, result: MatrixResult): ReleaseRecord | null {
  if (file === undefined) return loadReleaseRecord();
  const merged = mergeRelease(loadReleaseRecord(file), result, result.android ?? DEFAULT_ANDROID);
  writeReleaseRecord(file, merged);
  return merged;
}

const list = (releases: readonly number[]): string =>
  releases.length <= 1
    ? releases.join('')
    : `${releases.slice(0, -1).join(', ')} and ${releases[releases.length - 1]}`;

const oracles = (broken: readonly string[]): string =>
  broken
    .map((b) => {
      const [property, checker] = b.split('/');
      return `${property} (\`${checker}\`)`;
    })
    .join(', ');

/** The line of spec/matrix.md on the releases a break holds on, from the re-runs under each profile. */
export function releasesLine(record: ReleaseRecord | null, result: PairingResult): string {
  const mine = brokenOf(result).join(' ');
  const holds: number[] = [];
  const other: string[] = [];
  const missing: number[] = [];
  for (const release of ANDROID_RELEASES) {
    const run = record?.releases[String(release)];
    const v = run?.pairings[result.pairing.id];
    if (!run || !v) missing.push(release);
    else if (v.verdict !== 'breaks') other.push(`Android ${release}: ${v.verdict}`);
    else if (v.broken.join(' ') === mine) holds.push(release);
    else other.push(`Android ${release}: breaks by ${oracles(v.broken)}`);
  }
  const runs = ANDROID_RELEASES.flatMap((r) => {
    const run = record?.releases[String(r)];
    return run ? [`${run.seed}/${run.runs}`] : [];
  });
  const how = `\`cetp-sim matrix --android N --note ${result.pairing.note}\`, seed/runs ${[...new Set(runs)].join(', ')}`;
  const parts: string[] = [];
  if (holds.length > 0) parts.push(`breaks by the same oracles on Android ${list(holds)}`);
  if (other.length > 0) parts.push(`differs: ${other.join('; ')}`);
  if (missing.length > 0) parts.push(`not re-run on Android ${list(missing)}`);
  return `- **Holds on (matrix re-run per release profile).** ${parts.join('; ')} (${how}).`;
}

/** The pairings that break on a release but not in `result` (the document's release), by release. */
export function otherReleaseBreaks(
  record: ReleaseRecord | null,
  result: MatrixResult,
  release: AndroidRelease = DEFAULT_ANDROID,
): string[] {
  const judged = new Map(result.pairings.map((r) => [r.pairing.id, r.verdict]));
  const lines: string[] = [];
  for (const r of ANDROID_RELEASES.filter((x) => x !== release)) {
    const run = record?.releases[String(r)];
    for (const [id, v] of Object.entries(run?.pairings ?? {}))
      if (v.verdict === 'breaks' && judged.has(id) && judged.get(id) !== 'breaks')
        lines.push(
          `- \`${id}\` breaks on Android ${r} only by ${oracles(v.broken)} (here: ${judged.get(id)}).`,
        );
  }
  return lines;
}
