/**
 * A provider option below its floor is refused where it is written (issue 30): defineProvider throws
 * an OptionsError naming the option, its floor and the rule ids, instead of a provider that starts
 * and then answers every negotiate INTERNAL_ERROR with no log line. A hand-written subclass is
 * refused when its instance starts. Every numeric option of the SDK is tried.
 */
import { describe, expect, it } from 'vitest';
import { OptionsError } from '../../protocol/option-floors.ts';
import { AGENT, RawClient, readTool, TEST_AUTHORITY, testProviderWorld } from '../testing.ts';
import { defineProvider } from './define.ts';
import { PROVIDER_OPTION_FLOORS } from './options-check.ts';
import { DEFAULT_PROVIDER_OPTIONS } from './types.ts';

const define = (options: object) =>
  defineProvider({
    packageName: 'com.example.floors',
    descriptor: { providerName: 'Floors', description: 'Option floors', scopes: [] },
    tools: [],
    options,
  });

/** `{ limits: { x: v } }` for `limits.x`, `{ x: v }` for `x`. */
function optionAt(path: string, value: unknown): object {
  const [head, tail] = path.split('.') as [string, string | undefined];
  return tail === undefined ? { [head]: value } : { [head]: { [tail]: value } };
}

function refusal(options: object): OptionsError {
  try {
    define(options);
  } catch (error) {
    if (error instanceof OptionsError) return error;
    throw error;
  }
  throw new Error('defineProvider accepted the options');
}

describe('provider option floors', () => {
  it('the issue case: idempotencyWindowSeconds 3600 is refused naming the option, the floor 86400 and CETP-2.2-20', () => {
    const error = refusal({ limits: { idempotencyWindowSeconds: 3600 } });
    expect(error.issues).toEqual([
      expect.objectContaining({
        option: 'limits.idempotencyWindowSeconds',
        value: 3600,
        floor: 86_400,
        ruleIds: ['CETP-2.2-20'],
      }),
    ]);
    expect(error.message).toContain('defineProvider(com.example.floors)');
    expect(error.message).toContain('limits.idempotencyWindowSeconds: 3600 is below its floor 86400');
    expect(error.message).toContain('CETP-2.2-20');
  });

  it.each(PROVIDER_OPTION_FLOORS.map((f) => [f.option, f] as const))(
    '%s: one below the floor and a non-integer are refused; the floor itself is accepted',
    (option, f) => {
      const below = refusal(optionAt(option, f.floor - 1));
      expect(below.issues.map((i) => [i.option, i.floor, i.ruleIds])).toEqual([[option, f.floor, f.ruleIds]]);
      expect(refusal(optionAt(option, 1.5 + f.floor)).issues[0]?.message).toContain('is not an integer');
      expect(refusal(optionAt(option, String(f.floor))).issues[0]?.option).toBe(option);
      expect(() => define(optionAt(option, f.floor))).not.toThrow();
    },
  );

  it('every numeric option of the SDK has a floor', () => {
    const numeric: string[] = [];
    for (const [key, value] of Object.entries(DEFAULT_PROVIDER_OPTIONS)) {
      if (typeof value === 'number') numeric.push(key);
      if (key === 'limits') for (const k of Object.keys(value as object)) numeric.push(`limits.${k}`);
    }
    expect(PROVIDER_OPTION_FLOORS.map((f) => f.option).sort()).toEqual(numeric.sort());
  });

  it('a hand-written subclass with a below-floor option is refused when it starts, not served', async () => {
    const world = testProviderWorld({
      tools: [readTool('r', () => ({}))],
      options: { limits: { idempotencyWindowSeconds: 3600 } },
    });
    const seen: { reply: unknown; error: unknown } = { reply: null, error: null };
    world.spawnIn(AGENT, 'negotiate', async (ctx) => {
      try {
        seen.reply = await new RawClient(ctx, TEST_AUTHORITY).negotiate();
      } catch (error) {
        seen.error = error;
      }
    });
    await world.run().catch((error: unknown) => {
      seen.error = error;
    });
    expect(seen.reply).toBeNull();
    // As on Android: the provider's onCreate throws, the process dies with the reason in the log.
    const fatal = world.trace.events.find(
      (e) => e.kind === 'log' && String(e.data.message).includes('FATAL'),
    );
    expect(String(fatal?.data.message)).toContain(
      'OptionsError: provider com.example.test: options: limits.idempotencyWindowSeconds: 3600 is below its floor 86400',
    );
    expect(String(fatal?.data.message)).toContain('CETP-2.2-20');
    expect(String(seen.error)).toContain('cannot acquire');
  });
});
