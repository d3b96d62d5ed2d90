/**
 * Floors of numeric configuration: the smallest value of an implementation's option with which it
 * can still do what the spec asks (a negotiated limit below its §2.2 minimum, a token lifetime of
 * zero, a poll interval below zero). An option under its floor is refused when the implementation
 * is defined, with the option, the floor and the rule ids — not found later as INTERNAL_ERROR on
 * every negotiate with no log line (issue 30). Plain data and one check: the provider SDK
 * (src/providers/sdk/options-check.ts) and the consumer (src/consumer/options-check.ts) list theirs.
 */

export interface OptionFloor {
  /** The option's path as the user writes it (`limits.idempotencyWindowSeconds`). */
  readonly option: string;
  /** The smallest value allowed (an integer). */
  readonly floor: number;
  /** The rule ids the floor comes from (empty: no spec rule, only the option's own sense). */
  readonly ruleIds: readonly string[];
  /** Why the floor, in a few words. */
  readonly why: string;
  /** `null` allowed (e.g. "no timeout"). */
  readonly nullable?: boolean;
}

export interface OptionIssue {
  readonly option: string;
  readonly value: unknown;
  readonly floor: number;
  readonly ruleIds: readonly string[];
  readonly message: string;
}

/** An implementation's options that break a floor: structured, one issue per option. */
export class OptionsError extends Error {
  override readonly name = 'OptionsError';
  constructor(
    /** What was being configured (`provider com.example.todo`, `consumer`). */
    readonly subject: string,
    readonly issues: readonly OptionIssue[],
  ) {
    super(`${subject}: ${issues.map((i) => i.message).join('; ')}`);
  }
}

function valueAt(options: unknown, path: string): unknown {
  let value: unknown = options;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The options (as given: absent ones take their defaults and are not checked) that break a floor. */
export function checkOptionFloors(options: unknown, floors: readonly OptionFloor[]): OptionIssue[] {
  const issues: OptionIssue[] = [];
  for (const f of floors) {
    const value = valueAt(options, f.option);
    if (value === undefined || (value === null && f.nullable)) continue;
    const integer = typeof value === 'number' && Number.isSafeInteger(value);
    if (integer && value >= f.floor) continue;
    const rules = f.ruleIds.length > 0 ? ` (${f.ruleIds.join(', ')})` : '';
    const what = integer
      ? `${value} is below its floor ${f.floor}`
      : `${JSON.stringify(value)} is not an integer >= ${f.floor}`;
    issues.push({
      option: f.option,
      value,
      floor: f.floor,
      ruleIds: f.ruleIds,
      message: `${f.option}: ${what}${f.nullable ? ' (or null)' : ''}: ${f.why}${rules}`,
    });
  }
  return issues;
}
