/**
 * `--mutant consumer-…` with a `--consumer` module: the planted bug must reach the module's consumer
 * (judged from behaviour, src/harness/consumer-planted.ts). A module that ignores `variant` is
 * refused with exit 2 naming the module, the bug and the fix — in `fuzz`, in `replay` of a mutant's
 * replay file, and in the library's fuzzConsumer — instead of passing silently; one that honours it
 * (examples/my-agent) runs and the bug is found.
 */
import { describe, expect, it } from 'vitest';
import { myAgent } from '../../examples/my-agent/my-agent.ts';
import { CliError } from '../harness/errors.ts';
import { fuzzConsumer } from '../harness/fuzz.ts';
import { consumer as deaf } from './testdata/deaf.consumer.ts';
import { runCli, tempDir } from './testing.ts';

const DEAF = 'src/cli/testdata/deaf.consumer.ts';
const MY_AGENT = 'examples/my-agent/my-agent.consumer.ts';
const BUG = 'consumer-retries-non-retryable';

const fuzzArgs = (consumer: string, out: string) => [
  'fuzz',
  '--json',
  '--mutant',
  BUG,
  '--property',
  'consumer',
  '--runs',
  '30',
  '--consumer',
  consumer,
  '--out',
  out,
];

const refused = new RegExp(
  `--consumer ${DEAF}: consumer \\(deaf\\) cannot run planted bug\\(s\\) ${BUG}: with ${BUG} planted it behaved exactly as without .*variant\\.consumerBugs`,
);

describe('a planted consumer bug that does not reach the --consumer module', () => {
  it('fuzz: a consumer that ignores variant is refused (exit 2); my-agent, which honours it, is mutated and caught', async () => {
    const out = tempDir('cetp-sim-consumer-mutant-');
    const deafRun = await runCli(fuzzArgs(DEAF, out));
    expect(deafRun.code).toBe(2);
    const { error } = JSON.parse(deafRun.out) as { error: { code: string; message: string } };
    expect(error.code).toBe('mutant_not_planted');
    expect(error.message).toMatch(refused);

    const text = await runCli(fuzzArgs(DEAF, out).filter((a) => a !== '--json'));
    expect(text.code).toBe(2);
    expect(text.err).toMatch(refused);

    const honest = await runCli(fuzzArgs(MY_AGENT, out));
    expect(honest.code).toBe(1);
    const report = JSON.parse(honest.out) as {
      properties: { status: string; replayFile?: string; violations?: { checker: string }[] }[];
    };
    const [consumer] = report.properties;
    expect(consumer?.status).toBe('failed');
    expect(consumer?.violations?.map((v) => v.checker)).toContain('consumer-retry-discipline');

    // Its replay file carries the variant: replayed against the deaf module, refused the same way.
    const replay = await runCli(['replay', consumer?.replayFile ?? '', '--consumer', DEAF]);
    expect(replay.code).toBe(2);
    expect(replay.err).toMatch(refused);
    expect((await runCli(['replay', consumer?.replayFile ?? '', '--consumer', MY_AGENT])).code).toBe(1);
  }, 300_000);

  it('fuzzConsumer (the library, so also cetp-sim/vitest) refuses it too, and runs my-agent', async () => {
    const refusal = fuzzConsumer(deaf, { mutant: BUG, property: 'consumer', runs: 5, replayDir: null });
    await expect(refusal).rejects.toBeInstanceOf(CliError);
    await expect(refusal).rejects.toThrow(
      /fuzzConsumer\(consumer\): consumer \(deaf\) cannot run planted bug/,
    );
    const report = await fuzzConsumer(myAgent, {
      mutant: BUG,
      property: 'consumer',
      runs: 30,
      replayDir: null,
    });
    expect(report.properties[0]?.status).toBe('failed');
    // Without --mutant there is nothing to plant: the deaf consumer is fuzzed as it is.
    const plain = await fuzzConsumer(deaf, { property: 'consumer', runs: 3, replayDir: null });
    expect(plain.properties[0]?.runs).toBe(3);
  }, 300_000);
});
