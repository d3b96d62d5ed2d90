/**
 * A provider that declares no business effect (AppContext.declareEffect) is told which oracles could
 * not judge it: in the fuzz summary and in --json (`blindOracles`), as soon as its write tools
 * succeeded without one effect declared. A provider that declares its effects is not.
 */
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { memoryIo } from './testing.ts';

async function fuzz(module: string, json: boolean): Promise<{ code: number; stdout: string[] }> {
  const io = memoryIo();
  const args = ['fuzz', '--runs', '20', '--property', 'idempotency', '--provider', module, '--workers', '1'];
  const code = await main(json ? [...args, '--json'] : args, io);
  return { code, stdout: io.stdout };
}

type Props = {
  properties: { id: string; blindOracles?: string[]; exercised: { writesSucceeded: number } }[];
};

describe('effect oracles that could not judge a provider', () => {
  it('are named for a provider that declares no effects, in --json and in the summary', async () => {
    const r = await fuzz('src/cli/testdata/undeclared-alerts.provider.ts', true);
    const [p] = (JSON.parse(r.stdout[0] ?? '{}') as Props).properties;
    expect(p?.exercised.writesSucceeded).toBeGreaterThan(0);
    expect(p?.blindOracles).toEqual(expect.arrayContaining(['single-effect', 'effect-attribution']));
    const text = await fuzz('src/cli/testdata/undeclared-alerts.provider.ts', false);
    expect(text.stdout.join('\n')).toMatch(
      /declared no business effect .* single-effect.* could not judge it/,
    );
  });

  it('are not named for a provider that declares its effects', async () => {
    const r = await fuzz('src/cli/testdata/my-alerts.provider.ts', true);
    const [p] = (JSON.parse(r.stdout[0] ?? '{}') as Props).properties;
    expect(p?.blindOracles).toBeUndefined();
  });
});
