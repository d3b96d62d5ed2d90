/**
 * A consumer that intercepts its platform calls by wrapping its AppContext — an `Object.create`
 * view overriding a method or two, as user code does to log or stub Android calls — is judged like
 * any other: the reference consumer built on such a view holds every consumer-driven property.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.ts';
import { memoryIo } from '../src/cli/testing.ts';
import { fuzzConsumer } from '../src/harness/fuzz.ts';
import {
  type AppContext,
  bridgeIn,
  type CancelSignal,
  type ConsumerUnderTest,
  consumerApp,
  consumerPackage,
  isConsumerBug,
} from '../src/index.ts';

/** `npm run campaign:long` runs the command-line soak at the CLI's default budget; `npm test` at 25 runs (the CI budget). */
const LONG = process.env.CETP_SIM_CAMPAIGN === 'long';
const BUDGET = LONG ? [] : ['--runs', '25'];

/** A view of `context` that counts the platform calls it intercepts and passes them on. */
function wrapped(context: AppContext, seen: Map<string, number>): AppContext {
  const view = Object.create(context) as AppContext;
  const count = (name: string) => seen.set(name, (seen.get(name) ?? 0) + 1);
  view.startIntentSenderForResult = (...args) => {
    count('startIntentSenderForResult');
    return context.startIntentSenderForResult(...args);
  };
  view.currentTimeMillis = () => {
    count('currentTimeMillis');
    return context.currentTimeMillis();
  };
  return view;
}

function wrappingConsumer(seen: Map<string, number>): ConsumerUnderTest<CancelSignal> {
  return {
    name: 'wrappedctx',
    packageName: 'com.example.wrappedctx',
    install(world, { variant, capabilities }) {
      const app = consumerApp({
        plantedBugs: variant.consumerBugs.filter(isConsumerBug),
        disabledRules: [...variant.disabledRules],
        capabilities: ['async_operations', 'cancellation', 'large_results'].filter((c) =>
          capabilities.includes(c),
        ) as ('async_operations' | 'cancellation' | 'large_results')[],
        resumeOnStart: true,
      });
      world.install(consumerPackage({ packageName: 'com.example.wrappedctx' }), (context) =>
        app(wrapped(context, seen)),
      );
    },
    agent: (context) => bridgeIn(context),
  };
}

describe('a consumer on a wrapped AppContext (Object.create view)', () => {
  it('holds every consumer-driven property, and its overrides were really used', {
    timeout: 300_000,
  }, async () => {
    const seen = new Map<string, number>();
    const report = await fuzzConsumer(wrappingConsumer(seen), { replayDir: null });
    expect(report.properties.map((p) => [p.id, p.status, p.violations?.[0]?.checker ?? null])).toEqual([
      ['consumer', 'passed', null],
      ['consumer-versions', 'passed', null],
      ['hostile', 'passed', null],
    ]);
    expect(seen.get('currentTimeMillis') ?? 0).toBeGreaterThan(0);
    expect(seen.get('startIntentSenderForResult') ?? 0).toBeGreaterThan(0);
  });

  it('holds them through the command line too (worker threads, the module guard; 25 runs, the default budget in campaign:long)', {
    timeout: LONG ? 1_800_000 : 300_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cetp-sim-wrapped-'));
    const index = JSON.stringify(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
    const module = join(dir, 'wrapped.consumer.ts');
    writeFileSync(
      module,
      `import { type AppContext, bridgeIn, consumerApp, consumerPackage, type World } from ${index};
const wrapped = (context: AppContext): AppContext => {
  const view = Object.create(context) as AppContext;
  view.startIntentSenderForResult = (...args) => context.startIntentSenderForResult(...args);
  view.currentTimeMillis = () => context.currentTimeMillis();
  return view;
};
export const consumer = {
  name: 'wrappedctx',
  packageName: 'com.example.wrappedctx',
  install(world: World, { capabilities }: { capabilities: readonly string[] }) {
    const app = consumerApp({ capabilities: capabilities as never, resumeOnStart: true });
    world.install(consumerPackage({ packageName: 'com.example.wrappedctx' }), (c: AppContext) => app(wrapped(c)));
  },
  agent: (context: AppContext) => bridgeIn(wrapped(context)),
};
`,
    );
    const io = memoryIo();
    const code = await main(
      [
        'fuzz',
        '--json',
        '--workers',
        '1',
        '--out',
        dir,
        '--consumer',
        module,
        '--property',
        'consumer',
        ...BUDGET,
      ],
      io,
    );
    const json = JSON.parse(io.stdout[0] ?? '{}') as { properties?: { id: string; status: string }[] };
    expect(json.properties?.map((p) => [p.id, p.status])).toEqual([['consumer', 'passed']]);
    expect(code).toBe(0);
  });
});
