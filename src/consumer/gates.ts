/**
 * Consumer-side enforcement points by rule id.
 *
 * Every check the reference consumer makes is written `if (gates.on('CETP-x') && …)`, so rule
 * ablation can switch one off by id and show which property catches its removal (as the provider
 * SDK's gates do). The reference consumer has every rule on. (Planted bugs are not gates: they
 * substitute named parts of the consumer from outside, planted.ts.)
 */
import { isRuleId } from '../protocol/index.ts';

export class ConsumerGates {
  private readonly disabled: ReadonlySet<string>;

  constructor(disabled: Iterable<string> = []) {
    this.disabled = new Set(disabled);
    for (const id of this.disabled) {
      if (!isRuleId(id)) throw new RangeError(`unknown rule id ${id} in disabledRules`);
    }
  }

  /** Is the enforcement of every one of `ruleIds` on? */
  on(...ruleIds: string[]): boolean {
    for (const id of ruleIds) if (this.disabled.has(id)) return false;
    return true;
  }

  get disabledRules(): readonly string[] {
    return [...this.disabled];
  }
}
