/**
 * The my-agent example, fuzzed as a user would (`cetp-sim fuzz --consumer … --json`, in process): it
 * holds the consumer-driven properties, alone and against the notes example provider (at 25 runs each,
 * the consumer properties' CI budget; the default budget is `npm run campaign:long`), and the same
 * fuzz finds a defect planted in it (an agent-level retry that sends a fresh request_id, 6-08) and a
 * planted bug of the consumer library that its install() passes through (`--mutant`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../../src/cli/testing.ts';

const MODULE = 'examples/my-agent/my-agent.consumer.ts';
const here = (file: string) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
const scratch = () => mkdtempSync(join(tmpdir(), 'cetp-sim-my-agent-'));
/** `npm run campaign:long` runs the soak at the CLI's default budget; `npm test` at 25 runs a property. */
const LONG = process.env.CETP_SIM_CAMPAIGN === 'long';
const BUDGET = LONG ? [] : ['--runs', '25'];

interface FuzzJson {
  passed: boolean;
  properties: { id: string; status: string; violations?: { checker: string; ruleIds: string[] }[] }[];
  consumer?: { name: string; properties: string[] };
}

async function fuzz(args: string[]): Promise<{ code: number; json: FuzzJson | null }> {
  const io = memoryIo();
  const code = await main(['fuzz', '--json', '--workers', '1', '--out', scratch(), ...args], io);
  const line = io.stdout.length === 1 ? io.stdout[0] : undefined;
  return { code, json: line ? (JSON.parse(line) as FuzzJson) : null };
}

describe('examples/my-agent', () => {
  it('holds the consumer-driven properties (25 runs each; the default budget in campaign:long), against the reference providers and the notes example', {
    timeout: LONG ? 1_800_000 : 300_000,
  }, async () => {
    for (const extra of [[], ['--provider', 'examples/notes-provider/notes.provider.ts']]) {
      const { code, json } = await fuzz(['--consumer', MODULE, ...extra, ...BUDGET]);
      expect(json?.consumer?.name).toBe('myagent');
      expect(json?.properties.map((p) => [p.id, p.status])).toEqual([
        ['consumer', 'passed'],
        ['consumer-versions', 'passed'],
        ['hostile', 'passed'],
      ]);
      expect(code).toBe(0);
    }
  });

  it('CETP-6-08: finds a defect planted in it (an agent-level retry with a fresh request_id)', async () => {
    const path = join(scratch(), 'retry.consumer.ts');
    writeFileSync(
      path,
      `import { type AppContext, bridgeIn } from ${here('../../src/index.ts')};
import { myAgent } from ${here('./my-agent.ts')};
export const consumer = { ...myAgent, agent: (context: AppContext) => {
  const bridge = bridgeIn(context);
  return { listTools: () => bridge.listTools(), cancellation: () => bridge.cancellation(),
    executeJson: async (p: string, t: string, j: string, o: Parameters<typeof bridge.executeJson>[3]) => {
      const first = await bridge.executeJson(p, t, j, o);
      return first.kind === 'ok' ? first : bridge.executeJson(p, t, j, o);
    } };
} };
`,
    );
    // Unshrunk (--no-shrink): whether and by which checker it fails is the same for the first failing run.
    const { code, json } = await fuzz(['--consumer', path, '--property', 'consumer', '--no-shrink']);
    expect(code).toBe(1);
    expect(json?.properties[0]?.violations).toContainEqual(
      expect.objectContaining({
        checker: 'consumer-request-id-on-wire',
        ruleIds: expect.arrayContaining(['CETP-6-08']),
      }),
    );
  });

  it('--mutant plants a consumer-library bug in it, and the fuzz finds it', async () => {
    const { code, json } = await fuzz([
      '--consumer',
      MODULE,
      '--mutant',
      'consumer-new-request-id-on-retry',
      '--property',
      'consumer',
      '--no-shrink',
    ]);
    expect(code).toBe(1);
    expect(json?.properties[0]?.status).toBe('failed');
  });
});
