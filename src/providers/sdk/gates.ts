/**
 * Enforcement points by rule id. Every check the SDK makes is written `if (gates.on('CETP-x') && …)`,
 * so that rule ablation can switch one off by id and show which property catches its removal. The
 * reference provider has every rule on. (Planted bugs are not gates: they substitute named parts of
 * the provider from outside, planted.ts.)
 */
import { isRuleId } from '../../protocol/index.ts';

export class Gates {
  constructor(private readonly disabled: ReadonlySet<string>) {
    for (const id of disabled) {
      if (!isRuleId(id)) throw new RangeError(`unknown rule id ${id} in disabledRules`);
    }
  }

  /** Is the enforcement of every one of `ruleIds` on? */
  on(...ruleIds: string[]): boolean {
    for (const id of ruleIds) if (this.disabled.has(id)) return false;
    return true;
  }
}
