/**
 * The clock family of the raw protocol driver: commands that cross one of the protocol's clocks — a
 * session's expiry, the idempotency window, a grant's life, a poll_after_ms pause, a retry_after_ms
 * after RATE_LIMITED, a request's deadline — just before or just after its edge.
 */

import { anyExecution, fresh, resend } from './driver-execute.ts';
import type { DriverCore } from './driver-session.ts';
import type { ProviderFixture } from './fixtures.ts';
import { type Command, DEADLINE_CROSS_MS, GRANT_TTL_MS } from './model.ts';

export async function cross(
  d: DriverCore,
  clock: Extract<Command, { kind: 'cross' }>['clock'],
  side: 'before' | 'after',
): Promise<void> {
  switch (clock) {
    case 'session': {
      const prior = d.state.sent.at(-1);
      const target = prior ? d.provider(prior.provider) : (d.providers[0] as ProviderFixture);
      if (!d.state.negotiated.has(target.name)) await d.negotiate(target);
      const s = d.state.negotiated.get(target.name);
      if (!s) return;
      await d.sleepAround(s.expiresAt, s.expiresAt - s.at, side);
      if (prior) await resend(d, prior);
      else {
        const e = anyExecution(d);
        await fresh(d, e.provider, e.tool, e.args);
      }
      return;
    }
    case 'window': {
      const prior = d.state.sent[0];
      if (!prior) return;
      const w = d.state.negotiated.get(prior.provider)?.windowMs ?? 86_400_000;
      await d.sleepAround(prior.at + w, w, side);
      await resend(d, prior);
      return;
    }
    case 'grant': {
      const g = d.state.grants.at(-1);
      if (!g) return;
      await d.sleepAround(g.at + GRANT_TTL_MS, GRANT_TTL_MS, side);
      await fresh(d, g.provider, g.tool, g.args);
      return;
    }
    case 'poll-after': {
      const op = d.state.lastOp;
      if (!op) return;
      const poll = async () => {
        const reply = await d.v2(
          d.provider(op.provider),
          'get_operation',
          (b) => b.putString('operation_id', op.operationId),
          op.rid,
        );
        d.notePollAfter(reply);
        return reply;
      };
      // The last answer asked for a pause: cross it; none did (or it ended): ask now, then cross.
      if (!d.state.lastOpAnswer) await poll();
      const answer = d.state.lastOpAnswer;
      if (!answer) return;
      d.state.lastOpAnswer = null;
      await d.sleepAround(answer.at + answer.pollAfterMs, answer.pollAfterMs, side);
      await poll();
      return;
    }
    case 'retry-after':
      await burst(d, side);
      return;
    case 'deadline': {
      const prior = d.state.sent.at(-1);
      const budget = side === 'before' ? DEADLINE_CROSS_MS : -DEADLINE_CROSS_MS;
      if (prior) await resend(d, prior, budget);
      else {
        const e = anyExecution(d);
        await fresh(d, e.provider, e.tool, e.args, budget);
      }
      return;
    }
  }
}

/**
 * max_concurrent_requests + 1 executions at once (fresh ids, the last tool this actor sent, else
 * any): those answered RATE_LIMITED are re-sent just before or after their retry_after_ms.
 */
export async function burst(d: DriverCore, side: 'before' | 'after'): Promise<void> {
  const e = d.state.sent.at(-1) ?? anyExecution(d);
  const p = d.provider(e.provider);
  if (!d.state.negotiated.has(p.name)) await d.negotiate(p);
  const n = (d.state.negotiated.get(p.name)?.maxConcurrent ?? 4) + 1;
  const entries = Array.from({ length: n }, () => ({
    provider: p.name,
    tool: e.tool,
    rid: d.rid({ kind: 'fresh' }),
    args: e.args,
    at: d.ctx.currentTimeMillis(),
  }));
  d.state.sent.push(...entries);
  const limited: { entry: (typeof entries)[number]; at: number; ms: number }[] = [];
  const tasks = entries.map((entry, i) =>
    d.ctx.spawn(`burst-${i}`, async () => {
      const reply = await resend(d, entry);
      const ms = reply?.getString('error_code') === 'RATE_LIMITED' ? reply.getLong('retry_after_ms') : null;
      if (ms !== null) limited.push({ entry, at: d.ctx.currentTimeMillis(), ms });
    }),
  );
  d.state.duplicates.push(...tasks);
  for (let i = 0; i < 60 && tasks.some((t) => t.alive); i++) await d.ctx.sleep(50);
  for (const l of limited) {
    await d.sleepAround(l.at + l.ms, l.ms, side);
    await resend(d, l.entry);
  }
}
