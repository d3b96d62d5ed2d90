/**
 * `--android 14|15|16` on the other commands that run worlds (issue 35 item 7): vectors run, zoo,
 * mutants, ablate and serve hand the profile to every world they build (seen by a fixture's install,
 * which gets the world), and their --json reports name it.
 */
import { describe, expect, it } from 'vitest';
import { ALERTS, type ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { REFERENCE } from '../fuzz/scenario/model.ts';
import type { World } from '../sim/world.ts';
import { runVectorInWorld, vectorJudge } from '../vectors/engine.ts';
import type { Vector } from '../vectors/format.ts';
import { Server } from './commands/serve.ts';
import { LiveSession } from './commands/serve-session.ts';
import { runCli } from './testing.ts';

/** ALERTS, noting the release of each world it is installed into. */
function spying(seen: number[]): ProviderFixture {
  return {
    ...ALERTS,
    install: (world: World, variant) => {
      seen.push(world.release.release);
      ALERTS.install(world, variant);
    },
  };
}

const VECTOR = { id: 'android-probe', level: 'must', steps: [] } as unknown as Vector;

describe('--android on vectors, zoo, mutants, ablate and serve', () => {
  it('a vector world runs on the variant profile (the default, 14, without one)', async () => {
    const seen: number[] = [];
    const judge = vectorJudge(VECTOR);
    await runVectorInWorld(VECTOR, { fixture: spying(seen), variant: { ...REFERENCE, android: 16 }, judge });
    await runVectorInWorld(VECTOR, { fixture: spying(seen), variant: REFERENCE, judge });
    expect(seen).toEqual([16, 14]);
  });

  it('a serve session world runs on the profile, and hello names it', async () => {
    const seen: number[] = [];
    const session = await LiveSession.open({
      fixture: spying(seen),
      seed: 's',
      fresh: [],
      variant: { ...REFERENCE, android: 15 },
    });
    session.close();
    expect(seen).toEqual([15]);
    const server = new Server({ seed: '0', dir: 'vectors', android: 16 });
    expect(JSON.parse(await server.handle('{"id":1,"op":"hello"}'))).toMatchObject({ android: 16 });
    server.close();
  });

  it('vectors run, mutants and ablate record the profile in --json; a bad value is exit 2', async () => {
    const vectors = await runCli([
      'vectors',
      'run',
      '--id',
      'idem-same-request-same-result',
      '--android',
      '16',
      '--json',
      '--workers',
      '1',
    ]);
    expect(JSON.parse(vectors.out)).toMatchObject({ android: 16 });
    const mutants = await runCli([
      'mutants',
      '--id',
      'v1-lists-write-tools',
      '--runs',
      '60',
      '--android',
      '15',
      '--json',
      '--workers',
      '1',
    ]);
    expect(mutants.code).toBe(0);
    expect(JSON.parse(mutants.out)).toMatchObject({
      android: 15,
      mutants: [{ id: 'v1-lists-write-tools', killed: true }],
    });
    const ablate = await runCli([
      'ablate',
      '--rule',
      'CETP-6-03',
      '--runs',
      '3',
      '--android',
      '16',
      '--json',
      '--workers',
      '1',
    ]);
    expect(JSON.parse(ablate.out)).toMatchObject({ android: 16, rules: [{ id: 'CETP-6-03' }] });
    for (const command of [['vectors', 'run'], ['mutants'], ['ablate'], ['zoo'], ['serve', '--stdio']]) {
      const bad = await runCli([...command, '--android', '13']);
      expect(bad.code, command.join(' ')).toBe(2);
      expect(bad.err).toContain('--android must be one of 14, 15, 16');
    }
  });
});
