/**
 * Every numeric option of the reference consumer below its floor is refused when the consumer is
 * configured (issue 30), with the option, the floor and the rule ids — never a consumer that starts
 * and then fails every call for a reason it never states.
 */
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../base/testing.ts';
import { OptionsError } from '../protocol/option-floors.ts';
import { consumerApp } from './app.ts';
import { DEFAULT_CONSUMER_OPTIONS, resolveConsumerOptions } from './options.ts';
import { CONSUMER_OPTION_FLOORS } from './options-check.ts';

function optionAt(path: string, value: unknown): object {
  const [head, tail] = path.split('.') as [string, string | undefined];
  return tail === undefined ? { [head]: value } : { [head]: { [tail]: value } };
}

/** The OptionsError `configure` throws: the options were refused. */
function refusal(configure: () => unknown): OptionsError {
  return thrownBy(configure, OptionsError);
}

describe('consumer option floors', () => {
  it.each(CONSUMER_OPTION_FLOORS.map((f) => [f.option, f] as const))(
    '%s: below the floor and a non-integer are refused (consumerApp and resolveConsumerOptions); the floor is accepted',
    (option, f) => {
      const below = optionAt(option, f.floor - 1);
      const viaApp = refusal(() => consumerApp(below));
      expect(viaApp.issues.map((i) => [i.option, i.floor, i.ruleIds])).toEqual([
        [option, f.floor, f.ruleIds],
      ]);
      expect(viaApp.message).toContain(
        `consumerApp options: ${option}: ${f.floor - 1} is below its floor ${f.floor}`,
      );
      expect(refusal(() => resolveConsumerOptions(below)).issues[0]?.option).toBe(option);
      expect(refusal(() => consumerApp(optionAt(option, 0.5))).issues[0]?.message).toContain(
        'is not an integer',
      );
      expect(() => consumerApp(optionAt(option, f.floor))).not.toThrow();
    },
  );

  it('callTimeoutMs null (wait forever) is allowed', () => {
    expect(() => resolveConsumerOptions({ callTimeoutMs: null })).not.toThrow();
  });

  it('every numeric option of the consumer has a floor', () => {
    const numeric: string[] = [];
    for (const [key, value] of Object.entries(DEFAULT_CONSUMER_OPTIONS)) {
      if (typeof value === 'number') numeric.push(key);
      if (key === 'limits' || key === 'retry')
        for (const [k, v] of Object.entries(value as object))
          if (typeof v === 'number') numeric.push(`${key}.${k}`);
    }
    expect(CONSUMER_OPTION_FLOORS.map((f) => f.option).sort()).toEqual(numeric.sort());
  });
});
