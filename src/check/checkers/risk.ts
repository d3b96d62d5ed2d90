/**
 * The oracle over runtime risk (§3.4, CETP-3.4-12): when the provider finds an execution riskier
 * than its tool's static declaration, its policy is stricter — here, the user's approval. Which
 * effects that policy covered is a fact only the provider knows; it says so when it declares the
 * effect (`approvalRequired` in the public effect API, docs/oracles.md). Whether the user approved
 * is the world's record of the screens, never the provider's word: such an effect must follow an
 * approval, on a screen of the provider's package shown after the request was first sent and
 * answered "approve" before the effect, that shows the args the effect acted on.
 *
 * Effects whose tool is always confirmed, or whose request the provider did answer
 * USER_ACTION_REQUIRED, are judged by approval-binding (one approval per effect); this oracle
 * judges the rest, which approval-binding cannot see as needing approval at all.
 *
 * A fixture may state the truth itself (`approvalRequired`, a function of the args by tool): an
 * effect on args it says need approval is judged whatever the provider declared — a policy that
 * never asks declares no need either.
 */
import type { Checker } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { approvalsInTime, callsOf, neededApproval, unshown } from '../ground.ts';
import { effectEvents } from '../observation.ts';

export const runtimeRiskApproved = judgeRun({
  id: 'runtime-risk-approved',
  ruleIds: ['CETP-3.4-12'],
  description:
    "An effect the provider declared as needing approval by its own runtime-risk policy follows the user's approval of its args on the provider's screen, even when the tool is declared lower.",
  fields: [
    consistency(
      "the user's approval of these args, when the provider declared the effect riskier than its tool's declaration (effect API)",
      'req:execute_tool:args',
    ),
  ],
  *judge(obs, ctx) {
    for (const e of obs.effects) {
      const truth = ctx.toolApprovalRequired?.get(`${e.provider}|${e.tool}`)?.(e.args) ?? false;
      if (!(e.approvalRequired || truth) || !ctx.providersUnderTest.includes(e.provider)) continue;
      if (neededApproval(obs, ctx, e)) continue; // approval-binding's
      const screens = approvalsInTime(obs, e);
      if (screens.some((s) => unshown(s, e).length === 0)) continue;
      yield {
        message: `effect of ${e.tool} request ${e.requestId} of uid ${e.uid}, riskier than its tool's declaration by the provider's own policy${e.approvalRequired ? '' : " (as the fixture's approvalRequired says; the provider declared no need)"}, ${screens.length === 0 ? 'without the user approving it on a screen of the provider' : 'though no screen the user approved showed its args'}`,
        events: [...effectEvents(e), ...screens.map((s) => s.seq)],
        calls: callsOf(obs, e).map((c) => c.id),
      };
    }
  },
});

export const RISK_CHECKERS: readonly Checker[] = [runtimeRiskApproved];
