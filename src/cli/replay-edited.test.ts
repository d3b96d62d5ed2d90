/**
 * A replay file carries digests of its inputs (issue #32, item 3): a file edited since it was
 * recorded — the planted bug removed to see whether the run passes without it — is reported as
 * edited, naming the fields, and re-run as a new scenario (exit 0/1, the verdict alone); exit 3 stays
 * for a true determinism break (same inputs, another trace). Old files without digests still load.
 * Fault kinds are a closed set: a `custom` fault is refused at load, naming its place (exit 2).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILING_VERSIONS_FUZZ, runCli, tempDir } from './testing.ts';

type Json = Record<string, unknown> & {
  scenario: { seed: number; faults: unknown[] };
  variant: { providerBugs: string[] };
  traceHash: string;
};

const dir = tempDir('cetp-sim-edited-');
let recorded: Json;

function edited(name: string, change: (f: Json) => void): string {
  const copy = structuredClone(recorded);
  change(copy);
  const path = join(dir, `${name}.replay.json`);
  writeFileSync(path, JSON.stringify(copy, null, 2));
  return path;
}

beforeAll(async () => {
  const fuzz = await runCli([...FAILING_VERSIONS_FUZZ, '--workers', '1', '--out', dir]);
  expect(fuzz.code).toBe(1);
  recorded = JSON.parse(readFileSync(join(dir, 'versions-0.replay.json'), 'utf8')) as Json;
});

describe('an edited replay file', () => {
  it('the planted bug removed: reported as edited (fields variant), re-run as a new scenario, exit 0', async () => {
    const path = edited('unbugged', (f) => {
      f.variant.providerBugs = [];
    });
    const r = await runCli(['replay', path]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('edited since it was recorded (fields variant)');
    expect(r.out).toContain('now passes');
    expect(r.err).not.toContain('DETERMINISM BREAK');
    const json = await runCli(['replay', path, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ failed: false, edited: ['variant'] });
  });

  it('a changed scenario that still fails: edited (fields scenario), exit 1', async () => {
    const path = edited('reseeded', (f) => {
      f.scenario.seed += 1;
    });
    const r = await runCli(['replay', path, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ failed: true, edited: ['scenario'] });
  });

  it('same inputs, another trace hash: still a determinism break, exit 3', async () => {
    const path = edited('hash', (f) => {
      f.traceHash = '0'.repeat(64);
    });
    const r = await runCli(['replay', path]);
    expect(r.code).toBe(3);
    expect(r.err).toContain('DETERMINISM BREAK');
  });

  it('an old file without digests still loads and replays bit for bit', async () => {
    const path = edited('old', (f) => {
      delete f.inputs;
    });
    const r = await runCli(['replay', path, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ failed: true, traceHash: recorded.traceHash });
  });

  it('a custom fault is refused at load, naming its place (exit 2), never run', async () => {
    const path = edited('custom', (f) => {
      f.scenario.faults.push({ at: 1, fault: { kind: 'custom', name: 'nope' } });
    });
    const r = await runCli(['replay', path]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`/scenario/faults/${recorded.scenario.faults.length}/fault`);
    expect(r.err).toContain('custom');
  });
});
