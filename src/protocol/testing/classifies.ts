/** Table-driven tests of a predicate over strings (names, ids, codes): what it accepts, what it rejects. */
import { expect, it } from 'vitest';

export interface Classes {
  readonly accepts: readonly string[];
  readonly rejects: readonly string[];
  /** More to assert of each value, told whether the predicate should accept it. */
  readonly also?: (value: string, accepted: boolean) => void;
}

/** One test per value: `predicate` is true for each of `accepts` and false for each of `rejects`. */
export function itClassifies(name: string, predicate: (value: string) => boolean, classes: Classes): void {
  const table = [
    ...classes.accepts.map((v) => [v, true] as const),
    ...classes.rejects.map((v) => [v, false] as const),
  ];
  it.each(table)(`${name}(%j) = %s`, (value, accepted) => {
    expect(predicate(value)).toBe(accepted);
    classes.also?.(value, accepted);
  });
}
