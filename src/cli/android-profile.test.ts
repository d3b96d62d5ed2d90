/**
 * `--android 14|15|16` (src/sim/core/release.ts) on fuzz and replay: the profile is recorded in the
 * replay file's variant, a replay re-runs on it bit for bit, a file without the field runs on the
 * default (14), and a bad value — on the command line or in a file — is exit 2 naming where it is.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILING_VERSIONS_FUZZ, runCli, tempDir } from './testing.ts';

type Json = Record<string, unknown> & { variant: Record<string, unknown>; traceHash: string };

const dir = tempDir('cetp-sim-android-');
let on15: Json;
let fuzzJson: Record<string, unknown>;

function write(name: string, file: Json): string {
  const path = join(dir, `${name}.replay.json`);
  writeFileSync(path, JSON.stringify(file, null, 2));
  return path;
}

const FUZZ = [...FAILING_VERSIONS_FUZZ, '--workers', '1'];

beforeAll(async () => {
  const fuzz = await runCli([...FUZZ, '--android', '15', '--out', dir]);
  expect(fuzz.code).toBe(1);
  fuzzJson = JSON.parse(fuzz.out) as Record<string, unknown>;
  on15 = JSON.parse(readFileSync(join(dir, 'versions-0.replay.json'), 'utf8')) as Json;
});

describe('--android release profiles', () => {
  it('fuzz records the profile in --json and in the replay file; replay re-runs on it bit for bit', async () => {
    expect(fuzzJson.android).toBe(15);
    expect(on15.variant.android).toBe(15);
    const r = await runCli(['replay', write('on15', on15)]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Android 15 profile');
    expect(r.out).toContain(`trace hash ${on15.traceHash}`);
  });

  it('a file without the field runs on the default, 14: the same run as --android 14', async () => {
    const dir14 = tempDir('cetp-sim-android14-');
    expect((await runCli([...FUZZ, '--android', '14', '--out', dir14])).code).toBe(1);
    const on14 = JSON.parse(readFileSync(join(dir14, 'versions-0.replay.json'), 'utf8')) as Json;
    const bare = structuredClone(on14);
    delete bare.variant.android;
    delete bare.inputs;
    const r = await runCli(['replay', write('bare', bare), '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ failed: true, traceHash: on14.traceHash });
  });

  it('replay --android re-runs on another release: reported as an edit of the variant, not a determinism break', async () => {
    const r = await runCli(['replay', write('other', on15), '--android', '16', '--json']);
    expect(r.code).not.toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ edited: ['variant'] });
  });

  it('a bad value is exit 2 naming the field: in a file (/variant/android) and on the command line (--android)', async () => {
    const bad = structuredClone(on15);
    bad.variant.android = 13;
    const file = await runCli(['replay', write('bad', bad)]);
    expect(file.code).toBe(2);
    expect(file.err).toContain('/variant/android');
    expect(file.err).toContain('14, 15, 16');
    const flag = await runCli(['fuzz', '--android', '13', '--runs', '1']);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain('--android must be one of 14, 15, 16 (default 14)');
  });

  it('--device-faults adds deep sleeps to the fault lists, and fuzz --json counts them per property (off by default)', async () => {
    const counts = async (extra: string[]) => {
      const r = await runCli([
        'fuzz',
        '--json',
        '--workers',
        '1',
        '--property',
        'idempotency',
        '--runs',
        '20',
        ...extra,
      ]);
      expect(r.code).toBe(0);
      const [p] = (JSON.parse(r.out) as { properties: { frequencies: { counts: Record<string, number> } }[] })
        .properties;
      return p?.frequencies.counts['device:deep-sleep'];
    };
    expect(await counts([])).toBe(0);
    expect(await counts(['--device-faults', '--out', dir])).toBeGreaterThan(0);
  });
});
