/**
 * Enforcement points by rule id. Every check the SDK makes is written `if (gates.on('CETP-x') && …)`,
 * so that rule ablation can switch one off by id and show which property catches its removal; and
 * planted bugs (the fuzzer's mutants) switch on realistic mistakes by name. The reference provider
 * has every rule on and no bug planted.
 */
import { isRuleId } from '../../protocol/index.ts';

export class Gates {
  constructor(
    private readonly disabled: ReadonlySet<string>,
    private readonly bugs: ReadonlySet<string>,
  ) {
    for (const id of disabled) {
      if (!isRuleId(id)) throw new RangeError(`unknown rule id ${id} in disabledRules`);
    }
  }

  /** Is the enforcement of every one of `ruleIds` on? */
  on(...ruleIds: string[]): boolean {
    for (const id of ruleIds) if (this.disabled.has(id)) return false;
    return true;
  }

  /** Is the planted bug `name` switched on? */
  bug(name: string): boolean {
    return this.bugs.has(name);
  }
}
